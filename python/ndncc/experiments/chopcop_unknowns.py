"""Seed 001's unknowns (the claim map, ``docs/unknowns.md``): the timer τ the authors ran ICP
and HR-ICP with (not printed), ICP's unit of request over the paper's chunks (ambiguous),
FISP's γ (not printed), Fig. 7's, Fig. 9's and Fig. 12's link delays (images), the size of the
Interest-direction queues (§IV's "100KB" Interest queue, per interface or per flow not said),
RIC's initial window (not printed), the Data's wire bytes beyond their 1 KB payload and the
timing jitter of the constant-rate receivers (not printed).

Where an unknown applies: each τ to the runs of its scheme that use the default τ (the τ sweep
and ICP's variants keep theirs); Fig. 7's delays to the multi-source runs (the ICTP runs at
other A–C delays keep theirs); Fig. 9's to the fairness topology's access links (the fairness
and Fig. 11 runs); the Interest-direction queue, as a share ρ of the link's own queue, to every
link of every run; RIC's initial window to every receiver running CHoPCoP's controller; γ to
every run whose routers run CHoPCoP's part; ICP's unit to the ICP and HR-ICP receivers at the
default τ (the 7-node unit runs keep theirs); Fig. 12's A–C and B–C delays to the 7-node runs;
the Data wire overhead to every run; the jitter to every constant-rate receiver (Table I's and
Fig. 11's).
"""

from __future__ import annotations

from pathlib import Path

from ..claims.unknowns import Constraint, Declaration, Unknown, initial_window, log_ms
from ..units import parse_size
from . import chopcop

#: the Data's wire bytes beyond the payload (`[packets] data_overhead`)
DATA_OVERHEAD_KEY = "packets.data_overhead"
TOPOLOGIES = ("baseline.toml", "multi-source.toml", "fairness.toml", "seven-node.toml")


def _file(job) -> str:
    return Path(job.scenario).name


def _apps_with(job, controller: str) -> list[str]:
    """The apps of the job whose controller (the job's override, else the file's) is this."""
    out = []
    for name, ctl in _file_apps(job.scenario).items():
        if job.overrides.get(f"apps[{name}].controller", ctl) == controller:
            out.append(name)
    return out


def _file_apps(path: str) -> dict[str, str | None]:
    return {a["name"]: a.get("controller") for a in chopcop.scenario_toml(path).get("apps", [])}


def _tau(hbh: bool):
    def apply(job, value) -> dict:
        schemes = job.overrides.get("defaults.node.schemes")
        if (isinstance(schemes, dict) and "hbh" in schemes) != hbh:
            return {}
        out = {}
        for a in _apps_with(job, "icp"):
            if job.overrides.get(f"apps[{a}].tau") == chopcop.ICP_TAU:
                out[f"apps[{a}].tau"] = f"{value:g}ms"
        return out

    return apply


def _fig9(job, value) -> dict:
    if _file(job) != "fairness.toml":
        return {}
    return {"links[2].delay": f"{value:g}ms", "links[3].delay": f"{value:g}ms"}


def _interest_queue(job, value) -> dict:
    """queue_ba (the Interest direction: every link is [upstream, downstream]) = ρ × queue."""
    out = {}
    for i, link in enumerate(chopcop.scenario_toml(job.scenario).get("links", [])):
        size = parse_size(link["queue"])
        out[f"links[{i}].queue_ba"] = f"{max(1, round(value * size / 1000))}KB"
    return out if value != 1.0 else {}


def _link_delay(topology: str, index: int):
    """One link's delay on the runs of one topology file that keep the file's delay (a run
    that sets the link's delay keeps its own)."""

    def apply(job, value) -> dict:
        k = f"links[{index}].delay"
        if _file(job) != topology or k in job.overrides:
            return {}
        return {k: f"{value:g}ms"}

    return apply


def _gamma_default() -> float:
    """γ of the routers' part when no run sets it (`ndncc schemes chopcop`): our default."""
    return float(chopcop.router_default("chopcop", "gamma"))


