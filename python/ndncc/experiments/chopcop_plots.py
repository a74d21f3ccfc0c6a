"""chopcop figures, drawn like seed 001's Fig. 5, 6, 8, 10 and 11 (and Table III as bars)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..sweep import Outcome
from . import chopcop as C
from .common import save_figure

COLORS = {"chopcop": "tab:red", "ictp": "tab:blue", "icp": "tab:green", "hr-icp": "tab:orange"}


def rate_series(o: Outcome, app: str, bin_s: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Complete chunks (segments, one per Interest) delivered to `app` per `bin_s` bin, in
    Mbit/s (bin centres, rates)."""
    t = C.completions(o, app)
    end = float(o.summary.get("sim_time_s") or (t[-1] if len(t) else 1.0))
    edges = np.arange(0.0, end + bin_s, bin_s)
    n, _ = np.histogram(t, edges)
    return (edges[:-1] + edges[1:]) / 2, n * C.completion_bits(o, app) / bin_s / 1e6


def series(o: Outcome, app: str, col: str) -> tuple[np.ndarray, np.ndarray]:
    s = o.frames["series"]
    s = s[s["app_name"] == app]
    return s["time_s"].to_numpy(), s[col].to_numpy(dtype=float)


def queue(o: Outcome, node: str, peer: str) -> tuple[np.ndarray, np.ndarray]:
    f = o.frames["face_series"]
    f = f[(f["node_name"] == node) & (f["peer_name"] == peer)]
    return f["time_s"].to_numpy(), f["queue_bytes"].to_numpy(dtype=float) / 1000


def fig5(res: dict[str, Outcome], out: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 7))
    axes = [fig.add_subplot(2, 2, i + 1) for i in range(4)]
    for s in C.SCHEMES:
        o, c, lab = res[f"baseline/{s}"], COLORS[s], C.LABEL[s]
        axes[0].plot(*series(o, "receiver", "window"), color=c, lw=0.9, label=lab)
        axes[1].plot(*rate_series(o, "receiver"), color=c, lw=0.9, label=lab)
        t, to = series(o, "receiver", "timeouts")
        axes[2].plot(t, np.cumsum(to), color=c, lw=0.9, label=lab)
        axes[3].plot(*queue(o, "B", "C"), color=c, lw=0.9, label=lab)
    titles = ["(a) receiver window", "(b) receiving rate", "(c) timeouts", "(d) B's queue to C"]
    ylabels = [
        "Interest window (chunks)",
        "Receiving rate (Mbit/s, 0.5 s bins)",
        "Timeouts (cumulative count)",
        "Queue (KB)",
    ]
    for ax, title, yl in zip(axes, titles, ylabels, strict=True):
        ax.set(title=title, xlabel="Time (s)", ylabel=yl)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Baseline A–B–C (Fig. 5): CHoPCoP against ICTP, ICP, HR-ICP")
    return save_figure(fig, out / "fig5_baseline.png")


