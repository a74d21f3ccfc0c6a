"""Seed 004's figures (Fig. 4-17 of the paper): total throughput vs time, mean delay per
consumer, delay boxplots, Jain index, loss rate vs time, and R1's per-interface throughput vs
time, for every scheme run in every scenario."""

from __future__ import annotations

from pathlib import Path
from statistics import mean

from .common import save_figure
from .sieve import (
    SCENARIOS,
    delays_ms,
    jain_index,
    key,
    loss_series,
    r1_face_ids,
    r1_faces,
    total_series,
    variants,
)

# the paper's figure numbers per scenario: throughput, delay, boxplot, loss, R1's faces
FIGS = {
    "dumbbell": ("fig4", "fig5", "fig6", "fig7", None),
    "multipath 1": ("fig8", "fig10", "fig11", "fig12", "fig9"),
    "multipath 2": ("fig13", "fig15", "fig16", "fig17", "fig14"),
}


def slug(scen: str) -> str:
    return scen.replace(" ", "")


def draw(res: dict, out: Path) -> list[Path]:
    from matplotlib.figure import Figure

    labels = list(variants())
    paths = []
    for scen in SCENARIOS:
        f_tp, f_delay, f_box, f_loss, f_faces = FIGS[scen]
        fig = Figure(figsize=(8, 4))
        ax = fig.add_subplot()
        for label in labels:
            t = total_series(res[key(scen, label)])
            ax.plot(t.index, t.values, lw=0.9, label=label)
        ax.axhline(10, color="black", ls=":", lw=1)
        ax.set(xlabel="Time (s)", ylabel="Total throughput (Mbit/s)", ylim=(0, None),
               title=f"{scen}: total throughput of the consumers (100 ms bins)")  # fmt: skip
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        paths.append(save_figure(fig, out / f"{f_tp}_{slug(scen)}_throughput.png"))

        fig = Figure(figsize=(8, 4))
        ax = fig.add_subplot()
        width = 0.8 / len(labels)
        apps = sorted(delays_ms(res[key(scen, labels[0])]))
        for i, label in enumerate(labels):
            d = delays_ms(res[key(scen, label)])
            ys = [mean(d[a]) if d.get(a) else float("nan") for a in apps]
            ax.bar([j + i * width for j in range(len(apps))], ys, width, label=label)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(apps))], apps)
        ax.set(xlabel="Consumer", ylabel="Mean delay (ms)",
               title=f"{scen}: mean delay (first Interest → Data) per consumer")  # fmt: skip
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
        paths.append(save_figure(fig, out / f"{f_delay}_{slug(scen)}_delay.png"))

        fig = Figure(figsize=(8, 2.6 * len(apps)))
        for j, a in enumerate(apps):
            ax = fig.add_subplot(len(apps), 1, j + 1)
            data = [delays_ms(res[key(scen, label)]).get(a, []) for label in labels]
            ax.boxplot(data, showfliers=False)
            ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=6)
            ax.set(ylabel="Delay (ms)", title=f"{scen}: delay of {a}")
            ax.grid(alpha=0.3, axis="y")
        paths.append(save_figure(fig, out / f"{f_box}_{slug(scen)}_delay_boxplot.png"))

        fig = Figure(figsize=(8, 3.5))
        ax = fig.add_subplot()
        for label in labels:
            s = loss_series(res[key(scen, label)])
            ax.plot(s.index, s.values, lw=0.9, label=label)
        ax.set(xlabel="Time (s)", ylabel="Loss rate (Mbit/s overflowed)", ylim=(0, None),
               title=f"{scen}: bytes overflowing the queues (100 ms bins)")  # fmt: skip
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        paths.append(save_figure(fig, out / f"{f_loss}_{slug(scen)}_loss.png"))

        if f_faces:
            fig = Figure(figsize=(8, 2.4 * len(labels)))
            for j, label in enumerate(labels):
                o = res[key(scen, label)]
                p, ids = r1_faces(o), r1_face_ids(o)
                ax = fig.add_subplot(len(labels), 1, j + 1)
                for peer in ("R2", "R3"):
                    name = f"face {ids.get(peer, '?')} (R1–{peer})"
                    ax.plot(p.index, p[peer], lw=0.9, label=name)
                ax.set(ylabel="Data in (Mbit/s)", title=f"{scen}, {label}: R1's interfaces",
                       ylim=(0, 11))  # fmt: skip
                ax.grid(alpha=0.3)
                ax.legend(fontsize=7, loc="upper right")
            ax.set_xlabel("Time (s)")
            paths.append(save_figure(fig, out / f"{f_faces}_{slug(scen)}_r1_faces.png"))

    fig = Figure(figsize=(8, 3.5))
    ax = fig.add_subplot()
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        ys = [jain_index(res[key(s, label)]) for s in SCENARIOS]
        ax.bar([j + i * width for j in range(len(SCENARIOS))], ys, width, label=label)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(SCENARIOS))], list(SCENARIOS))
    ax.set(xlabel="Scenario", ylabel="Jain fairness index (unitless)", ylim=(0, 1.05),
           title="Jain fairness index of the consumers' throughput (Tables 5, 7)")  # fmt: skip
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    paths.append(save_figure(fig, out / "table5_7_jain.png"))
    return paths
