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


# ---- the grid of docs/schemes/pcon.md and sieve.md, "Off the paper's setups" ----------------
# `python tests/off_paper_helpers.py pcon` (or `sieve`) prints the two tables (≈ 1 min of CPU).

TWO_PATHS = [
    (("10Mbps", "10Mbps"), ("10ms", "10ms")),
    (("5Mbps", "15Mbps"), ("10ms", "10ms")),
    (("15Mbps", "5Mbps"), ("10ms", "10ms")),
    (("10Mbps", "10Mbps"), ("5ms", "20ms")),
    (("10Mbps", "10Mbps"), ("20ms", "5ms")),
]


def _variants(scheme: str) -> list[tuple[str, object]]:
    """(label, n -> overrides) of the scheme's two variants."""
    if scheme == "pcon":
        return [
            ("NFD's rule", lambda n: {}),
            ("`cap_half_queue`", lambda n: {"defaults.node.schemes.pcon.cap_half_queue": True}),
        ]
    return [
        ("as printed", lambda n: {}),
        ("`per_window`", lambda n: {f"apps[c{k}].per_window": True for k in range(1, n + 1)}),
    ]


def grid(scheme: str):
    """Yields (kind, label, setup, figures) over the grid: dumbbells of 2 consumers at 5, 10,
    50 Mbit/s with queues of 50, 200, 1000 packets and of 4 and 8 at 10 Mbit/s, 200 packets;
    two paths with 1 and 4 consumers, queues of 50 and 200 packets. 6 s each. The second
    PCON variant runs only where it can differ (queues under 88 packets)."""
    import ndncc

    for i, (label, over) in enumerate(_variants(scheme)):
        db = [(2, bw, q) for bw in ("5Mbps", "10Mbps", "50Mbps") for q in ("50p", "200p", "1000p")]
        db += [(4, "10Mbps", "200p"), (8, "10Mbps", "200p")]
        for n, bw, q in db:
            if scheme == "pcon" and i == 1 and q != "50p":
                continue
            s = dumbbell(scheme, n, bw, q, "6s").with_overrides(overrides=over(n))
            yield "dumbbell", label, (n, bw, q), figures(ndncc.run(s))
        for bw, delay in TWO_PATHS:
            for n in (1, 4):
                for q in ("50p", "200p"):
                    if scheme == "pcon" and i == 1 and q != "50p":
                        continue
                    s = twopath(scheme, n, bw, delay, q, "6s").with_overrides(overrides=over(n))
                    yield "twopath", label, (n, bw, delay, q), figures(ndncc.run(s))


def _num(x: str) -> str:
    return x.replace("Mbps", "").replace("ms", "").rstrip("p")


def markdown(scheme: str) -> str:
    db = [
        "| variant | consumers | bottleneck (Mbit/s) | queue (packets) | per consumer (Mbit/s) "
        "| total (Mbit/s) | smallest / fair share | Jain | drops | marks |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    tp = [
        "| variant | consumers | capacity A : B (Mbit/s) | delay of R1's link A : B (ms) "
        "| queue (packets) | path A (Mbit/s) | path B (Mbit/s) | total goodput (Mbit/s) "
        "| smallest / fair share | Jain | drops | marks |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, label, setup, f in grid(scheme):
        thr = f["throughput"]
        share = min(thr) / (f["total"] / len(thr)) if f["total"] else 0.0
        tail = f"{share:.2f} | {f['jain']:.3f} | {f['drops']} | {f['marks']} |"
        if kind == "dumbbell":
            n, bw, q = setup
            per = ", ".join(f"{x:.2f}" for x in thr)
            db.append(
                f"| {label} | {n} | {_num(bw)} | {_num(q)} | {per} | {f['total']:.2f} | {tail}"
            )
        else:
            n, bw, delay, q = setup
            tp.append(
                f"| {label} | {n} | {_num(bw[0])} : {_num(bw[1])} | {_num(delay[0])} : "
                f"{_num(delay[1])} | {_num(q)} | {f['A']:.2f} | {f['B']:.2f} | "
                f"{f['total']:.2f} | {tail}"
            )
    return "\n".join(db) + "\n\n" + "\n".join(tp) + "\n"


if __name__ == "__main__":
    import sys

    print(markdown(sys.argv[1] if len(sys.argv) > 1 else "pcon"), end="")
