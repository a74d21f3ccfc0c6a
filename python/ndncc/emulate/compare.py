"""The ``sim-vs-real`` report: the simulator runs the same scenario (OUT/sim) and each
consumer's figures are shown beside the real run's, with the relative difference
(real − sim) / sim. Files: ``sim-vs-real.md``, ``sim-vs-real.csv`` and ``sim-vs-real.png``
(throughput over time, both runs, in the report's bins)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd

# (label, unit, key in the sim summary, key in the real summary)
METRICS = [
    ("throughput (Data × scenario size)", "Mbit/s", "throughput_mbps", "throughput_model_mbps"),
    ("throughput (wire bytes)", "Mbit/s", "throughput_mbps", "throughput_mbps"),
    ("Data received", "count", "data_received", "data_received"),
    ("Interests sent", "count", "interests_sent", "interests_sent"),
    ("Nacks received", "count", "nacks_received", "nacks_received"),
    ("timeouts", "count", "timeouts", "timeouts"),
]


def relative(sim: float | None, real: float | None) -> float | None:
    if sim is None or real is None or sim == 0:
        return None
    return (real - sim) / sim


def rows(sim: dict, real: dict) -> list[dict]:
    """One row per (consumer, metric)."""
    by_name = {a["name"]: a for a in real["apps"]}
    out = []
    for a in sim["apps"]:
        r = by_name.get(a["name"])
        if r is None:
            continue
        for label, unit, ks, kr in METRICS:
            s, x = a.get(ks), r.get(kr)
            out.append(
                {
                    "app": a["name"],
                    "metric": label,
                    "unit": unit,
                    "sim": s,
                    "real": x,
                    "relative_difference": relative(s, x),
                }
            )
    return out


def face_rows(sim: dict, real: dict) -> list[dict]:
    """Per face (``node → peer``; "app" for apps' faces, summed per node): the queue drops
    and marks of both runs, the faces where either run dropped or marked, then the totals.
    Parallel links between two nodes are summed."""

    def totals(summary: dict) -> dict[tuple[str, str], dict]:
        out: dict[tuple[str, str], dict] = {}
        for f in summary.get("faces") or []:
            key = (f["node"], f.get("peer") or "app")
            t = out.setdefault(key, {"drops": 0, "drop_bytes": 0, "marks": 0})
            for k in t:
                t[k] += int(f.get(k) or 0)
        return out

    s, r = totals(sim), totals(real)
    rows_ = []
    for key in sorted(set(s) | set(r)):
        a, b = s.get(key, {}), r.get(key, {})
        if any(a.values()) or any(b.values()):
            rows_.append(
                {
                    "face": f"{key[0]} → {key[1]}",
                    "sim_drops": a.get("drops"),
                    "real_drops": b.get("drops"),
                    "sim_marks": a.get("marks"),
                    "real_marks": b.get("marks"),
                }
            )
    rows_.append(
        {
            "face": "all faces",
            "sim_drops": sum(t["drops"] for t in s.values()),
            "real_drops": sum(t["drops"] for t in r.values()),
            "sim_marks": sum(t["marks"] for t in s.values()),
            "real_marks": sum(t["marks"] for t in r.values()),
        }
    )
    return rows_


def _binned(df: pd.DataFrame, app: str, width: float, end: float, col: str) -> np.ndarray:
    """Mbit/s of ``col`` bytes of one app's rows in bins of ``width`` s up to ``end``."""
    d = df[df["app_name"] == app]
    edges = np.arange(0.0, end + width / 2, width)
    # a row's time_s is its bin's end: its bytes belong just before it
    idx = np.clip(np.floor((d["time_s"].to_numpy() - 1e-9) / width).astype(int), 0, None)
    sums = np.bincount(idx, weights=d[col].to_numpy(dtype=float), minlength=len(edges))
    return sums[: len(edges) - 1] * 8.0 / width / 1e6


def plot(
    sim_series: pd.DataFrame,
    real_series: pd.DataFrame,
    sim: dict,
    real: dict,
    path: Path,
    width: float,
) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    end = real["duration_s"]
    fig, ax = plt.subplots(figsize=(8, 4))
    t = np.arange(0.0, end, width) + width / 2
    for a in sim["apps"]:
        name = a["name"]
        ys = _binned(sim_series, name, width, end, "data_bytes")
        yr = _binned(real_series, name, width, end, "data_bytes")
        n = min(len(t), len(ys), len(yr))
        ax.plot(t[:n], ys[:n], label=f"{name}: simulator", lw=1.2)
        ax.plot(t[:n], yr[:n], label=f"{name}: real ({real['mode']})", lw=1.2, ls="--")
    if sim.get("capacity_mbps"):  # the bottleneck the simulated run's Data crossed
        ax.axhline(sim["capacity_mbps"], color="grey", lw=0.8, ls=":", label="bottleneck")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"Data throughput (Mbit/s, {width * 1e3:g} ms bins)")
    ax.set_title(f"{real['scenario']}: simulator vs real")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _fmt(v, float_spec: str = ".4g") -> str:
    """A count or a figure (floats by ``float_spec``); "—" when not measured."""
    if v is None:
        return "—"
    if isinstance(v, float):
        return format(v, float_spec)
    return str(v)


