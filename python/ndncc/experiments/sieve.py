"""Seed 004: ndnSieve — an SDN controller, routers and consumers splitting the work (mild
congestion → the controller moves traffic; severe congestion → routers mark and consumers slow
down), in the paper's three scenarios (Fig. 3): the dumbbell, multipath scenario 1 and
multipath scenario 2 (three staggered consumers; topology inferred, `docs/schemes/sieve.md`).

Every link's queue holds ``QUEUE`` (1 000 packets; the paper's Table 3 was an image): the
capacity with which the paper's zero loss holds for PCON and ndnSieve (``docs/schemes/sieve.md``,
"Queue capacity"). Schemes run in each scenario:

* ``ndnSieve`` — the consumer as the paper prints it (cwnd + 1 per unmarked Data), with the
  routers' th2 at the spec's 0.3 and at 0.7. On the 1 000-packet queues the first mark waits
  for th2 · Q = 300 or 700 queued packets, about 4 or 10 bandwidth-delay products of the
  10 Mbps, ≈ 60 ms paths: both keep the link busy through a mark episode, and 0.7 lets the
  queue grow further first — the +1/window consumers reach neither threshold in the dumbbell
  and multipath 1 (the two th2 runs are the same), the multiplicative growers overflow the
  queue with 0.7 in every scenario (``docs/schemes/sieve.md``, "th2 on 1 000-packet queues").
  0.7 was chosen when the queues held 100 packets, where its 70 held one bandwidth-delay
  product and 0.3's 30 did not;
* ``ndnSieve +1/window`` — the same with cwnd + 1 per window of Data (our option), and once
  more with the controller's ``hold`` (our anti-flap option) at 2 s;
* ``ndnSieve per-Data start`` — +1 per window only after the first marked Data, +1 per Data
  (as printed) before it (``start_per_data``, our option): the paper's timeline (congestion
  and R1's switch at ≈ 1 s) needs a start faster than +1 per round trip from cwnd = 1; once
  more with the controller driven by congestion events only (routers signal only when β rises
  above th1, ``signal_changes = false``; metrics pushed only on a mild signal,
  ``refresh = false``): our reading of "when β > th1 the router sends a signal" and of the
  periodic refresh as that of the GIC, under which R1 moves once in multipath 1;
* ``PCON`` — when the registry has PCON's router part and consumer (the ``pcon`` branch):
  the same scenario with PCON's marking and forwarding strategy on every node and ndnSIM's
  ConsumerPcon (Interest lifetime 2 s), as ``scenarios/pcon/`` runs it (NFD's marking
  threshold, 64 KiB). A scheme missing from the registry is skipped, and the report says so;
* ``PCON, 20 KB threshold`` — the same with the marking threshold a 2022 ndnSIM-2.9 PCON port
  sets (20 480 B): seed 004 does not print its PCON settings, and describes PCON's throughput
  as jittering with every multiplicative decrease, which the 64 KiB threshold (about one
  bandwidth-delay product of these paths) does not produce (``docs/schemes/sieve.md``).

``sieve_startup`` adds the dumbbell once per candidate reading of the start-up with a 1 ms
trace, on 100-packet queues unless it names 1 000: why the per-Data start loses Data (reported
rows, ``docs/schemes/sieve.md``).

* ``CoopCon (our reconstruction)``, ``FleCom (our reconstruction)`` — the paper's other
  baselines as we reconstruct them from their abstracts and the paper's sentences (no
  algorithm, no code: ``sieve_recon_rows``, ``docs/schemes/coopcon-recon.md``,
  ``docs/schemes/flecom-recon.md``), when the registry has them.
"""

from __future__ import annotations

from pathlib import Path

from ..sweep import Job, Outcome
from . import sieve_recon_rows
from .common import scenario_root

PAPER = "sieve"
TITLE = "ndnSieve: SDN-assisted hybrid congestion control (seed 004)"
SCENARIOS = {
    "dumbbell": "dumbbell.toml",
    "multipath 1": "multipath-1.toml",
    "multipath 2": "multipath-2.toml",
}
CONSUMERS = {"dumbbell": ["c1", "c2"], "multipath 1": ["c1"], "multipath 2": ["c1", "c2", "c3"]}
DURATION_S = 10.0
QUICK_DURATION_S = 6.0
STEADY_FROM_S = 3.0  # s: after the slowest start-up (a +1/window ramp from cwnd = 1)
BIN_S = 0.1  # s, the trace bin
# the queue capacity Q of every link (seed 004's Table 3, an image; the scenario files' value):
# PCON (both baselines) and ndnSieve's +1-per-window consumers lose no Data in the three
# scenarios from 800 to 3 000 packets and lose some at 750 and below, so Q sits inside that
# range, as the paper's zero loss (Fig. 7, 12, 17) requires (docs/schemes/sieve.md, "Queue
# capacity": the measurements)
QUEUE = "1000p"
PCON_LIFETIME = "2s"  # ndnSIM ConsumerPcon's Interest lifetime (scenarios/pcon/)
# the `defaultCongestionThreshold` ("20 packets of 1024 B") of a 2022 ndnSIM-2.9 PCON port seen
# through code search (repository not pinned down: an alternative setting, not a source)
PCON_PORT_THRESHOLD = "20480B"
PCON_PORT = "PCON, 20 KB threshold"
HOLD = "2s"  # the controller's `hold` in the anti-flap variant [our option]
START_PER_DATA = "ndnSieve per-Data start, +1/window, th2 = 0.7"
EVENTS = START_PER_DATA + ", moves on rise signals only"
# the per-Data start with the spec's th2 and a long queue marking whatever the last window's β
QUEUE_ALONE = "ndnSieve per-Data start, +1/window, th2 = 0.3, queue alone"


