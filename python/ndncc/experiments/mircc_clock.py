"""Seed 000: MIRCC explicit-rate control under coarse clocks, and smoothing.

The dumbbell of §IV (Fig. 5-8, Tables IV-V): two consumers share a 12 Mbps bottleneck; every
forwarder's rate interval T and the consumers' tick are the same value, T ∈ {100, 250, 500,
750 ms}, with and without smoothing. Plus our own checks: 3 and 5 equal flows on a 30 Mbps
bottleneck at T = 100 ms, and the dual-class multipath extension (a two-path consumer against a
single-path competitor).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..sweep import Job, Outcome
from .common import Row, jain, scenario_root

PAPER = "mircc-clock"
TITLE = "MIRCC explicit-rate control under coarse-grained clocks (seed 000)"
INTERVALS = [100, 250, 500, 750]  # ms
FLOWS = [3, 5]
FAIR = 600.0  # Interests/s: half of the 1 200 Data/s bottleneck
ALONE = "theory: C of C1's 10 Mbps access link"
SHARED = "theory: C/2 of the 12 Mbps bottleneck"
SHARE_RA = "theory: one fair share of the shared link"
BOTH_PATHS = "theory: a fair share of the shared link plus the whole of its own path"
# Table IV (overall loss rate per flow, no smoothing); None where the paper gives only a bound
PAPER_LOSS = {
    100: ("small", "small"),
    250: (0.10, 0.24),
    500: ("> 0.5", "> 0.5"),
    750: ("> 0.5", "> 0.5"),
}


def label(t: int, smoothing: bool) -> str:
    return f"T = {t} ms" + (" + smoothing" if smoothing else "")


def key(t: int, smoothing: bool) -> str:
    return f"dumbbell/{label(t, smoothing)}"


def overrides(t: int, smoothing: bool, consumers: list[str]) -> dict:
    ov = {"defaults.node.schemes.mircc.interval": f"{t}ms"}
    for c in consumers:
        ov[f"apps[{c}].tick"] = f"{t}ms"
        ov[f"apps[{c}].smoothing"] = smoothing
    return ov


def jobs(quick: bool) -> list[Job]:
    root = scenario_root() / PAPER
    out = []
    for t in INTERVALS:
        for smoothing in (False, True):
            out.append(
                Job(
                    key(t, smoothing),
                    str(root / "dumbbell.toml"),
                    overrides(t, smoothing, ["c1", "c2"]),
                    keep=("series", "delays"),
                )
            )
    for n in FLOWS:
        for counted in (True, False):
            ov = {} if counted else {"defaults.node.schemes.mircc.count_refused": False}
            out.append(
                Job(flows_key(n, counted), str(root / f"{n}-flows.toml"), ov, keep=("series",))
            )
    for multipath in (True, False):
        out.append(
            Job(
                multipath_key(multipath),
                str(root / "multipath.toml"),
                {"apps[c1].multipath": multipath},
                keep=("series", "face_series"),
            )
        )
    return out


def flows_key(n: int, count_refused: bool = True) -> str:
    """The n-flow run; `count_refused = False`: the law's y without the refused Interests."""
    return f"{n} flows" + ("" if count_refused else "/y without refused")


def multipath_key(multipath: bool) -> str:
    return "multipath/" + ("two-path C1" if multipath else "single-path C1")


def face_rate(o: Outcome, node: str, peer: str, lo: float, hi: float) -> float:
    """Interests/s sent by `node` towards `peer` over the bins ending in (lo, hi]."""
    f = o.frames["face_series"]
    f = f[(f["node_name"] == node) & (f["peer_name"] == peer)]
    f = f[(f["time_s"] > lo + 1e-9) & (f["time_s"] <= hi + 1e-9)]
    return float(f["out_interests"].sum() / (hi - lo))


# ---- metrics -------------------------------------------------------------------------------