def fig6(res: dict[str, Outcome], out: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4))
    for i, fisp in enumerate((False, True)):
        ax = fig.add_subplot(1, 2, i + 1)
        for cir, c in zip(C.CIRS, ("tab:green", "tab:blue", "tab:red"), strict=True):
            ax.plot(
                *queue(res[C.cir_key(cir, fisp)], "B", "C"), color=c, lw=0.9, label=f"CIR {cir}/s"
            )
        ax.axhline(1500, color="grey", ls=":", lw=0.8, label="capacity 1 500 KB")
        if fisp:
            ax.axhline(1050, color="black", ls="--", lw=0.8, label="paper: ≈ 1 050 KB")
        ax.set(
            title=f"({'ab'[i]}) {'with' if fisp else 'without'} FISP",
            xlabel="Time (s)",
            ylabel="B's queue towards C (KB)",
            ylim=(0, 1650),
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Non-cooperative receiver at a constant Interest rate (Fig. 6)")
    return save_figure(fig, out / "fig6_fisp_queue.png")


def fig8(res: dict[str, Outcome], out: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4))
    ax = fig.add_subplot()
    for s in C.SCHEMES:
        ax.plot(
            *rate_series(res[f"multi-source/{s}"], "receiver"),
            color=COLORS[s],
            lw=0.9,
            label=C.LABEL[s],
        )
    ax.set(
        title="Two sources serve one flow (Fig. 8)",
        xlabel="Time (s)",
        ylabel="Receiving rate (Mbit/s, 0.5 s bins)",
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save_figure(fig, out / "fig8_multi_source.png")


def fig10(res: dict[str, Outcome], out: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4))
    o = res["fairness"]
    a1, a2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for app, c in (("d", "tab:blue"), ("e", "tab:red")):
        a1.plot(*series(o, app, "window"), color=c, lw=0.9, label=app.upper())
        a2.plot(*rate_series(o, app), color=c, lw=0.9, label=app.upper())
    a1.set(title="(a) windows", xlabel="Time (s)", ylabel="Interest window (chunks)")
    a2.set(
        title="(b) receiving rates", xlabel="Time (s)", ylabel="Receiving rate (Mbit/s, 0.5 s bins)"
    )
    for ax in (a1, a2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Two flows through one 40 Mbit/s bottleneck, E from the middle (Fig. 10)")
    return save_figure(fig, out / "fig10_fairness.png")


def fig11(res: dict[str, Outcome], out: Path, quick: bool) -> Path:
    from matplotlib.figure import Figure

    end = C.dur(quick)["hbh"]
    rates = C.E_RATES_QUICK if quick else C.E_RATES
    fig = Figure(figsize=(8, 4))
    ax = fig.add_subplot()
    for shaper, c in (("fisp", "tab:red"), ("hbh", "tab:blue"), ("hbh-rate", "tab:grey")):
        d = [C.goodput(res[C.hbh_key(e, shaper)], "d", 3, end) for e in rates]
        e_ = [C.goodput(res[C.hbh_key(e, shaper)], "e", 3, end) for e in rates]
        name = {"fisp": "FISP", "hbh": "HbH", "hbh-rate": "HbH fair-rate"}[shaper]
        ax.plot(rates, np.add(d, e_), color=c, marker="o", label=f"{name}: total")
        ax.plot(rates, e_, color=c, marker="s", ls="--", lw=0.9, label=f"{name}: E")
        ax.plot(rates, d, color=c, marker="^", ls=":", lw=0.9, label=f"{name}: D (20/s)")
    ax.set(
        title="FISP against quota-based HbH (Fig. 11)",
        xlabel="E's Interest rate (chunk Interests/s)",
        ylabel="Throughput, complete chunks (Mbit/s)",
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save_figure(fig, out / "fig11_fisp_vs_hbh.png")


def table3(res: dict[str, Outcome], out: Path, quick: bool) -> Path:
    from matplotlib.figure import Figure

    from .chopcop_rows import STEADY, TABLE_3

    end = C.dur(quick)["seven"]
    fig = Figure(figsize=(8, 4))
    ax = fig.add_subplot()
    x = np.arange(len(C.SCHEMES))
    for k, (app, off) in enumerate((("f", -0.3), ("g", 0.0))):
        ours = [C.goodput(res[f"seven-node/{s}"], app, STEADY, end) for s in C.SCHEMES]
        paper = [TABLE_3[s][k] for s in C.SCHEMES]
        ax.bar(x + off, ours, 0.15, label=f"{app.upper()} ours")
        ax.bar(x + off + 0.15, paper, 0.15, label=f"{app.upper()} paper", alpha=0.5)
    ax.set_xticks(x, [C.LABEL[s] for s in C.SCHEMES])
    ax.set(title="7-node topology (Table III)", xlabel="Scheme", ylabel="Throughput (Mbit/s)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return save_figure(fig, out / "table3_seven_node.png")


def icp_tau(res: dict[str, Outcome], out: Path, quick: bool) -> Path:
    """ICP's throughput and timeouts against its fixed timer τ (full tier), beside its readings
    from the single RTT estimator and the throughput the paper's gains imply for it."""
    from matplotlib.figure import Figure

    from .chopcop_icp import icp_tau_points

    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, 2)
    for ax, topo in zip(axes, ("baseline", "multi-source"), strict=True):
        pts, readings, implied = icp_tau_points(res, topo, quick)
        taus = [p[0] for p in pts]
        ax.plot(taus, [p[1] for p in pts], color="tab:green", marker="o", label="ICP, fixed τ")
        for (name, (thr, _)), m in zip(readings.items(), ("s", "^", "v"), strict=False):
            ax.axhline(thr, color="tab:grey", ls=":", lw=0.9)
            ax.plot(
                [taus[-1]],
                [thr],
                color="tab:grey",
                marker=m,
                ls="",
                label=f"ICP, {name} (no fixed τ: a line)",
            )
        ax.axhline(implied, color="tab:red", ls="--", lw=1, label="paper's gain applied to ours")
        ax.set(
            title=f"ICP's timer on the {topo} topology",
            xlabel="ICP's fixed timer τ (ms)",
            ylabel="Throughput, complete chunks (Mbit/s)",
            ylim=(0, 42),
        )
        ax.grid(alpha=0.3)
        tw = ax.twinx()
        tw.plot(taus, [p[2] for p in pts], color="tab:purple", marker="x", ls="--", lw=0.8)
        tw.set_ylabel("ICP's timeouts in the run (count)", color="tab:purple")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, out / "icp_tau.png")


def icp_units(res: dict[str, Outcome], out: Path, quick: bool) -> Path:
    """ICP's throughput on the 7-node topology (F and G stacked) under each reading of its unit
    and each τ, beside Table III's ICP total and our CHoPCoP's total divided by 5 and by the
    7.06 of the paper's own table."""
    from matplotlib.figure import Figure

    from .chopcop_icp import ICP_TABLE_3, icp_unit_points
    from .chopcop_rows import STEADY

    pts = icp_unit_points(res, quick)
    end = C.dur(quick)["seven"]
    chop = res["seven-node/chopcop"]
    chop_total = sum(C.goodput(chop, a, STEADY, end) for a in ("f", "g"))
    fig = Figure(figsize=(9, 4.5))
    ax = fig.add_subplot()
    x = np.arange(len(pts))
    f = [p[2][0] for p in pts]
    g = [p[2][1] for p in pts]
    ax.bar(x, f, 0.6, color="tab:green", label="F (ours)")
    ax.bar(x, g, 0.6, bottom=f, color="tab:olive", label="G (ours)")
    ax.axhline(ICP_TABLE_3[2], color="k", ls="--", lw=1, label="Table III's ICP total (13.75)")
    for div, ls in ((5, ":"), (97.06 / 13.75, "-.")):
        ax.axhline(
            chop_total / div,
            color="tab:red",
            ls=ls,
            lw=1,
            label=f"our CHoPCoP's total ÷ {div:.3g}",
        )
    ax.set_xticks(x, [f"{u}\nτ = {t} ms" for u, t, _ in pts], fontsize=7)
    ax.set(
        title="ICP on the 7-node topology: its unit of request and τ",
        xlabel="ICP's reading (unit of request, fixed timer τ)",
        ylabel=f"Throughput over [{STEADY:g}, {end:g}] s (Mbit/s)",
    )
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, out / "icp_units.png")


def figures(res: dict[str, Outcome], out: Path, quick: bool) -> list[Path]:
    figs = [
        fig5(res, out),
        fig6(res, out),
        fig8(res, out),
        fig10(res, out),
        fig11(res, out, quick),
        table3(res, out, quick),
    ]
    if not quick:
        figs.append(icp_tau(res, out, quick))
        figs.append(icp_units(res, out, quick))
    return figs
