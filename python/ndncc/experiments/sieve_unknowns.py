"""Seed 004's unknowns (the claim map, ``docs/unknowns.md``): Table 3 was an image (th1, th2,
β's measurement window, the queue capacity Q, the consumers' start), and Fig. 3c's link
delays are drawn, not printed.

Where an unknown applies: th1 and the window to every ndnSieve router (PCON's runs have none);
th2 to the variants that run the spec's th2 = 0.3 (the variants at 0.7 are our option and keep
it), routers and controller together; Q to every link of every run, PCON's too; the initial
window to ndnSieve's consumers; the start stagger and Fig. 3c's delays to multipath 2 only.
The map runs :func:`ndncc.experiments.sieve.jobs` without the start-up study
(``sieve_startup``): its rows are reported, none can fail.
"""

from __future__ import annotations

from pathlib import Path

from ..claims.unknowns import Constraint, Declaration, Unknown, initial_window, log_ms
from . import sieve

SPEC_TH2 = 0.3


def map_jobs(quick: bool):
    """The paper's runs without the start-up study (only reported rows)."""
    from ..sweep import Job

    root = sieve.scenario_root() / sieve.PAPER
    return [
        Job(
            sieve.key(s, label),
            str(root / file),
            sieve.overrides(s, v, quick),
            keep=("series", "face_series", "delays"),
        )
        for s, file in sieve.SCENARIOS.items()
        for label, v in sieve.variants().items()
    ]


def _is_sieve(job) -> bool:
    return job.overrides.get("defaults.node.schemes.sieve", {}) is not None


def _scenario(job) -> str:
    return next(s for s, f in sieve.SCENARIOS.items() if Path(job.scenario).name == f)


def _th2(job, value) -> dict:
    table = job.overrides.get("defaults.node.schemes.sieve")
    if not isinstance(table, dict) or table.get("th2") != SPEC_TH2:
        return {}
    return {"defaults.node.schemes.sieve.th2": value, "sdn.sieve.th2": value}


def _initial_window(job, value) -> dict:
    if not _is_sieve(job):
        return {}
    return {f"apps[{a}].initial_window": value for a in sieve.CONSUMERS[_scenario(job)]}


def _stagger(job, value) -> dict:
    if _scenario(job) != "multipath 2":
        return {}
    return {"apps[c2].start": f"{value:g}s", "apps[c3].start": f"{2 * value:g}s"}


def _m2(key: str, unit: str):
    def apply(job, value) -> dict:
        return {key: f"{value:g}{unit}"} if _scenario(job) == "multipath 2" else {}

    return apply


def _fig3c_delay(name: str, key: str, default: float, lo: float, note: str) -> Unknown:
    """A link delay of multipath 2 drawn in Fig. 3c (an image), up to 30 ms."""
    return log_ms(name, (key,), default, "image", lo, 30.0, note, _m2(key, "ms"))


def declaration() -> Declaration:
    sieve_only = "ndnSieve's routers only (PCON's runs have none)"
    return Declaration(
        sieve.PAPER,
        [
            Unknown(
                "th1",
                ("defaults.node.schemes.sieve.th1",),
                0.9,
                "image",
                lo=0.5,
                hi=0.99,
                note="Table 3 (an image); " + sieve_only,
            ),
            Unknown(
                "th2",
                ("defaults.node.schemes.sieve.th2", "sdn.sieve.th2"),
                SPEC_TH2,
                "image",
                lo=0.05,
                hi=0.9,
                note="Table 3 (an image); the variants run at the spec's 0.3 (those at 0.7 are "
                "our option and keep it)",
                apply=_th2,
            ),
            log_ms(
                "window",
                ("defaults.node.schemes.sieve.window",),
                100.0,
                "image",
                20.0,
                500.0,
                "β's and ε's measurement window (Table 3, an image); " + sieve_only,
            ),
            Unknown(
                "Q",
                ("defaults.link.queue",),
                int(sieve.QUEUE.removesuffix("p")),
                "image",
                lo=30,
                hi=3000,
                scale="log",
                unit="p",
                integer=True,
                note="the queue capacity of every link (Table 3, an image), every run's; ours "
                "(1 000) is inside the range, 800 to 3 000 measured, where PCON and ndnSieve's "
                "+1/window consumers lose nothing in the three scenarios (docs/schemes/sieve.md)",
            ),
            initial_window(
                "initial window",
                "apps[<consumer>].initial_window",
                32,
                "Interests",
                "ndnSieve's consumers (PCON's keep ndnSIM's)",
                _initial_window,
            ),
            Unknown(
                "start stagger",
                ("apps[c2].start", "apps[c3].start"),
                1.0,
                "image",
                lo=0.0,
                hi=3.0,
                unit="s",
                note="multipath 2: c2 starts at s, c3 at 2·s (ours: 1 s)",
                apply=_stagger,
            ),
            _fig3c_delay(
                "Fig. 3c R2–R3 delay",
                "links[5].delay",
                15.0,
                1.0,
                "multipath 2's detour link (drawn in Fig. 3c, not printed)",
            ),
            _fig3c_delay(
                "Fig. 3c link delay",
                "defaults.link.delay",
                10.0,
                2.0,
                "multipath 2's other links but the producers' 1 ms (Fig. 3c)",
            ),
        ],
        [
            Constraint(
                "zero loss for every scheme in every scenario (Fig. 7, 12, 17)",
                "seed 004 §6",
                tuple(
                    (e, "loss rate")
                    for e in (
                        "dumbbell (Fig. 3a)",
                        "multipath 1 (Fig. 3b)",
                        "multipath 2 (Fig. 3c)",
                    )
                ),
            ),
            Constraint("every link 10 Mbps, 10 ms in the dumbbell", "seed 004 Fig. 3a (text)"),
            Constraint("T_p, the report and polling period, is 0.5 s", "seed 004 §5"),
        ],
        notes="The start-up study (`sieve_startup`, reported rows only) is not run at each "
        "point. The PCON baselines share Q with ndnSieve; their own settings are not "
        "unknowns of this paper.",
        jobs=map_jobs,
        compare="ndncc.experiments.sieve_rows:rows",
    )