def _gamma(job, value) -> dict:
    """FISP's γ on the routers of the runs that keep CHoPCoP's router part (the baselines
    replace the routers' schemes); our default leaves the key unset (the part's default)."""
    if "defaults.node.schemes" in job.overrides or value == _gamma_default():
        return {}
    return {chopcop.GAMMA_KEY: value}


def _icp_unit(job, value) -> dict:
    """ICP's unit (a key of chopcop.ICP_UNITS) on the ICP and HR-ICP receivers at the default τ
    that do not set a unit themselves (the 7-node unit runs keep theirs)."""
    out = {}
    for a in _apps_with(job, "icp"):
        own = job.overrides
        if own.get(f"apps[{a}].tau") != chopcop.ICP_TAU or any(
            f"apps[{a}].{k}" in own for u in chopcop.ICP_UNITS.values() for k in u
        ):
            continue
        out.update({f"apps[{a}].{k}": v for k, v in chopcop.ICP_UNITS[value].items()})
    return out


def _initial_window(job, value) -> dict:
    return {f"apps[{a}].initial_window": value for a in _apps_with(job, "chopcop")}


def _data_overhead(job, value) -> dict:
    """Every Data's wire bytes beyond its 1 KB payload, in every run (our default 0 leaves the
    key unset: the scenarios' own)."""
    return {DATA_OVERHEAD_KEY: f"{round(value)}B"} if value else {}


def _cir_jitter(job, value) -> dict:
    """The constant-rate receivers' sends each late by an exponential wait of mean `value` µs
    (an OS clock of 1 ns granularity, the schedule kept: the rate does not change); 0, our
    default, leaves them exactly periodic (as does a mean under half a nanosecond: times are
    whole nanoseconds)."""
    ns = round(value * 1000)
    if not ns:
        return {}
    out = {}
    for a in _apps_with(job, "constant-rate"):
        out[f"apps[{a}].clock"] = "os"
        out[f"apps[{a}].clock_granularity"] = "1ns"
        out[f"apps[{a}].clock_wait_mean"] = f"{ns}ns"
    return out


def _tau_unknown(name: str, hbh: bool, note: str) -> Unknown:
    """The timer τ of ICP's receivers (HR-ICP's if `hbh`), in the runs at the default τ."""
    return log_ms(
        name, ("apps[<receiver>].tau",), 300.0, "not printed", 100.0, 800.0, note, _tau(hbh)
    )


