"""Seed 003: rate-based send loops on a real OS clock, and the Rate Mismatch Controller.

Runs on *this* machine, not in a model:

1. **clock probe**: the waiting times of a reference sender (one datagram every 100 µs),
   idle and under busy-wait load (the simulator's calibrated clock model);
2. **constant rate** (Fig. 7-10): a UDP send loop on loopback at r ∈ {1, 10, 100, 200, 400,
   500, 600} Mbps, 1500-byte datagrams, with each engine (RFC 3448 without and with bursts, RMC
   with kr = 1); busy-wait processes load the CPU in the middle third of the run;
3. **step** (Fig. 11-13): RMC at 500 Mbps dropping to 50 Mbps and back, kr swept over
   [0.1, 1.9]; the 5 % settling time of the effective rate;
4. the constant-rate grid again **in the simulator**, each engine sleeping on the calibrated
   clock (the idle profile, and the load profile in the load window), to compare simulated
   and real errors.

The real runs are sequential (timing experiments must not share the CPU with each other); the
simulated ones run in parallel. Full: 60 s per constant-rate run (27 minutes here); `--quick`:
8 s runs with a 4 s load window (3.5 minutes): a load window much shorter than that
would measure the edge of one scheduler stall (up to ~12 ms here) rather than the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import nan
from pathlib import Path

from ..sweep import Job, run_jobs
from .common import Row, save_figure, scenario_root

PAPER = "rmc"
TITLE = (
    "Rate-based send loops on a real OS clock: RFC 3448 and the Rate Mismatch Controller (seed 003)"
)
RATES_MBPS = [1, 10, 100, 200, 400, 500, 600]
ENGINES = ["rfc3448", "rfc3448-burst", "rmc"]
KRS = [0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 1.9]
SIZE = 1500
STEP_MBPS = 500.0
# the clock probe's sender: one datagram every 100 µs (120 Mbit/s of 1500-byte datagrams)
PROBE_PERIOD = "100us"
STEP_PERIOD = "40ms"  # Ts of the step experiment [OPEN]: the seed's settling times imply ~40 ms
# the seed's worst errors (two kernels) where it states them
PAPER_WORST = {"rfc3448": "≈ 99 % / 90 %", "rfc3448-burst": "≈ 95 % / 4 %", "rmc": "< 0.06 %"}


@dataclass
class Plan:
    duration: float  # s, constant-rate runs
    load: tuple[float, float]
    load_procs: int
    step_times: tuple[float, float, float]  # drop, back, end
    probe_seconds: float  # per state, idle and load


def plan(quick: bool) -> Plan:
    if quick:
        return Plan(8.0, (2.0, 6.0), 5, (1.0, 2.0, 3.0), 3.0)
    return Plan(60.0, (20.0, 40.0), 5, (10.0, 20.0, 30.0), 10.0)


def cr_key(engine: str, mbps: float) -> str:
    return f"real/{engine}/{mbps:g} Mbps"


def sim_key(engine: str, mbps: float) -> str:
    return f"sim/{engine}/{mbps:g} Mbps"


def step_key(kr: float) -> str:
    return f"step/kr={kr:g}"


def run_all(out: Path, quick: bool, n_jobs: int | None, on_done) -> dict:
    """Runs every real and simulated experiment; returns the outcomes by key."""
    from .. import realtime

    p = plan(quick)
    res: dict = {}
    total = 1 + len(ENGINES) * len(RATES_MBPS) * 2 + len(KRS)
    done = 0

    def tick(key, value):
        nonlocal done
        res[key] = value
        done += 1
        if on_done:
            on_done(value, done, total)

    profile = out / "clock-profile.json"
    tick(
        "probe",
        realtime.clock_probe(
            profile,
            period=PROBE_PERIOD,
            size=SIZE,
            seconds=p.probe_seconds,
            load_procs=p.load_procs,
        ),
    )
    for engine in ENGINES:
        for mbps in RATES_MBPS:
            load = realtime.LoadWindow(p.load[0], p.load[1], p.load_procs)
            tick(
                cr_key(engine, mbps),
                realtime.sendloop(engine, mbps * 1e6, size=SIZE, duration=p.duration, load=load),
            )
    drop, back, end = p.step_times
    for kr in KRS:
        steps = [(0.0, STEP_MBPS * 1e6), (drop, STEP_MBPS * 1e5), (back, STEP_MBPS * 1e6)]
        tick(
            step_key(kr),
            realtime.sendloop(
                "rmc",
                STEP_MBPS * 1e6,
                size=SIZE,
                duration=end,
                kr=kr,
                period=STEP_PERIOD,
                steps=steps,
                trace_wakes=True,
            ),
        )
    jobs = [sim_job(engine, mbps, p, profile) for engine in ENGINES for mbps in RATES_MBPS]
    for key, o in run_jobs(jobs, n_jobs=n_jobs).items():
        tick(key, o)
    return res


def sim_job(engine: str, mbps: float, p: Plan, profile: Path) -> Job:
    """The send loop in the simulator on the measured clock: the idle profile, and the load
    profile during the same load window as the real run."""
    ov = {
        "scenario.duration": f"{p.duration}s",
        "apps[loop].rate": mbps * 1e6 / (8 * SIZE),
        "apps[loop].engine": engine,
        "apps[loop].clock_wait_mean": None,
        "apps[loop].clock_granularity": None,
        "apps[loop].clock_profile": str(profile.resolve()),
        "apps[loop].clock_load_window": f"{p.load[0]}s-{p.load[1]}s",
        "apps[loop].kr": None,
        "apps[loop].period": None,
    }
    if engine == "rmc":
        ov["apps[loop].kr"] = 1.0
        ov["apps[loop].period"] = "1ms"
    else:
        ov["apps[loop].granularity"] = "1ms"  # the same δ as the real loop's
    root = scenario_root() / PAPER
    return Job(sim_key(engine, mbps), str(root / "sendloop.toml"), ov, keep=("series",))


# ---- metrics -------------------------------------------------------------------------------


def real_error(run, p: Plan, during_load: bool = False) -> float:
    """Over the whole run (first bin skipped: start-up), or over the load window only."""
    if during_load:
        return run.relative_error(p.load[0], p.load[1])
    return run.relative_error(run.bin_s)


def one_datagram_pct(p: Plan, mbps: float) -> float:
    """One datagram over a run (first bin skipped), as a relative error in %."""
    return 100 * 8 * SIZE / (mbps * 1e6 * (p.duration - 0.1))


def sim_error(o, mbps: float, window: tuple[float, float] | None = None) -> float:
    """The simulated run's relative error over the whole run (first 100 ms skipped, as the real
    runs' first bin) or over `window` (s); the series rows are stamped at their interval's end."""
    t0, t1 = window or (0.1, float("inf"))
    s = o.frames["series"]
    prev = s["time_s"].shift(fill_value=0.0)
    s = s[(prev >= t0 - 1e-9) & (s["time_s"] <= t1 + 1e-9)]
    rate = (s["interests"] * SIZE * 8).sum() / (s["time_s"] - prev[s.index]).sum()
    r = mbps * 1e6
    return (r - rate) / r


def wake_rates(run) -> list[tuple[float, float]]:
    """(time s, effective bits/s) per sending wake-up: the packets it sent over the time since
    the previous one (the loop's own period, so no binning artefact)."""
    out = []
    for (t0, _), (t1, n) in zip(run.wakes, run.wakes[1:], strict=False):
        if t1 > t0:
            out.append((t1, n * SIZE * 8 / (t1 - t0)))
    return out


def settling_time(run, drop: float, tol: float = 0.05) -> float:
    """Time after the drop until the effective rate stays within ±tol of the new rate."""
    target = STEP_MBPS * 1e5
    back = run.rates[2][0]
    last_out = drop
    for t, bps in wake_rates(run):
        if drop < t <= back and abs(bps - target) > tol * target:
            last_out = t
    return last_out - drop


def oscillates(run, drop: float) -> bool:
    """True if the effective rate undershoots the new rate by more than 5 % after the drop."""
    target = STEP_MBPS * 1e5
    back = run.rates[2][0]
    after = [b for t, b in wake_rates(run) if drop < t < back]
    return min(after, default=target) < 0.95 * target


def compare(res: dict, quick: bool) -> list[Row]:
    p = plan(quick)
    rows: list[Row] = []
    exp = "constant rate (real OS)"
    carried = [m for m in RATES_MBPS if carries(res, m)]
    for mbps in RATES_MBPS:
        run = res[cr_key("rmc", mbps)]
        if mbps not in carried:
            rows.append(
                Row(
                    exp,
                    "RMC relative error",
                    f"{mbps} Mbps",
                    "< 0.06 %",
                    "loopback cannot carry it",
                    "%",
                    "not applicable",
                    None,
                )
            )
            continue
        for load in (False, True):
            e = real_error(run, p, load) * 100
            cond = f"{mbps} Mbps" + (", during load" if load else "")
            # one packet more or less in the measured window is the measurement's resolution
            window = (p.load[1] - p.load[0]) if load else (p.duration - run.bin_s)
            resolution = 100 * 8 * SIZE / (mbps * 1e6 * window)
            tol = max(0.5, resolution)
            label = "|e| ≤ 0.5 %" if tol == 0.5 else f"|e| ≤ {tol:.2f} % (one packet)"
            rows.append(
                Row(exp, "RMC relative error", cond, "< 0.06 %", e, "%", label, abs(e) <= tol)
            )
    # (no carried rate at all — a stalled host — leaves NaN rather than losing the report)
    worst = max((real_error(res[cr_key("rfc3448", m)], p) for m in carried), default=nan) * 100
    rows.append(
        Row(
            exp,
            "RFC 3448 (no bursts) largest relative error",
            "1–600 Mbps",
            PAPER_WORST["rfc3448"],
            worst,
            "%",
            "large (> 10 %)",
            worst > 10,
        )
    )
    worst_b = (
        max((real_error(res[cr_key("rfc3448-burst", m)], p) for m in carried), default=nan) * 100
    )
    rows.append(
        Row(
            exp,
            "RFC 3448 with bursts largest relative error",
            "1–600 Mbps",
            PAPER_WORST["rfc3448-burst"],
            worst_b,
            "%",
            "reported",
            None,
        )
    )
    shares = [received_share(res, m) * 100 for m in RATES_MBPS]
    rows.append(
        Row(
            exp,
            "share of RMC's datagrams the local receiver got",
            "1–600 Mbps",
            None,
            shares,
            "%",
            "reported (a receiver under load drops)",
            None,
        )
    )
    exp = "simulator with the calibrated clock (idle and load profiles) vs real OS"
    for engine in ENGINES:
        pairs = [
            (
                real_error(res[cr_key(engine, m)], p) * 100,
                sim_error(res[sim_key(engine, m)], m) * 100,
            )
            for m in carried
        ]
        # a difference of a few datagrams is measurement resolution, not clock behaviour
        floor = {m: max(1.0, 3 * one_datagram_pct(p, m)) for m in carried}
        big = [(r, s) for (r, s), m in zip(pairs, carried, strict=True) if abs(r) >= floor[m]]
        if big:
            ok = all(0.5 <= s / r <= 2.0 for r, s in big if r)
            rows.append(
                Row(
                    exp,
                    "relative error, real / simulated",
                    f"{engine}, rates where it is ≥ 1 % (and ≥ 3 datagrams)",
                    None,
                    [f"{r:.1f}/{s:.1f}" for r, s in big],
                    "%",
                    "within a factor of 2",
                    ok,
                    expected="simulated ≈ real",
                    expected_source="our choice: the calibrated clock should predict the error",
                )
            )
        small = [(r, s) for (r, s), m in zip(pairs, carried, strict=True) if abs(r) < floor[m]]
        if small:
            ok = all(abs(s) < max(1.0, abs(r) * 2) for r, s in small)
            rows.append(
                Row(
                    exp,
                    "relative error, real / simulated",
                    f"{engine}, rates where it is small",
                    None,
                    [f"{r:.2f}/{s:.2f}" for r, s in small],
                    "%",
                    "simulated below max(1 %, 2 × real)",
                    ok,
                    expected="simulated ≈ real",
                    expected_source="our choice: the calibrated clock should predict the error",
                )
            )
    exp = "step (real OS, RMC)"
    drop = p.step_times[0]
    settle = {kr: settling_time(res[step_key(kr)], drop) for kr in KRS}
    rows.append(
        Row(
            exp,
            "5 % settling time falls from kr = 0.2 to kr = 1",
            "kr 0.2 → 1.0",
            "≈ 0.5 s → 0.06 s",
            [settle[0.2], settle[1.0]],
            "s",
            "falls",
            settle[1.0] < settle[0.2],
        )
    )
    rows.append(
        Row(
            exp,
            "and rises again above 1.2",
            "kr 1.0 → 1.8",
            "≈ 0.06 s → 0.3 s",
            [settle[1.0], settle[1.8]],
            "s",
            "rises",
            settle[1.8] > settle[1.0],
        )
    )
    osc = [kr for kr in KRS if kr > 1 and oscillates(res[step_key(kr)], drop)]
    rows.append(
        Row(
            exp,
            "oscillation for kr > 1",
            "kr 1.2 – 1.9",
            "visible",
            osc,
            "kr",
            "undershoot for some kr > 1",
            bool(osc),
        )
    )
    return rows


def carries(res: dict, mbps: float) -> bool:
    """The loopback carries a rate if a loop could send it: RMC or RFC 3448 with bursts got
    within 1 % of it outside the load window. (Whether the local receiver drained every
    datagram is reported separately: under load it may not.)"""
    for engine in ("rmc", "rfc3448-burst"):
        run = res[cr_key(engine, mbps)]
        window = run.load[:2] if run.load else None
        if abs(run.relative_error(run.bin_s, exclude=window)) <= 0.01:
            return True
    return False


def received_share(res: dict, mbps: float) -> float:
    run = res[cr_key("rmc", mbps)]
    sent = sum(run.bin_bytes)
    return run.received_bytes / sent if sent else float("nan")


# ---- figures and report --------------------------------------------------------------------


def figures(res: dict, out: Path, quick: bool) -> list[Path]:
    from matplotlib.figure import Figure

    p = plan(quick)
    paths = []
    fig = Figure(figsize=(8, 4))
    ax = fig.add_subplot()
    for engine, marker in zip(ENGINES, "osd", strict=True):
        errs = [max(abs(real_error(res[cr_key(engine, m)], p)) * 100, 1e-4) for m in RATES_MBPS]
        sims = [max(abs(sim_error(res[sim_key(engine, m)], m)) * 100, 1e-4) for m in RATES_MBPS]
        (line,) = ax.plot(RATES_MBPS, errs, marker=marker, label=f"{engine} (real OS)")
        ax.plot(
            RATES_MBPS,
            sims,
            marker=marker,
            ls=":",
            color=line.get_color(),
            label=f"{engine} (simulated clock)",
        )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="Requested rate (Mbit/s)",
        ylabel="|relative error| (%)",
        title="Relative rate error per engine (Fig. 7-9)",
    )
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    paths.append(save_figure(fig, out / "fig7_error_vs_rate.png"))

    fig = Figure(figsize=(8, 6))
    for i, engine in enumerate(ENGINES):
        ax = fig.add_subplot(len(ENGINES), 1, i + 1)
        shown = 500 if 500 in RATES_MBPS else RATES_MBPS[-1]
        run = res[cr_key(engine, shown)]
        eff = run.effective_bps()
        ax.plot([(k + 0.5) * run.bin_s for k in range(len(eff))], [x / 1e6 for x in eff], lw=0.8)
        ax.axhline(shown, color="black", ls=":", lw=1)
        ax.axvspan(p.load[0], p.load[1], color="tab:red", alpha=0.1)
        ax.set(
            ylabel="Mbit/s",
            title=f"{engine} at {shown} Mbit/s (load shaded)",
            ylim=(0, shown * 1.3),
        )
        ax.grid(alpha=0.3)
    ax.set_xlabel("Time (s)")
    paths.append(save_figure(fig, out / "fig10_rate_500mbps.png"))

    drop, back, _ = p.step_times
    fig = Figure(figsize=(8, 4))
    ax = fig.add_subplot()
    for kr in (0.2, 1.0, 1.8):
        pts = [
            (t - drop, r / 1e6)
            for t, r in wake_rates(res[step_key(kr)])
            if drop - 0.3 < t < drop + 1.0
        ]
        ax.step([t for t, _ in pts], [r for _, r in pts], where="pre", label=f"kr = {kr}")
    ax.axhline(STEP_MBPS / 10, color="black", ls=":", lw=1)
    ax.set(
        xlabel="Time since the rate step (s)",
        ylabel="Effective rate (Mbit/s, per loop period)",
        title=f"RMC step {STEP_MBPS:g} → {STEP_MBPS / 10:g} Mbit/s, Ts = {STEP_PERIOD} "
        "(Fig. 11-12)",
    )
    ax.grid(alpha=0.3)
    ax.legend()
    paths.append(save_figure(fig, out / "fig11_step.png"))

    fig = Figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    ax.plot(KRS, [settling_time(res[step_key(kr)], drop) for kr in KRS], marker="o")
    ax.set(xlabel="kr", ylabel="5 % settling time (s)", title="RMC settling time vs kr (Fig. 13)")
    ax.grid(alpha=0.3)
    paths.append(save_figure(fig, out / "fig13_settling.png"))
    return paths


