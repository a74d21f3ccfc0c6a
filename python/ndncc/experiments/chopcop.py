"""Seed 001: CHoPCoP (REM + FISP + RIC over chunks) and its baselines ICP, HR-ICP and ICTP.

Every experiment of §V on the paper's topologies (`scenarios/chopcop/`): the baseline (Fig. 4,
5), FISP against a non-cooperative receiver (Table I, Fig. 6), multi-source timeouts (Table II)
and throughput (Fig. 8), fairness (Fig. 10), FISP against HR-ICP's quota-based HbH (Fig. 11)
and the 7-node topology (Table III). The rows are in `chopcop_rows.py`, the figures in
`chopcop_plots.py`; the choices behind every run are in `docs/schemes/chopcop.md`.

Throughput everywhere is the paper's "average data delivery rate" of *complete* chunks: a chunk
counts when its 32nd segment arrives (32 × 1 024 B), so a chunk that lost a segment delivers
nothing — the reading of Table I's delivery ratio (see `docs/schemes/chopcop.md`).
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

import numpy as np

from ..sweep import Job, Outcome
from .common import scenario_root

PAPER = "chopcop"
TITLE = "CHoPCoP and its baselines ICP, HR-ICP, ICTP (seed 001)"

SCHEMES = ["chopcop", "ictp", "icp", "hr-icp"]
LABEL = {"chopcop": "CHoPCoP", "ictp": "ICTP", "icp": "ICP", "hr-icp": "HR-ICP"}
#: HR-ICP's router part: the quota shaper, its chunk Interests owing 32 × 1 KB
HBH = {"hbh": {"segment_size": "1024B"}}
#: ICP's fixed timer τ: part 1's documented default, below the ≈ 410 ms loaded round trip of
#: the baseline (110 ms + a full 1 500 KB queue), as seed 001 says of ICP's setting
ICP_TAU = "300ms"
#: ICTP's initial ssthresh (in chunks): 0 = RFC 5681's "arbitrarily high"
ICTP_SSTHRESH = 0
#: ICP variants reported beside it on the baseline and multi-source runs (full tier): its timer
#: from the consumer's single RTT estimator (seed 001: ICP relies on "a single round trip time
#: (RTT) estimator"), and ICP as its abstract has it (no slow start, a decrease per timeout)
ICP_VARIANTS = {
    "τ = RTO = SRTT + 4·RTTVAR": {"tau_rto": True},
    "τ = 2·SRTT": {"tau_srtt_factor": 2},
    "no slow start, a decrease per timeout": {"ssthresh": 0, "one_decrease_per_tau": False},
}
#: ICP's fixed timer τ swept on the baseline and multi-source runs (full tier, ms); ICP_TAU is
#: the default run itself. From below the unloaded round trips (≈ 117 ms via the baseline's A,
#: ≈ 37 / 117 ms via the multi-source B / A) to above the loaded one (≈ 410 ms)
ICP_TAUS_MS = [100, 120, 150, 200, 250, 300, 350, 400, 500]
#: A–C delays (ms) beside the scenario's 50 ms for ICTP on the multi-source topology (full tier):
#: Fig. 7's link parameters are an image, and how deep chunks from B overtake A's (the delay
#: difference × the chunk rate) decides how often ICTP's fast retransmit fires
ICTP_AC_DELAYS_MS = [30, 20]
#: ICP's unit of request, three readings (seed 001 runs every scheme over 32 KB chunks of 32
#: 1 KB segments; ICP's own unit is a packet, its window counts packets): name → the receivers'
#: overrides. "chunk": one Interest per chunk, W in chunks (the default); "segment Interests":
#: one Interest per 1 KB Data, W in them (320 000 of them for the 320 MB file); "segment
#: window": chunk Interests, W in 1 KB segments (W / 32 chunks in flight, +1 segment per RTT)
ICP_UNITS = {
    "chunk": {},
    "segment Interests": {"chunk_segments": 1, "max_seq": 320_000},
    "segment window": {"window_segments": 32},
}
#: ICP's τ (ms) beside each unit on the 7-node topology (full tier): the default and one near
#: the paths' unloaded round trips (≈ 100 ms to F)
ICP_UNIT_TAUS_MS = [300, 100]
CIRS = [140, 160, 200]  # Table I, chunk Interests/s
#: the non-cooperative receiver's Interest lifetime: long enough that FISP's delayed Interests
#: are never discarded (the seed's Click receiver has no lifetime we know of)
CIR_LIFETIME = "60s"
DELTAS = [2, 6]
E_RATES = [40, 60, 80, 100, 120, 140, 160, 180]  # Fig. 11, E's chunk Interests/s
E_RATES_QUICK = [40, 100, 160, 180]
D_RATE = 20
#: Fig. 11's router parts: FISP, HR-ICP's quota HbH (the seed's), and its fair-rate variant
SHAPERS = ("fisp", "hbh", "hbh-rate")


def dur(quick: bool) -> dict[str, float]:
    """Run lengths (s) per experiment: full and quick tiers."""
    if quick:
        return dict(
            baseline=15, cir_send=40, cir_tail=16, multi=12, fair_e=8, fair=30, hbh=10, seven=12
        )
    return dict(
        baseline=40, cir_send=0, cir_tail=20, multi=30, fair_e=20, fair=40, hbh=20, seven=30
    )


def scheme_overrides(scheme: str, apps: list[str]) -> dict:
    """Turns a CHoPCoP scenario into one of the baselines: the receivers' controller and the
    routers' module (CHoPCoP: REM + FISP; ICP and ICTP: none; HR-ICP: HbH's quota shaper)."""
    if scheme == "chopcop":
        return {}
    ov: dict = {"defaults.node.schemes": HBH if scheme == "hr-icp" else {}}
    for a in apps:
        if scheme == "ictp":
            ov[f"apps[{a}].controller"] = "ictp"
            ov[f"apps[{a}].initial_ssthresh"] = ICTP_SSTHRESH
        else:
            ov[f"apps[{a}].controller"] = "icp"
            ov[f"apps[{a}].tau"] = ICP_TAU
    return ov


def constant_rate(app: str, rate: float, chunks: int | None = None) -> dict:
    """A non-cooperative receiver: `rate` chunk Interests/s, deaf to marks, no re-asks."""
    ov = {
        f"apps[{app}].controller": "constant-rate",
        f"apps[{app}].rate": rate,
        f"apps[{app}].lifetime": CIR_LIFETIME,
    }
    if chunks is not None:
        ov[f"apps[{app}].max_seq"] = chunks
    return ov


KEEP = ("series", "face_series", "delays")


def jobs(quick: bool) -> list[Job]:
    root = scenario_root() / PAPER
    d = dur(quick)
    base, multi = str(root / "baseline.toml"), str(root / "multi-source.toml")
    fair, seven = str(root / "fairness.toml"), str(root / "seven-node.toml")
    out = []
    for s in SCHEMES:
        ov = {"scenario.duration": f"{d['baseline']}s", **scheme_overrides(s, ["receiver"])}
        out.append(Job(f"baseline/{s}", base, ov, keep=KEEP))
    if not quick:
        for tau in ICP_TAUS_MS:
            for topo, path, run in (
                ("baseline", base, "baseline"),
                ("multi-source", multi, "multi"),
            ):
                if f"{tau}ms" == ICP_TAU:
                    continue  # the default run
                ov = {"scenario.duration": f"{d[run]}s", **scheme_overrides("icp", ["receiver"])}
                ov["apps[receiver].tau"] = f"{tau}ms"
                out.append(Job(icp_tau_key(topo, tau), path, ov, keep=("delays",)))
        for name, keys in ICP_VARIANTS.items():
            for topo, path, run in (
                ("baseline", base, "baseline"),
                ("multi-source", multi, "multi"),
            ):
                ov = {"scenario.duration": f"{d[run]}s", **scheme_overrides("icp", ["receiver"])}
                ov.update({f"apps[receiver].{k}": v for k, v in keys.items()})
                out.append(Job(icp_variant_key(topo, name), path, ov, keep=("delays",)))
    for cir in CIRS:
        for fisp in (True, False):
            chunks, send = cir_chunks(cir, quick)
            ov = {
                "scenario.duration": f"{send + d['cir_tail']:g}s",
                "defaults.node.schemes.chopcop.fisp": fisp,
                **constant_rate("receiver", cir, chunks),
            }
            out.append(Job(cir_key(cir, fisp), base, ov, keep=KEEP))
    for delta in DELTAS:
        ov = {"scenario.duration": "5s", "apps[receiver].max_seq": 100}
        ov["apps[receiver].delta"] = delta
        out.append(Job(delta_key(delta), multi, ov, keep=KEEP))
        if not quick:  # R̄TT also sampled from re-asked chunks (RIC's sample_reasked)
            o2 = {**ov, "apps[receiver].sample_reasked": True}
            out.append(Job(delta_key(delta, reasked=True), multi, o2, keep=("delays",)))
        # a timeout's halving leaves slow start on below ssthresh (RIC's timeout_slow_start)
        o2 = {**ov, "apps[receiver].timeout_slow_start": True}
        out.append(Job(delta_key(delta, resume=True), multi, o2, keep=("delays",)))
    for s in SCHEMES:
        ov = {"scenario.duration": f"{d['multi']}s", **scheme_overrides(s, ["receiver"])}
        out.append(Job(f"multi-source/{s}", multi, ov, keep=KEEP))
    if not quick:
        for delay in ICTP_AC_DELAYS_MS:
            ov = {"scenario.duration": f"{d['multi']}s", **scheme_overrides("ictp", ["receiver"])}
            ov["links[0].delay"] = f"{delay}ms"  # A–C, the scenario's first link
            out.append(Job(ictp_delay_key(delay), multi, ov, keep=("delays", "series")))
    ov = {"scenario.duration": f"{d['fair']}s", "apps[e].start": f"{d['fair_e']}s"}
    out.append(Job("fairness", fair, ov, keep=KEEP))
    for e in E_RATES_QUICK if quick else E_RATES:
        for shaper in SHAPERS:
            ov = {
                "scenario.duration": f"{d['hbh']}s",
                "apps[e].start": "0s",
                **constant_rate("d", D_RATE),
                **constant_rate("e", e),
            }
            if shaper == "hbh":  # FISP: the scenario's CHoPCoP routers
                ov["defaults.node.schemes"] = HBH
            elif shaper == "hbh-rate":  # HR-ICP's rate-based HbH (an option; not the seed's)
                ov["defaults.node.schemes"] = {"hbh": {**HBH["hbh"], "fair_rate": True}}
            out.append(Job(hbh_key(e, shaper), fair, ov, keep=("delays", "face_series")))
    for s in SCHEMES:
        ov = {"scenario.duration": f"{d['seven']}s", **scheme_overrides(s, ["f", "g"])}
        out.append(Job(f"seven-node/{s}", seven, ov, keep=KEEP))
    if not quick:  # ICP's readings of its unit on the 7-node topology (Table III's gap)
        for unit, keys in ICP_UNITS.items():
            for tau in ICP_UNIT_TAUS_MS:
                k = icp_unit_key(unit, tau)
                if k == "seven-node/icp":
                    continue  # the default run
                ov = {"scenario.duration": f"{d['seven']}s", **scheme_overrides("icp", ["f", "g"])}
                for a in ("f", "g"):
                    ov[f"apps[{a}].tau"] = f"{tau}ms"
                    ov.update({f"apps[{a}].{key}": v for key, v in keys.items()})
                out.append(Job(k, seven, ov, keep=("delays",)))
    return out


def icp_unit_key(unit: str, tau_ms: int) -> str:
    """The 7-node run of ICP under `unit` (a key of ICP_UNITS) with τ = `tau_ms` (chunks at the
    default τ: the scheme's run)."""
    if unit == "chunk" and f"{tau_ms}ms" == ICP_TAU:
        return "seven-node/icp"
    return f"seven-node/icp {unit} tau={tau_ms}ms"


def cir_chunks(cir: int, quick: bool) -> tuple[int, float]:
    """Chunks the non-cooperative receiver asks for and how long that takes (s): the paper's
    whole 320 MB file (10 000 chunks), or `cir_send` seconds of it in the quick tier."""
    if quick:
        send = dur(quick)["cir_send"]
        return cir * send, float(send)
    return 10_000, 10_000 / cir


def cir_key(cir: int, fisp: bool) -> str:
    return f"table-1/CIR {cir} {'with' if fisp else 'without'} FISP"


def delta_key(delta: int, reasked: bool = False, resume: bool = False) -> str:
    """Table II's run at `delta`; `reasked`: with RIC's sample_reasked, `resume`: with its
    timeout_slow_start."""
    return (
        f"table-2/delta {delta}"
        + (" sample_reasked" if reasked else "")
        + (" timeout_slow_start" if resume else "")
    )


def ictp_delay_key(delay_ms: int) -> str:
    return f"multi-source/ictp A-C {delay_ms}ms"


def icp_tau_key(topo: str, tau_ms: int) -> str:
    """The run of ICP with a fixed τ of `tau_ms` on `topo` (the default τ: the scheme's run)."""
    if f"{tau_ms}ms" == ICP_TAU:
        return f"{topo}/icp"
    return f"{topo}/icp tau={tau_ms}ms"


def icp_variant_key(topo: str, name: str) -> str:
    return f"{topo}/icp {name}"


def hbh_key(e: int, shaper: str) -> str:
    return f"fig-11/{shaper} E {e}"


# ---- metrics -------------------------------------------------------------------------------


#: the Data segment: 1 KB (1 024 B, the paper's packets); a chunk holds 32 of them
SEGMENT_BITS = 1024 * 8


def completion_bits(o: Outcome, app: str) -> int:
    """The data one completion of `app` delivers (bits): a chunk of 32 segments, or what the
    run's `chunk_segments` says (1: one segment per Interest, ICP's "segment Interests")."""
    return int(o.overrides.get(f"apps[{app}].chunk_segments", 32)) * SEGMENT_BITS


def completions(o: Outcome, app: str) -> np.ndarray:
    """Instants (s) at which `app` completed a chunk."""
    d = o.frames["delays"]
    return np.sort(d.loc[d["app_name"] == app, "time_s"].to_numpy())


def goodput(o: Outcome, app: str, lo: float, hi: float) -> float:
    """Complete chunks (segments, when the run asks one per Interest) delivered to `app` in
    (lo, hi], in Mbit/s."""
    t = completions(o, app)
    n = int(((t > lo) & (t <= hi + 1e-9)).sum())
    return n * completion_bits(o, app) / (hi - lo) / 1e6


def transfer_goodput(o: Outcome, app: str, asking: float = 0.0) -> float:
    """Complete chunks over the transfer, in Mbit/s: from the start to the last completion, or
    to the end of the `asking` seconds the receiver spent sending if that is later (a
    transfer that ends before the run does)."""
    t = completions(o, app)
    return len(t) * completion_bits(o, app) / max(t[-1], asking) / 1e6 if len(t) else 0.0


def app_summary(o: Outcome, app: str) -> dict:
    return next(a for a in o.summary["apps"] if a["name"] == app)


def complete_share(o: Outcome, app: str) -> float:
    """Table I's delivery ratio: complete chunks / chunks asked. A chunk still missing segments
    at the end counts as not delivered (without FISP most of them never complete); the
    summary's ``delivery_ratio`` leaves such chunks out as outcomes not yet known."""
    a = app_summary(o, app)
    return a["completed"] / a["requested"] if a["requested"] else float("nan")


def face_summary(o: Outcome, node: str, peer: str) -> dict:
    """The summary of `node`'s face towards `peer` (the first, if several)."""
    return next(f for f in o.summary["faces"] if f["node"] == node and f.get("peer") == peer)


def window(o: Outcome, app: str, lo: float, hi: float) -> tuple[float, float]:
    """Mean and standard deviation of `app`'s window (chunks) over the bins in (lo, hi]."""
    s = o.frames["series"]
    w = s.loc[(s["app_name"] == app) & (s["time_s"] > lo) & (s["time_s"] <= hi + 1e-9), "window"]
    w = w.dropna()
    return (float(w.mean()), float(w.std())) if len(w) else (float("nan"), float("nan"))


def queue_kb(o: Outcome, node: str, peer: str, lo: float, hi: float) -> tuple[float, float]:
    """Mean and sd of `node`'s transmit queue towards `peer` (KB, sampled every bin)."""
    f = o.frames["face_series"]
    f = f[(f["node_name"] == node) & (f["peer_name"] == peer)]
    q = f.loc[(f["time_s"] > lo) & (f["time_s"] <= hi + 1e-9), "queue_bytes"] / 1000
    return float(q.mean()), float(q.std())


#: B's queue towards C in baseline.toml (seed 001 §V-B: 40 Mbit/s × 300 ms = 1 500 KB): FISP's C
BC_QUEUE_KB = 1500.0
#: FISP's γ, the routers' key (the claim map's unknown "FISP γ" sets it)
GAMMA_KEY = "defaults.node.schemes.chopcop.gamma"


def fisp_gamma(o: Outcome, node: str) -> float:
    """FISP's γ on `node` in this run: the run's override (the node's, then the defaults'), else
    its scenario file's, else the router part's default (`ndncc schemes chopcop`)."""
    keys = (f"nodes.{node}.schemes.chopcop.gamma", GAMMA_KEY)
    for k in keys:
        if k in o.overrides:
            return float(o.overrides[k])
    path = o.summary.get("source")
    if path and Path(path).is_file():
        spec = scenario_toml(str(path))
        for tables in (
            ("nodes", node, "schemes", "chopcop"),
            ("defaults", "node", "schemes", "chopcop"),
        ):
            t = spec
            for name in tables:
                t = t.get(name, {}) if isinstance(t, dict) else {}
            if isinstance(t, dict) and "gamma" in t:
                return float(t["gamma"])
    return float(router_default("chopcop", "gamma"))


@functools.cache
def scenario_toml(path: str) -> dict:
    """A scenario file's TOML as written (read once per process)."""
    with open(path, "rb") as f:
        return tomllib.load(f)


@functools.cache
def router_default(scheme: str, param: str):
    """The default of a router part's parameter, from the registry (`ndncc schemes`)."""
    from ..scenario.schemes import schema

    entry = next(e for e in schema()["routers"] if e["name"] == scheme)
    return next(p["default"] for p in entry["params"] if p["name"] == param)


def fisp_q_kb(o: Outcome, node: str, peer: str, lo: float, hi: float) -> float:
    """Mean of FISP's Q = q_d + γ·q_i (γ: the run's, `fisp_gamma`) on `node`'s interface
    towards `peer` (KB)."""
    f = o.frames["face_series"]
    f = f[(f["node_name"] == node) & (f["peer_name"] == peer)]
    f = f[(f["time_s"] > lo) & (f["time_s"] <= hi + 1e-9)]
    gamma = fisp_gamma(o, node)
    return float((f["queue_bytes"] + gamma * f["scheme_fisp_owed"].fillna(0)).mean() / 1000)


def chunks_before_overflow(
    queue: dict[str, int],
    wire_bytes: float,
    rate_bps: float,
    upstream_bps: float,
    cir: float,
    segments: int = 32,
) -> float:
    """Table I without FISP above the link: the chunks B's drop-tail queue takes whole before
    it first overflows, when a periodic receiver asks `cir` chunks/s, each chunk's `segments`
    Data (`wire_bytes` each) reach B back to back on the `upstream_bps` link and leave on the
    `rate_bps` one. Between two chunks the link drains r/CIR segments (r = rate / (8 × wire)),
    so the queue's level after each chunk grows by e = segments − r/CIR; while a chunk arrives
    the link drains only a share rate/upstream of it, so its burst stands b = segments × (1 −
    rate/upstream) above that level; the first segment is lost when level + b passes the
    queue's N segments (`queue`: ``{"bytes": …}`` or ``{"packets": …}``): after (N − b)/e
    chunks. From then on each period drains fewer than `segments` and, arrivals being
    periodic, every chunk loses its last segments: these are all the complete chunks (inf when
    the link drains a chunk per period, e ≤ 0). Valid while the upstream link is faster than
    the chunks asked (it queues nothing)."""
    n = queue["packets"] if "packets" in queue else queue["bytes"] / wire_bytes
    drained = rate_bps / (8 * wire_bytes) / cir
    e = segments - drained
    b = segments * (1 - rate_bps / upstream_bps)
    return max(0.0, (n - b) / e) if e > 0 else float("inf")


def link_setting(o: Outcome, index: int, *keys: str):
    """A link's setting in this run: for the first of `keys` the run or its scenario file sets
    (``"queue_ab", "queue"``: a direction's own queue before the link's), the run's override
    (``links[i].key``), else its scenario file's (the baseline's when the outcome does not name
    its file)."""
    path = o.summary.get("source") or str(scenario_root() / PAPER / "baseline.toml")
    link = scenario_toml(str(path))["links"][index]
    for key in keys:
        k = f"links[{index}].{key}"
        if k in o.overrides:
            return o.overrides[k]
        if key in link:
            return link[key]
    raise KeyError(f"links[{index}] sets none of {keys}")


def data_wire_bytes(o: Outcome, node: str, peer: str) -> float:
    """The mean wire size of the Data `node` sent towards `peer` in this run (B)."""
    f = face_summary(o, node, peer)
    return f["out_data_bytes"] / f["out_data"] if f["out_data"] else float("nan")


def run_chunks_before_overflow(o: Outcome, cir: float) -> tuple[float, dict]:
    """`chunks_before_overflow` with this run's settings (baseline.toml: links[0] is A–B,
    links[1] B–C, B→C its first direction; the Data's wire size as B sent them to C), and
    those settings."""
    from ..units import parse_queue, parse_rate

    s = dict(
        queue=parse_queue(link_setting(o, 1, "queue_ab", "queue")),  # B→C
        wire_bytes=data_wire_bytes(o, "B", "C"),
        rate_bps=parse_rate(link_setting(o, 1, "bandwidth")),
        upstream_bps=parse_rate(link_setting(o, 0, "bandwidth")),
        cir=cir,
    )
    return chunks_before_overflow(**s), s


def drops(o: Outcome, node: str, peer: str) -> int:
    return sum(f["drops"] for f in o.summary["faces"] if f["node"] == node and f["peer"] == peer)


# ---- comparison, figures, report -----------------------------------------------------------


def compare(res: dict[str, Outcome], quick: bool) -> list:
    from .chopcop_rows import rows

    return rows(res, quick)


def figures(res: dict[str, Outcome], out: Path, quick: bool) -> list[Path]:
    from .chopcop_plots import figures as draw

    return draw(res, out, quick)


def report_sections(res: dict[str, Outcome], quick: bool) -> list[tuple[str, str]]:
    from .chopcop_rows import report_sections as sections

    return sections(res, quick)
