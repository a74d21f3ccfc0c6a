"""Small scenarios off seed 004's setups (issue 27 item 5): a dumbbell of n consumers and a
two-path topology of chosen capacities and delays, run with PCON or ndnSieve, and the figures
the off-paper tests and the tables of docs/schemes/pcon.md and sieve.md read from a run."""

from ndncc.scenario import Scenario


def _scheme(d: dict, scheme: str) -> dict:
    """Puts `scheme` on every node (and the SDN controller for sieve); the consumer's keys."""
    if scheme == "pcon":
        d["defaults"]["node"] = {"strategy": "pcon", "schemes": {"pcon": {}}}
        return {"controller": "pcon", "lifetime": "2s"}
    if scheme == "sieve":
        d["defaults"]["node"] = {"schemes": {"sieve": {}}}
        d["sdn"] = {"sieve": {"delay": "1ms"}}
        return {"controller": "sieve"}
    raise ValueError(f"unknown scheme {scheme!r}")


def dumbbell(scheme, n=2, bw="10Mbps", queue="100p", duration="4s", seed=1) -> Scenario:
    """C1..Cn — R1 — R2 — P1..Pn, every link `bw` and 10 ms with drop-tail queues of `queue`;
    consumer k fetches /pk from producer Pk, so R2 → R1 is the shared bottleneck."""
    d = {
        "scenario": {"name": f"off-{scheme}-dumbbell", "duration": duration, "seed": seed},
        "defaults": {"link": {"bandwidth": bw, "delay": "10ms", "queue": queue}},
    }
    app = _scheme(d, scheme)
    links = [{"between": ["R1", "R2"]}]
    apps = []
    for k in range(1, n + 1):
        links += [{"between": [f"C{k}", "R1"]}, {"between": ["R2", f"P{k}"]}]
        apps.append(
            {"name": f"c{k}", "node": f"C{k}", "kind": "consumer", "prefix": f"/p{k}", **app}
        )
        apps.append(
            {
                "name": f"p{k}",
                "node": f"P{k}",
                "kind": "producer",
                "prefix": f"/p{k}",
                "payload": "1024B",
            }
        )
    d["links"], d["apps"] = links, apps
    return Scenario.from_dict(d)


def twopath(
    scheme,
    n=1,
    bw=("10Mbps", "10Mbps"),
    delay=("10ms", "10ms"),
    queue="100p",
    duration="6s",
    seed=1,
) -> Scenario:
    """C1..Cn — R1 (100 Mbit/s, 1 ms access links); path A: R1 — R2 — P1, path B: R1 — R3 — P2,
    each path's two links at bw[i], the R1 link's delay delay[i] (the producer link 1 ms).
    P1 and P2 both serve /prefix; consumer k fetches /prefix/ck. R1 has both paths as next
    hops of /prefix, A first (cost 1, B cost 2): PCON's ratios and ndnSieve's shunt router
    start on A."""
    d = {
        "scenario": {"name": f"off-{scheme}-twopath", "duration": duration, "seed": seed},
        "defaults": {"link": {"bandwidth": "100Mbps", "delay": "1ms", "queue": queue}},
    }
    app = _scheme(d, scheme)
    links = [
        {"between": ["R1", "R2"], "bandwidth": bw[0], "delay": delay[0]},
        {"between": ["R2", "P1"], "bandwidth": bw[0]},
        {"between": ["R1", "R3"], "bandwidth": bw[1], "delay": delay[1]},
        {"between": ["R3", "P2"], "bandwidth": bw[1]},
    ]
    apps = []
    for k in range(1, n + 1):
        links.append({"between": [f"C{k}", "R1"]})
        apps.append(
            {"name": f"c{k}", "node": f"C{k}", "kind": "consumer", "prefix": f"/prefix/c{k}", **app}
        )
    apps += [
        {
            "name": f"p{k}",
            "node": f"P{k}",
            "kind": "producer",
            "prefix": "/prefix",
            "payload": "1024B",
        }
        for k in (1, 2)
    ]
    d["links"], d["apps"] = links, apps
    d["routes"] = [
        {"node": "R1", "prefix": "/prefix", "next_hop": "R2", "cost": 1},
        {"node": "R1", "prefix": "/prefix", "next_hop": "R3", "cost": 2},
    ]
    return Scenario.from_dict(d)


def jain(xs) -> float:
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else 0.0


def consumers(result) -> list[dict]:
    return [a for a in result.summary["apps"] if a["name"].startswith("c")]


def figures(result, t0: float = 1.0) -> dict:
    """Per-consumer throughput (Mbit/s of distinct Data over the run), their Jain index, drops
    and Data marked on all faces, and the Data rate (Mbit/s) R1 receives from R2 (path A) and
    from R3 (path B) after `t0` seconds."""
    thr = [a["throughput_mbps"] for a in consumers(result)]
    fs = result.face_series
    r1 = fs[(fs.node_name == "R1") & (fs.time_s > t0)]
    span = float(fs.time_s.max()) - t0
    by = r1.groupby("peer_name")["in_data_bytes"].sum() * 8 / 1e6 / span
    return {
        "throughput": thr,
        "total": sum(thr),
        "jain": jain(thr),
        "drops": int(fs["drops"].sum()),
        "marks": int(fs["marks"].sum()),
        "A": float(by.get("R2", 0.0)),
        "B": float(by.get("R3", 0.0)),
    }