def interest_rate(o: Outcome, app: str, lo: float, hi: float) -> float:
    """Mean Interest sending rate (Interests/s) of `app` over the bins ending in (lo, hi]."""
    s = o.frames["series"]
    s = s[(s["app_name"] == app) & (s["time_s"] > lo + 1e-9) & (s["time_s"] <= hi + 1e-9)]
    return float(s["interests"].sum() / (hi - lo))


def data_rate(o: Outcome, app: str, lo: float, hi: float) -> float:
    """Mean Data rate (Data/s delivered to `app`) over the bins ending in (lo, hi]."""
    s = o.frames["series"]
    s = s[(s["app_name"] == app) & (s["time_s"] > lo + 1e-9) & (s["time_s"] <= hi + 1e-9)]
    return float(s["data"].sum() / (hi - lo))


def data_row(
    o: Outcome, exp: str, app: str, window: tuple[float, float], condition: str, fair: tuple
) -> Row:
    """The Data rate delivered to `app` over `window`, beside an Interest-rate row: `fair` is
    (expected, its source, relative tolerance)."""
    lo, hi = window
    r = data_rate(o, app, lo, hi)
    expected, source, tol = fair
    return Row(
        exp,
        f"{app.upper()} Data rate (delivered), [{lo:g}, {hi:g}] s",
        condition,
        None,
        r,
        "Data/s",
        f"±{tol:.0%}".replace("%", " %"),
        within(r, expected, tol),
        expected=expected,
        expected_source=source,
    )


def loss(o: Outcome, app: str) -> float:
    """Overall loss rate: 1 − delivered / sent (no retransmissions)."""
    a = next(a for a in o.summary["apps"] if a["name"] == app)
    return 1.0 - a["data_received"] / a["interests_sent"] if a["interests_sent"] else 0.0