def _percent(rel: float | None) -> str:
    """A relative difference as a signed percentage, "—" when there is none."""
    return "—" if rel is None else f"{rel * 100:+.1f} %"


def _lags(real: dict) -> str:
    """Each consumer's start lag behind the first one's schedule, ms ("—" when unmeasured)."""
    lags = real.get("consumer_start_lag_s")
    if not lags:
        return "—"
    return ", ".join(f"{name} {lag * 1e3:.1f} ms" for name, lag in sorted(lags.items()))


def markdown(table: list[dict], sim: dict, real: dict) -> str:
    lines = [
        f"# {real['scenario']}: simulator vs real (`ndncc emulate`)",
        "",
        f"* real run: mode **{real['mode']}** ({real['mode_reason']}), "
        f"wall time {real['wall_time_s']} s, load average before "
        f"{real['load_average_before']}, after {real['load_average_after']} "
        f"({real['cpu_count']} CPUs)",
        f"* scenario: `{real['source']}`, hash `{real['scenario_hash'][:12]}`, commit "
        f"`{real.get('git_commit')}`",
        f"* consumers' start lag (real; the simulator's is 0): {_lags(real)}",
        '* relative difference = (real − sim) / sim; "Data × scenario size" counts each Data '
        'at the scenario\'s size (payload + data_overhead) in both runs, "wire bytes" counts '
        "the real Data's NDN wire size (name, MetaInfo, signature) against the simulator's "
        "modelled size.",
        "",
        "| app | metric | unit | simulator | real | relative difference |",
        "|---|---|---|---:|---:|---:|",
    ]
    for r in table:
        lines.append(
            f"| {r['app']} | {r['metric']} | {r['unit']} | {_fmt(r['sim'])} | "
            f"{_fmt(r['real'])} | {_percent(r['relative_difference'])} |"
        )
    lines += [
        "",
        "## Queue drops and marks per face",
        "",
        "Packets each face's transmit queue dropped (overflow or the scheme's queue discipline; "
        "the real run's are ndnccd's emulated queues) and Data it marked, where either run "
        "dropped or marked any (counts).",
        "",
        "| face | drops, simulator | drops, real | marks, simulator | marks, real |",
        "|---|---:|---:|---:|---:|",
    ]
    for f in face_rows(sim, real):
        lines.append(
            f"| {f['face']} | {_fmt(f['sim_drops'])} | {_fmt(f['real_drops'])} | "
            f"{_fmt(f['sim_marks'])} | {_fmt(f['real_marks'])} |"
        )
    lines.append("")
    return "\n".join(lines)


def compare(sc, real: dict, out: Path, *, plot_bin_s: float = 0.1) -> list[dict]:
    """Runs the simulator on ``sc`` into ``out/sim`` and writes the report files into ``out``;
    returns the table rows."""
    from ..runner import run

    sim_result = run(sc, out=out / "sim", force=True)  # emulate's own sub-folder
    sim = sim_result.summary
    table = rows(sim, real)
    (out / "sim-vs-real.md").write_text(markdown(table, sim, real), encoding="utf-8")
    with open(out / "sim-vs-real.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]) if table else ["app"])
        w.writeheader()
        w.writerows(table)
    real_series = pd.read_parquet(out / "real" / "app_series.parquet")
    plot(sim_result.series, real_series, sim, real, out / "sim-vs-real.png", plot_bin_s)
    (out / "sim-vs-real.json").write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    return table


def print_table(table: list[dict], out: Path) -> None:
    from rich.table import Table

    from ..cli import _console

    t = Table(title="simulator vs real")
    for col in ("app", "metric", "unit", "simulator", "real", "rel. diff"):
        t.add_column(col, justify="left" if col in ("app", "metric", "unit") else "right")
    for r in table:
        t.add_row(
            r["app"],
            r["metric"],
            r["unit"],
            _fmt(r["sim"]),
            _fmt(r["real"]),
            _percent(r["relative_difference"]),
        )
    c = _console()
    c.print(t)
    c.print(f"report: {out / 'sim-vs-real.md'} (.csv, .png)", markup=False)