def variants() -> dict[str, dict]:
    """The scheme variants: label -> overrides of the scenario (consumers added per scenario
    by :func:`overrides`)."""
    out: dict[str, dict] = {}
    for th2 in (0.3, 0.7):
        for per_window in (False, True):
            label = "ndnSieve" + (" +1/window" if per_window else "") + f", th2 = {th2}"
            out[label] = {"th2": th2, "per_window": per_window}
    # our anti-flap option: a move of the controller stays for HOLD before it is undone
    out[f"ndnSieve +1/window, th2 = 0.7, hold = {HOLD}"] = {
        "th2": 0.7,
        "per_window": True,
        "hold": HOLD,
    }
    # +1 per Data until the first mark, then +1 per window [our option]
    out[START_PER_DATA] = {"th2": 0.7, "per_window": True, "start_per_data": True}
    # ... with the controller moving traffic only on signals of β rising above th1 [our reading]
    out[EVENTS] = {**out[START_PER_DATA], "events": True}
    # ... with th2 = 0.3 and ε > th2 marking even when the last window's β ≤ th1 [our reading
    # of the quadrant Table 2's text leaves open]: the first mark comes before the overshoot
    out[QUEUE_ALONE] = {"th2": 0.3, "per_window": True, "start_per_data": True, "queue_alone": True}
    if pcon_parts() is not None:
        out["PCON"] = {"pcon": True}
        out[PCON_PORT] = {"pcon": True, "threshold": PCON_PORT_THRESHOLD}
    out.update(sieve_recon_rows.variants())  # CoopCon and FleCom as we reconstruct them
    return out


def pcon_labels() -> list[str]:
    """The PCON baselines run (none without PCON in the registry)."""
    return [v for v in variants() if v.startswith("PCON")]


def pcon_parts() -> tuple[str, str, str | None] | None:
    """(router part, consumer controller, strategy or None) of PCON if the registry has them."""
    from ..scenario import schemes

    router = next((n for n in schemes.routers() if n.startswith("pcon")), None)
    consumer = next((n for n in schemes.controllers() if n.startswith("pcon")), None)
    if router is None or consumer is None:
        return None
    names = getattr(schemes, "strategy_names", lambda: ())()
    strategy = next((s for s in names if "pcon" in s), None)
    return router, consumer, strategy


def missing_notes() -> list[str]:
    """Why some columns are absent."""
    notes = []
    if pcon_parts() is None:
        notes.append(
            "PCON: not run — the scheme registry of this build has no PCON router part and "
            "consumer (they come with the `pcon` branch); its columns appear once it is merged."
        )
    return notes + sieve_recon_rows.notes()


def overrides(scenario: str, variant: dict, quick: bool) -> dict:
    ov: dict = {
        "scenario.duration": f"{QUICK_DURATION_S if quick else DURATION_S:g}s",
        "defaults.link.queue": QUEUE,
    }
    apps = CONSUMERS[scenario]
    if variant.get("recon"):
        return {**ov, **sieve_recon_rows.overrides(apps, variant)}
    if variant.get("pcon"):
        router, consumer, strategy = pcon_parts()
        ov["defaults.node.schemes.sieve"] = None
        ov["sdn"] = None
        ov[f"defaults.node.schemes.{router}"] = (
            {"threshold": variant["threshold"]} if "threshold" in variant else {}
        )
        if strategy:
            ov["defaults.node.strategy"] = strategy
        for a in apps:
            ov[f"apps[{a}].controller"] = consumer
            ov[f"apps[{a}].lifetime"] = PCON_LIFETIME
        return ov
    ov["defaults.node.schemes.sieve"] = {"th2": variant["th2"]}
    ov["sdn.sieve.th2"] = variant["th2"]
    if variant.get("queue_alone"):
        ov["defaults.node.schemes.sieve"]["queue_alone"] = True
    if variant.get("events"):
        ov["defaults.node.schemes.sieve"]["signal_changes"] = False
        ov["sdn.sieve.refresh"] = False
    if "hold" in variant:
        ov["sdn.sieve.hold"] = variant["hold"]
    for a in apps:
        ov[f"apps[{a}].per_window"] = variant["per_window"]
        if variant.get("start_per_data"):
            ov[f"apps[{a}].start_per_data"] = True
    return ov


def key(scenario: str, label: str) -> str:
    return f"{scenario}/{label}"