def loss_per_bin(o: Outcome, app: str) -> tuple[np.ndarray, np.ndarray]:
    """Loss rate of the Interests sent in each 100 ms bin: (bin end times, loss in [0, 1])."""
    s = o.frames["series"]
    s = s[s["app_name"] == app]
    ends = s["time_s"].to_numpy()
    sent = s["interests"].to_numpy().astype(float)
    d = o.frames["delays"]
    d = d[d["app_name"] == app]
    send_times = (d["time_s"] - d["full_delay_s"]).to_numpy()
    starts = np.concatenate([[0.0], ends[:-1]])
    idx = np.searchsorted(ends, send_times - 1e-12, side="left")
    delivered = np.bincount(idx[idx < len(ends)], minlength=len(ends)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        lossr = np.where(sent > 0, 1.0 - delivered / sent, np.nan)
    return (starts + ends) / 2, lossr


def within(x: float, target: float, tol: float) -> bool:
    return abs(x - target) <= tol * target


def compare(res: dict[str, Outcome], quick: bool) -> list[Row]:
    rows: list[Row] = []
    exp = "dumbbell"
    o = res[key(100, False)]
    c1 = interest_rate(o, "c1", 2, 3)
    rows.append(
        Row(
            exp,
            "C1 Interest rate alone, [2, 3] s",
            label(100, False),
            1000,
            c1,
            "Interests/s",
            "±10 %",
            within(c1, 1000, 0.10),
        )
    )
    rows.append(data_row(o, exp, "c1", (2, 3), label(100, False), (1000, ALONE, 0.10)))
    for app in ("c1", "c2"):
        r = interest_rate(o, app, 5, 7.5)
        rows.append(
            Row(
                exp,
                f"{app.upper()} Interest rate shared, [5, 7.5] s",
                label(100, False),
                FAIR,
                r,
                "Interests/s",
                "±10 %",
                within(r, FAIR, 0.10),
            )
        )
        rows.append(data_row(o, exp, app, (5, 7.5), label(100, False), (FAIR, SHARED, 0.10)))
        lr = loss(o, app)
        rows.append(
            Row(
                exp,
                f"{app.upper()} overall loss rate (Table IV)",
                label(100, False),
                "small",
                lr,
                "ratio",
                "< 0.05",
                lr < 0.05,
            )
        )
    o = res[key(250, False)]
    for i, app in enumerate(("c1", "c2")):
        r = interest_rate(o, app, 6, 7.5)
        rows.append(
            Row(
                exp,
                f"{app.upper()} rate within 3 s of C2's start, [6, 7.5] s",
                label(250, False),
                FAIR,
                r,
                "Interests/s",
                "±10 %",
                within(r, FAIR, 0.10),
            )
        )
        rows.append(data_row(o, exp, app, (6, 7.5), label(250, False), (FAIR, SHARED, 0.10)))
        paper = PAPER_LOSS[250][i]
        lr = loss(o, app)
        rows.append(
            Row(
                exp,
                f"{app.upper()} overall loss rate (Table IV)",
                label(250, False),
                paper,
                lr,
                "ratio",
                "goal ±25 %",
                abs(lr - paper) <= 0.25 * paper,
            )
        )
    for t in (500, 750):
        off, on = res[key(t, False)], res[key(t, True)]
        for app in ("c1", "c2"):
            l_off, l_on = loss(off, app), loss(on, app)
            r_off = interest_rate(off, app, 6, 8)
            failed = l_off > 0.3 or not within(r_off, FAIR, 0.15)
            rows.append(
                Row(
                    exp,
                    f"{app.upper()} fails without smoothing: loss, rate [6, 8] s",
                    label(t, False),
                    "loss > 0.5, rate ≈ 1000",
                    [l_off, r_off],
                    "ratio / Interests/s",
                    "loss > 0.3 or rate off 600 ± 15 %",
                    failed,
                )
            )
            r_on = interest_rate(on, app, 6, 8)
            rows.append(
                Row(
                    exp,
                    f"{app.upper()} Interest rate with smoothing, [6, 8] s",
                    label(t, True),
                    "≈ 600",
                    r_on,
                    "Interests/s",
                    "600 ± 15 %",
                    within(r_on, FAIR, 0.15),
                )
            )
            rows.append(data_row(on, exp, app, (6, 8), label(t, True), (FAIR, SHARED, 0.15)))
            rows.append(
                Row(
                    exp,
                    f"{app.upper()} loss with smoothing vs without (Table V)",
                    label(t, True),
                    "far below 0.5",
                    [l_on, l_off],
                    "ratio",
                    "below half of the unsmoothed",
                    l_on < 0.5 * l_off,
                )
            )
    for n in FLOWS:
        o = res[flows_key(n)]
        rates = [interest_rate(o, f"c{i}", 6, 10) for i in range(1, n + 1)]
        fair = 3000.0 / n
        ok = all(within(r, fair, 0.10) for r in rates)
        rows.append(
            Row(
                f"generalisation ({n} flows, 30 Mbps)",
                "per-flow Interest rate, [6, 10] s",
                "T = 100 ms",
                None,
                rates,
                "Interests/s",
                "each C/n ± 10 %",
                ok,
                expected=fair,
                expected_source="theory: C/n, the fair share",
            )
        )
        from .mircc_clock_rows import delivered_rows

        rows += delivered_rows(res, n, fair)
        j = jain(rates)
        rows.append(
            Row(
                f"generalisation ({n} flows, 30 Mbps)",
                "Jain index",
                "T = 100 ms",
                None,
                j,
                "index",
                "≥ 0.98",
                j >= 0.98,
                expected=1.0,
                expected_source="theory: equal shares",
            )
        )
    from .mircc_clock_rows import figure_rows

    return rows + figure_rows(res) + multipath_rows(res)


def multipath_rows(res: dict[str, Outcome]) -> list[Row]:
    """The dual-class extension (ours: seed 000 has no multipath experiment): expected shares on
    the two bottlenecks (1 000 Data/s each); the paper column stays empty."""
    exp = "multipath (two paths vs one)"
    o = res[multipath_key(True)]
    via_a = face_rate(o, "C1", "RA", 5, 10)
    via_b = face_rate(o, "C1", "RB", 5, 10)
    c2 = interest_rate(o, "c2", 5, 10)
    return [
        Row(
            exp,
            "C1 primary Interests on the shared path, [5, 10] s",
            "via RA",
            None,
            via_a,
            "Interests/s",
            "±10 %",
            within(via_a, 500, 0.10),
            expected=500,
            expected_source="theory: one fair share of the shared link",
        ),
        Row(
            exp,
            "C1 secondary Interests on its own path, [5, 10] s",
            "via RB",
            None,
            via_b,
            "Interests/s",
            "±10 %",
            within(via_b, 1000, 0.10),
            expected=1000,
            expected_source="theory: the whole capacity of its own path",
        ),
        Row(
            exp,
            "C2 (single path) Interest rate, [5, 10] s",
            "shared RA–RX",
            None,
            c2,
            "Interests/s",
            "±10 %",
            within(c2, 500, 0.10),
            expected=500,
            expected_source="theory: one fair share of the shared link",
        ),
        data_row(o, exp, "c2", (5, 10), "shared RA–RX", (500, SHARE_RA, 0.10)),
        data_row(o, exp, "c1", (5, 10), "via RA and RB", (1500, BOTH_PATHS, 0.10)),
    ]


# ---- figures and report --------------------------------------------------------------------


def figures(res: dict[str, Outcome], out: Path, quick: bool) -> list[Path]:
    from matplotlib.figure import Figure

    from .common import save_figure

    def four_panels(smoothing: bool, what: str, path: Path, title: str) -> Path:
        fig = Figure(figsize=(11, 7))
        for i, t in enumerate(INTERVALS):
            ax = fig.add_subplot(2, 2, i + 1)
            o = res[key(t, smoothing)]
            for app, color in (("c1", "tab:blue"), ("c2", "tab:red")):
                if what == "rate":
                    s = o.frames["series"]
                    s = s[s["app_name"] == app]
                    sent = s["interests"]
                    active = (sent.cumsum() > 0) & (sent[::-1].cumsum()[::-1] > 0)
                    ax.step(
                        s["time_s"][active],
                        s["rate"][active],
                        where="post",
                        color=color,
                        label=f"{app.upper()} Interests",
                    )
                    ax.step(
                        s["time_s"][active],
                        s["data"][active] / bin_width(o),
                        where="post",
                        color=color,
                        ls="--",
                        lw=0.9,
                        label=f"{app.upper()} Data delivered",
                    )
                    ax.set(ylabel="Interests/s sent, Data/s delivered", ylim=(0, 1300))
                else:
                    # a bin without sends has no loss rate (NaN, a gap); with a coarse tick most
                    # bins are such gaps, so every bin with sends gets a marker
                    x, y = loss_per_bin(o, app)
                    ax.plot(x, y * 100, color=color, label=app.upper(), lw=0.9, marker="o", ms=3)
                    ax.set(ylabel="Loss rate of the Interests sent (%)", ylim=(-2, 102))
            ax.set(xlabel="Time (s)", title=f"({'abcd'[i]}) time interval = {t} ms", xlim=(0, 11))
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(title)
        return save_figure(fig, path)

    return [
        four_panels(
            False,
            "rate",
            out / "fig5_rate.png",
            "MIRCC, coarse clock: Interest sending rate (Fig. 5) and Data delivered (dashed)",
        ),
        four_panels(
            False,
            "loss",
            out / "fig6_loss.png",
            "MIRCC, coarse clock: Data loss rate per 100 ms (Fig. 6)",
        ),
        four_panels(
            True,
            "rate",
            out / "fig7_rate_smoothing.png",
            "MIRCC with smoothing: Interest sending rate (Fig. 7) and Data delivered (dashed)",
        ),
        four_panels(
            True,
            "loss",
            out / "fig8_loss_smoothing.png",
            "MIRCC with smoothing: Data loss rate per 100 ms (Fig. 8)",
        ),
        multipath_figure(res, out / "multipath_rates.png"),
        flows_figure(res, out / "flows_rates.png"),
    ]


def bin_width(o: Outcome) -> float:
    """The series' bin in seconds."""
    return float(np.median(np.diff(np.unique(o.frames["series"]["time_s"]))))


def flows_figure(res: dict[str, Outcome], path: Path) -> Path:
    """The n-flow runs: each flow's Interest rate (solid) and Data rate (dashed), with y
    counting the refused Interests (seed 000) and without (`count_refused = false`)."""
    from matplotlib.figure import Figure

    from .common import save_figure

    fig = Figure(figsize=(11, 7))
    for i, (n, counted) in enumerate((n, c) for n in FLOWS for c in (True, False)):
        ax = fig.add_subplot(2, 2, i + 1)
        o = res[flows_key(n, counted)]
        s = o.frames["series"]
        for k in range(1, n + 1):
            f = s[s["app_name"] == f"c{k}"]
            color = f"C{k - 1}"
            ax.plot(f["time_s"], f["interests"] / bin_width(o), color=color, lw=0.9)
            ax.plot(f["time_s"], f["data"] / bin_width(o), color=color, lw=0.9, ls="--")
        ax.axhline(3000 / n, color="grey", lw=0.8, ls=":", label="C/n")
        which = "refused counted in y" if counted else "count_refused = false"
        ax.set(
            title=f"{n} flows, {which}",
            xlabel="Time (s)",
            ylabel="Interests/s (solid), Data/s (dashed)",
            xlim=(0, 11),
            ylim=(0, 3300),
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("MIRCC, n flows on aligned 100 ms ticks: sent and delivered per flow")
    return save_figure(fig, path)


def multipath_figure(res: dict[str, Outcome], path: Path) -> Path:
    """Interests sent per path: the two-path C1 against the single-path C2."""
    from matplotlib.figure import Figure

    from .common import save_figure

    fig = Figure(figsize=(8, 4))
    ax = fig.add_subplot()
    o = res[multipath_key(True)]
    f = o.frames["face_series"]
    for peer, name, color in (
        ("RA", "C1 via RA (primary)", "tab:blue"),
        ("RB", "C1 via RB (secondary)", "tab:cyan"),
    ):
        x = f[(f["node_name"] == "C1") & (f["peer_name"] == peer)]
        ax.plot(x["time_s"], x["out_interests"] / 0.1, color=color, label=name)
    s = o.frames["series"]
    s = s[s["app_name"] == "c2"]
    ax.plot(s["time_s"], s["interest_rate"], color="tab:red", label="C2 via RA (single path)")
    ax.set(
        xlabel="Time (s)",
        ylabel="Interests sent (Interests/s, 100 ms bins)",
        title="MIRCC multipath: a two-path C1 against a single-path C2",
        ylim=(0, 1300),
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def report_sections(res: dict[str, Outcome], quick: bool) -> list[tuple[str, str]]:
    head = "| T | C1–P1: paper | ours | C2–P2: paper | ours | with smoothing: C1 | C2 |\n"
    head += "|---|---|---|---|---|---|---|\n"
    lines = []
    for t in INTERVALS:
        off, on = res[key(t, False)], res[key(t, True)]
        p1, p2 = PAPER_LOSS[t]
        lines.append(
            f"| {t} ms | {p1} | {loss(off, 'c1'):.3f} | {p2} | {loss(off, 'c2'):.3f} | "
            f"{loss(on, 'c1'):.3f} | {loss(on, 'c2'):.3f} |"
        )
    return [("Tables IV and V: overall loss rate per flow", head + "\n".join(lines) + "\n")]