def report_sections(res: dict, quick: bool) -> list[tuple[str, str]]:
    p = plan(quick)
    probe = res["probe"]
    lines = [
        "| state | wake-ups | p50 (µs) | p90 (µs) | p99 (µs) | max (µs) | mean (µs) |"
        " plain sleep p50 / p99 (µs) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, prof in probe["profiles"].items():
        q = prof["quantiles_ns"]
        n = len(prof["samples_ns"])
        mean = sum(prof["samples_ns"]) / n / 1e3
        s = probe.get("sleep_only", {}).get(name)
        plain = f"{s['p50'] / 1e3:.1f} / {s['p99'] / 1e3:.1f}" if s else "—"
        lines.append(
            f"| {name} | {n} | {q['p50'] / 1e3:.1f} | {q['p90'] / 1e3:.1f} | "
            f"{q['p99'] / 1e3:.1f} | {q['max'] / 1e3:.1f} | {mean:.1f} | {plain} |"
        )
    probe_md = (
        f"Kernel {probe['kernel']}, {probe['cpus']} CPUs. Waiting time of a sender with one "
        f"{probe['packet_size']}-byte datagram due every {probe['period_ns'] / 1e3:g} µs: how "
        "much later than it could have each wake-up came (the simulator's t_w), idle and with "
        f"{probe['load_procs']} busy-wait processes; beside it, the overshoot of a thread that "
        "only sleeps as long.\n\n" + "\n".join(lines) + "\n"
    )
    head = (
        "| rate (Mbps) | "
        + " | ".join(
            f"{e}: real | simulated | real, load window | simulated, load window" for e in ENGINES
        )
        + " |\n"
    )
    head += "|---|" + "---|---|---|---|" * len(ENGINES) + "\n"
    body = []
    for m in RATES_MBPS:
        cells = [
            f"{real_error(res[cr_key(e, m)], p) * 100:.3f} | "
            f"{sim_error(res[sim_key(e, m)], m) * 100:.3f} | "
            f"{real_error(res[cr_key(e, m)], p, True) * 100:.3f} | "
            f"{sim_error(res[sim_key(e, m)], m, p.load) * 100:.3f}"
            for e in ENGINES
        ]
        body.append(f"| {m} | " + " | ".join(cells) + " |")
    drop = p.step_times[0]
    settle = "| kr | " + " | ".join(f"{kr:g}" for kr in KRS) + " |\n|---|" + "---|" * len(KRS)
    settle += (
        "\n| settling (s) | "
        + " | ".join(f"{settling_time(res[step_key(kr)], drop):.2f}" for kr in KRS)
        + " |\n"
    )
    return [
        ("Clock probe: a sender's waiting times on this machine", probe_md),
        (
            "Relative error e = (r − E[r_e]) / r in %: real OS (whole run, and the load window "
            "alone) and the simulator on the calibrated clock",
            head + "\n".join(body) + "\n",
        ),
        ("RMC step: 5 % settling time", settle),
    ]