def declaration() -> Declaration:
    return Declaration(
        chopcop.PAPER,
        [
            _tau_unknown(
                "ICP τ",
                False,
                "ICP's fixed timer; the runs at the default τ (the τ sweep keeps its own)",
            ),
            _tau_unknown(
                "HR-ICP τ", True, "HR-ICP's receivers (ICP's timer under HbH's quota shaper)"
            ),
            log_ms(
                "Fig. 7 A–C delay",
                ("links[0].delay",),
                50.0,
                "image",
                10.0,
                100.0,
                "multi-source topology, the far source (the ICTP runs at 20 / 30 ms keep theirs)",
                _link_delay("multi-source.toml", 0),
            ),
            log_ms(
                "Fig. 7 B–C delay",
                ("links[1].delay",),
                10.0,
                "image",
                1.0,
                50.0,
                "multi-source topology, the near source",
                _link_delay("multi-source.toml", 1),
            ),
            log_ms(
                "Fig. 9 access delay",
                ("links[2].delay", "links[3].delay"),
                100.0,
                "image",
                20.0,
                150.0,
                "fairness topology: C–D and C–E (the fairness and Fig. 11 runs)",
                _fig9,
            ),
            Unknown(
                "FISP γ",
                (chopcop.GAMMA_KEY,),
                _gamma_default(),
                "not printed",
                lo=0.0,
                hi=1.0,
                note="FISP's weight of the Data owed upstream in Q = q_d + γ·q_i (§III-B: "
                '"a weight parameter", no value); [0, 1]: from q_d alone to every owed byte'
                " counted as queued. Ours ½: FISP idle on the baseline needs γ < 0.73 "
                "(docs/schemes/chopcop.md). Every run whose routers run CHoPCoP's part",
                apply=_gamma,
            ),
            Unknown(
                "ICP unit",
                ("apps[<receiver>].chunk_segments", "apps[<receiver>].window_segments"),
                "chunk",
                "ambiguous",
                levels=tuple(chopcop.ICP_UNITS),
                note="ICP's unit of request over seed 001's 32 KB chunks: one Interest per "
                "chunk, W in chunks (ours); one Interest per 1 KB segment; chunk Interests with "
                "W in segments. ICP and HR-ICP receivers at the default τ",
                apply=_icp_unit,
            ),
            log_ms(
                "Fig. 12 A–C delay",
                ("links[0].delay",),
                30.0,
                "image",
                5.0,
                100.0,
                "7-node topology (Table III): the far source A, on F's path and half of G's",
                _link_delay("seven-node.toml", 0),
            ),
            log_ms(
                "Fig. 12 B–C delay",
                ("links[1].delay",),
                5.0,
                "image",
                1.0,
                100.0,
                "7-node topology (Table III): the near source B, half of G's chunks",
                _link_delay("seven-node.toml", 1),
            ),
            Unknown(
                "Interest queue share ρ",
                ("links[*].queue_ba",),
                1.0,
                "ambiguous",
                lo=0.01,
                hi=1.0,
                scale="log",
                unit="",
                note="the Interest-direction queue of every link as a share of its Data-"
                "direction queue (ours: the same size, one transmit queue per face). §IV "
                'prints "For an Interest queue, its size is set to 100KB", without saying'
                " whether per interface or per flow (FISP's queues): 100 KB is ρ ≈ 0.067 on the"
                " 1 500 KB bottleneck, 0.013 on a 7 500 KB link",
                apply=_interest_queue,
            ),
            Unknown(
                "Data wire overhead",
                (DATA_OVERHEAD_KEY,),
                0,
                "not printed",
                lo=0,
                hi=100,
                unit="B",
                integer=True,
                note='bytes of every Data on the wire beyond its 1 KB payload (§IV: "a data'
                ' packet is 1KB in size"; its header — type, name, chunk ID, seq num, service ID'
                " — and the Ethernet header Click's link emulation may count are not sized)."
                " Table I without FISP at CIR 160 hangs on it (docs/schemes/chopcop.md). Every"
                " run",
                apply=_data_overhead,
            ),
            Unknown(
                "CIR receiver jitter",
                ("apps[<receiver>].clock_wait_mean",),
                0.0,
                "not printed",
                lo=0.0,
                hi=1000.0,
                unit="µs",
                suffix=False,
                note="the mean lateness of each Interest of the constant-rate (non-cooperative)"
                " receivers, exponential, the schedule kept (seed 001's Click CIR source: its"
                " timing is not described); 0 = exactly periodic. Table I without FISP at CIR"
                " 160 and 200 hangs on it (docs/schemes/chopcop.md). Table I's and Fig. 11's"
                " constant-rate receivers",
                apply=_cir_jitter,
            ),
            initial_window(
                "RIC initial window",
                "apps[<receiver>].initial_window",
                20,
                "chunks",
                "every receiver running CHoPCoP's RIC",
                _initial_window,
            ),
        ],
        [
            Constraint(
                "the router's outgoing data queue is 1 500 KB, Q_max = 0.9·C = 1 350 KB",
                "seed 001 §V-B",
            ),
            Constraint("outbound Data queue = bandwidth × 300 ms on every router", "seed 001 §IV"),
            Constraint(
                "CHoPCoP's total throughput is about 5× ICP's and HR-ICP's (§V-E's text; its "
                "Table III gives 7.06× and 7.07×)",
                "seed 001 §V-E",
                (("7-node topology (Table III)", "CHoPCoP's total over ICP's"),),
            ),
        ],
        notes="Every experiment of `ndncc reproduce chopcop` runs at each point (its "
        "comparison needs them all).",
    )
