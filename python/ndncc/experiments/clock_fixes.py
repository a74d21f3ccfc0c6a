"""Beyond the seeds: which fix for coarse clocks works best, and at what cost in bursts.

Stateful Forwarding (seed 002: the linear topology, and the one-pair dumbbell at depth 50) and
MIRCC (seed 000's dumbbell) run on coarse clocks of period Δ with every engine:

* `tick(Δ)`: the papers' coarse clock;
* `tick(Δ) + smoothing`: the papers' fix (release on Data/Nack arrival);
* `rfc3448` and `rfc3448-burst` sleeping on a granular(Δ) clock (seed 003's send loops);
* `rmc` (kr = 1, Ts = Δ) on the same clock;

beside the ideal engine. For each: the goodput (Data delivered per second of sending, in Mbps),
the loss rate (1 − delivered / sent), and the burst cost — the most Interests an engine released
at one instant. The best fix is the one with the highest goodput.
"""

from __future__ import annotations

from pathlib import Path

from ..sweep import Job, Outcome
from .common import Row, goodput, save_figure, scenario_root

PAPER = "clock-fixes"
TITLE = "Fixes for coarse clocks: tick, smoothing, RFC 3448, RMC (seeds 000, 002, 003)"
ENGINES = ["ideal", "tick", "tick+smoothing", "rfc3448", "rfc3448-burst", "rmc"]
# (case, scenario file, consumers, coarse clock periods in ms, sending time in s)
CASES = [
    ("SF linear", "sf-clock/linear.toml", ["consumer"], [50, 100, 200], 10.0),
    ("SF dumbbell, 1 pair, depth 50", "sf-clock/dumbbell-1.toml", ["c1"], [5, 10], 10.0),
    # C1 sends for 9 s, C2 for 5 s: goodput over C1's 9 s
    ("MIRCC dumbbell", "mircc-clock/dumbbell.toml", ["c1", "c2"], [500, 750], 9.0),
]


def key(case: str, delta: int, engine: str) -> str:
    return f"{case}/Δ = {delta} ms/{engine}"


def overrides(consumers: list[str], engine: str, delta: int, mircc: bool) -> dict:
    """Dotted-path overrides putting every consumer on `engine` with a Δ-ms clock."""
    ov: dict = {}
    if mircc:
        ov["defaults.node.schemes.mircc.interval"] = f"{delta}ms"
    for c in consumers:
        a = f"apps[{c}]."
        for k in ("tick", "smoothing", "clock", "clock_granularity", "kr", "period", "granularity"):
            ov[a + k] = None
        if engine in ("tick", "tick+smoothing"):
            ov[a + "engine"] = "tick"
            ov[a + "tick"] = f"{delta}ms"
            ov[a + "smoothing"] = engine == "tick+smoothing"
        else:
            ov[a + "engine"] = engine
            if engine != "ideal":
                ov[a + "clock"] = "granular"
                ov[a + "clock_granularity"] = f"{delta}ms"
            if engine == "rmc":
                ov[a + "kr"] = 1.0
                ov[a + "period"] = f"{delta}ms"
    return ov


def jobs(quick: bool) -> list[Job]:
    root = scenario_root()
    out = []
    for case, path, consumers, deltas, _ in CASES:
        mircc = "mircc" in path
        for delta in deltas_for(deltas, quick):
            for engine in ENGINES:
                out.append(
                    Job(
                        key(case, delta, engine),
                        str(root / path),
                        overrides(consumers, engine, delta, mircc),
                    )
                )
    return out


def loss(o: Outcome) -> float:
    apps = o.summary["apps"]
    sent = sum(a["interests_sent"] for a in apps)
    return 1 - sum(a["data_received"] for a in apps) / sent if sent else float("nan")


def burst(o: Outcome) -> int:
    return max(a["max_burst"] for a in o.summary["apps"])


def deltas_for(deltas: list[int], quick: bool) -> list[int]:
    return deltas[:1] if quick else deltas


def compare(res: dict[str, Outcome], quick: bool) -> list[Row]:
    rows = []
    for case, _, _, deltas, seconds in CASES:
        for delta in deltas_for(deltas, quick):
            vals = {e: goodput(res[key(case, delta, e)], seconds) for e in ENGINES}
            for e in ENGINES:
                o = res[key(case, delta, e)]
                rows.append(
                    Row(
                        case,
                        "goodput, loss, max burst",
                        f"Δ = {delta} ms, {e}",
                        "—",
                        [vals[e], loss(o), burst(o)],
                        "Mbps / ratio / Interests",
                        "reported",
                        True,
                    )
                )
            fixes = [e for e in ENGINES if e != "ideal"]
            best = max(fixes, key=lambda e: vals[e])
            rows.append(
                Row(
                    case,
                    "best fix (highest goodput)",
                    f"Δ = {delta} ms",
                    "smoothing (seeds 000, 002)",
                    best,
                    "engine",
                    "reported",
                    True,
                )
            )
    return rows


def figures(res: dict[str, Outcome], out: Path, quick: bool) -> list[Path]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4))
    for i, (case, _, _, deltas, seconds) in enumerate(CASES):
        ax = fig.add_subplot(1, len(CASES), i + 1)
        shown = deltas_for(deltas, quick)
        width = 0.8 / len(ENGINES)
        for k, e in enumerate(ENGINES):
            ys = [goodput(res[key(case, d, e)], seconds) for d in shown]
            xs = [j + (k - (len(ENGINES) - 1) / 2) * width for j in range(len(shown))]
            ax.bar(xs, ys, width, label=e)
        ax.set_xticks(range(len(shown)), [f"{d} ms" for d in shown])
        ax.set(xlabel="Clock period Δ", ylabel="Goodput (Mbps)", title=case)
        ax.grid(axis="y", alpha=0.3)
        if i == 0:
            ax.legend(fontsize=7)
    fig.suptitle("Fixes for coarse clocks: goodput per engine")
    return [save_figure(fig, out / "clock_fixes.png")]


def report_sections(res: dict[str, Outcome], quick: bool) -> list[tuple[str, str]]:
    sections = []
    for case, _, _, deltas, seconds in CASES:
        head = "| Δ | " + " | ".join(ENGINES) + " |\n|---|" + "---|" * len(ENGINES) + "\n"
        lines = []
        for d in deltas_for(deltas, quick):
            cells = []
            for e in ENGINES:
                o = res[key(case, d, e)]
                cells.append(f"{goodput(o, seconds):.3g} / {loss(o):.2f} / {burst(o)}")
            lines.append(f"| {d} ms | " + " | ".join(cells) + " |")
        sections.append(
            (
                f"{case}: goodput (Mbps) / loss / max burst (Interests)",
                head + "\n".join(lines) + "\n",
            )
        )
    return sections