def jobs(quick: bool) -> list[Job]:
    from .sieve_startup import jobs as startup_jobs

    root = scenario_root() / PAPER
    return startup_jobs(quick) + [
        Job(
            key(s, label),
            str(root / file),
            overrides(s, v, quick),
            keep=("series", "face_series", "delays"),
        )
        for s, file in SCENARIOS.items()
        for label, v in variants().items()
    ]


# ---- metrics -------------------------------------------------------------------------------


def duration(o: Outcome) -> float:
    return float(o.summary["sim_time_s"])


def total_series(o: Outcome):
    """Total Data throughput of the consumers per trace bin (Mbit/s), indexed by bin end (s)."""
    s = o.frames["series"]
    return s.groupby("time_s")["data_bytes"].sum() * 8 / BIN_S / 1e6


def total_throughput(o: Outcome, since: float = 0.0) -> float:
    """Mean total Data throughput (Mbit/s) over the bins ending after `since`."""
    t = total_series(o)
    t = t[t.index > since + 1e-9]
    return float(t.mean())


def throughput_std(o: Outcome) -> float:
    """Standard deviation of the total throughput over 100 ms bins after the start-up."""
    t = total_series(o)
    return float(t[t.index > STEADY_FROM_S + 1e-9].std())


def consumer_throughput(o: Outcome) -> dict[str, float]:
    return {a["name"]: float(a["throughput_mbps"]) for a in o.summary["apps"]}


def jain_index(o: Outcome) -> float:
    return float(o.summary["fairness_jain"])


def delays_ms(o: Outcome) -> dict[str, list[float]]:
    """Full delays (first Interest → Data) per consumer, ms."""
    d = o.frames["delays"]
    return {
        name: (g["full_delay_s"] * 1e3).tolist() for name, g in d.groupby("app_name", sort=True)
    }


def loss_series(o: Outcome):
    """Bytes overflowing every queue per trace bin, as Mbit/s."""
    f = o.frames["face_series"]
    return f.groupby("time_s")["drop_bytes"].sum() * 8 / BIN_S / 1e6


def loss_rate(o: Outcome) -> float:
    """Mean overflow (Mbit/s) over the run: the paper's loss rate."""
    return float(loss_series(o).mean())


def drops(o: Outcome) -> int:
    return int(sum(f["drops"] for f in o.summary["faces"]))


def timeouts(o: Outcome) -> int:
    return int(sum(a["timeouts"] for a in o.summary["apps"]))


def r1_faces(o: Outcome):
    """R1's Data received from R2 and from R3 per bin (Mbit/s): columns "R2", "R3"."""
    f = o.frames["face_series"]
    f = f[(f["node_name"] == "R1") & f["peer_name"].isin(["R2", "R3"])]
    p = f.pivot_table(index="time_s", columns="peer_name", values="in_data_bytes", aggfunc="sum")
    return p.reindex(columns=["R2", "R3"]).fillna(0.0) * 8 / BIN_S / 1e6


def r1_face_ids(o: Outcome) -> dict[str, int]:
    f = o.frames["face_series"]
    f = f[(f["node_name"] == "R1") & f["peer_name"].isin(["R2", "R3"])]
    return {p: int(g["face"].iloc[0]) for p, g in f.groupby("peer_name")}


def first_move(o: Outcome) -> float | None:
    """The end of the first bin in which R1 receives Data from R3 (s), None if never."""
    p = r1_faces(o)
    used = p.index[p["R3"] > 0]
    return float(used[0]) if len(used) else None


def switches(o: Outcome) -> int:
    """How many times R1's busier Data face (R2 / R3, per 100 ms bin) changes."""
    p = r1_faces(o)
    busy = p[(p["R2"] + p["R3"]) > 0]
    side = (busy["R3"] > busy["R2"]).astype(int)
    return int((side.diff().abs() > 0).sum())


def detour_start(o: Outcome) -> float | None:
    """The end of the first bin with Data on the R2 — R3 link (either way): a prefix moved to
    its two-hop detour (multipath 2), None if never."""
    f = o.frames["face_series"]
    f = f[f["node_name"].isin(["R2", "R3"]) & f["peer_name"].isin(["R2", "R3"])]
    used = f.loc[f["in_data"] > 0, "time_s"]
    return float(used.min()) if len(used) else None


def r3_share(o: Outcome, since: float) -> float:
    """Share of R1's Data that came through R3 after `since` (s)."""
    p = r1_faces(o)
    p = p[p.index > since + 1e-9]
    total = float((p["R2"] + p["R3"]).sum())
    return float(p["R3"].sum()) / total if total else float("nan")


def figures(res: dict, out: Path, quick: bool) -> list[Path]:
    from .sieve_plots import draw

    return draw(res, out)


def compare(res: dict, quick: bool):
    from .sieve_rows import rows
    from .sieve_startup import rows as startup_rows

    return rows(res, quick) + startup_rows(res) + sieve_recon_rows.rows(res, quick)


def report_sections(res: dict, quick: bool) -> list[tuple[str, str]]:
    from .sieve_rows import sections

    return sections(res, quick)
