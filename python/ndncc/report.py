"""``ndncc report DIR``: one self-contained HTML page for a sweep or a reproduction.

Everything is in the one file: figures are PNG embedded as base64 ``data:`` URIs, the style is
inline, there is no script and no external resource, so the page opens anywhere (a mail, an
archive, a browser without network). What it shows:

* a sweep (a result store with grid axes): provenance, each metric against the x axis with a
  95 % Student-t band over the repetitions (seeds × runs) of each point, the throughput over
  time (mean and band over repetitions), a table of every point, the failed runs;
* a reproduction (a directory with ``comparison.csv``) or several (``reproduce --all``: one
  per sub-directory): the paper's numbers beside ours, and the figures the reproduction drew.

A damaged file is never shown as if whole: a run whose record is damaged, a ``comparison.csv``
cut short or changed since the reproduction wrote it (its ``ndncc-manifest.json``), a PNG that
is not whole, a damaged ``campaign.json``. Each is named in the page, where its content would
be, with the command that recomputes it, and raises a :class:`ndncc.files.DamagedFileWarning`
(``ndncc report`` prints them and exits with 3).
"""

from __future__ import annotations

import base64
import contextlib
import csv
import html
import io
import json
import math
import re
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import files
from .experiments.common import count_text, mark, parse_verdict
from .files import DamagedFileWarning
from .labels import axis_label, line_styles
from .stats import mean_ci
from .store import (
    APP_SUMS,
    FIRST_COLUMNS,
    LAST_COLUMNS,
    TOP_FIELDS,
    Store,
    _read_json,
    load_sweep,
)

__all__ = ["build_html", "write_report"]

DEFAULT_METRICS = [
    "throughput_mbps",
    "delivery_ratio",
    "fairness_jain",
    "delay_ms_mean",
    "nacks_received",
    "drops",
]
MAX_LINES = 10  # lines per figure
MAX_SERIES_POINTS = 8  # points in the throughput-over-time figure
METRIC_COLUMNS = {
    *TOP_FIELDS,
    *APP_SUMS,
    "delivery_ratio",
    "delay_ms_mean",
    "drops",
    "marks",
    "max_queue_pkts",
    "wall_time_s",
}
CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:1100px;
color:#222;padding:0 1rem;line-height:1.4}
h1{font-size:1.6rem}h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ddd}
h3{font-size:1.1rem}
table{border-collapse:collapse;margin:.8rem 0;font-size:.85rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
tr.bad td{background:#fde8e8}tr.reported td{color:#555}p.bad{color:#b3261e}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85rem;color:#555}.meta{color:#555;font-size:.9rem}
details{margin:.6rem 0}code{background:#f5f5f5;padding:0 .2rem}
"""


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return ""
    if isinstance(x, float | np.floating):
        if math.isnan(x):
            return "—"
        return f"{x:.{digits}g}"
    return _e(x)


def _png(fig) -> str:
    """A matplotlib Figure as an <img> with a base64 data URI."""
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    w, h = (int(round(v * 100)) for v in fig.get_size_inches())
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" width="{w}" height="{h}" alt="figure">'


def _png_file(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{_e(path.stem)}">'


def _figure(img: str, caption: str) -> str:
    return f"<figure>{img}<figcaption>{_e(caption)}</figcaption></figure>"


def _table(header: list[str], rows: list[list[str]], left: int = 0, classes=None) -> str:
    """An HTML table; the first `left` columns left-aligned; cells are already HTML."""
    th = "".join(
        f'<th class="l">{h}</th>' if i < left else f"<th>{h}</th>" for i, h in enumerate(header)
    )
    body = []
    for r, row in enumerate(rows):
        cls = f' class="{classes[r]}"' if classes else ""
        tds = "".join(
            f'<td class="l">{c}</td>' if i < left else f"<td>{c}</td>" for i, c in enumerate(row)
        )
        body.append(f"<tr{cls}>{tds}</tr>")
    return f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(body)}</tbody></table>"


# ---------------------------------------------------------------------------------------------
# sweeps


def _param_columns(df: pd.DataFrame) -> list[str]:
    skip = set(FIRST_COLUMNS) | set(LAST_COLUMNS) | METRIC_COLUMNS
    return [c for c in df.columns if c not in skip and not c.startswith("apps.")]


def _is_numeric(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and values.nunique() > 1


def _sweep_config(root: Path) -> dict:
    """sweep.json (the spec of the last sweep); {} when missing, named when damaged."""
    path = root / "sweep.json"
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as e:
        cfg, why = None, f"{type(e).__name__}: {e}"
    else:
        why = "not a JSON object"
    if isinstance(cfg, dict):
        return cfg
    _damaged(
        f"{path}: damaged ({why}); the report goes without the spec's name, description and "
        "[report] table (the next sweep into the store writes it anew)"
    )
    return {}


def _order(values: pd.Series) -> list:
    """Distinct values, numbers sorted, anything else in order of appearance."""
    uniq = list(dict.fromkeys(values.tolist()))
    if pd.api.types.is_numeric_dtype(values):
        return sorted(uniq)
    return uniq


def _sorted(df: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """Rows in grid order: by each parameter's values (numbers ascending, others in order of
    appearance), then seed and run."""
    keys = {}
    for p in params:
        rank = {v: i for i, v in enumerate(_order(df[p]))}
        keys[f"__{p}"] = [rank.get(v, len(rank)) for v in df[p]]
    cols = [*keys, "seed", "run"]
    return df.assign(**keys).sort_values(cols, kind="stable").drop(columns=list(keys))


def _metric_figure(ok: pd.DataFrame, metric: str, x: str, others: list[str]) -> str:
    return _png(_metric_plot(ok, metric, x, others))


def _metric_plot(ok: pd.DataFrame, metric: str, x: str, others: list[str]):
    """The figure of one metric against the x axis, a line per value of the other axes."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 3.8))
    ax = fig.add_subplot()
    xs = _order(ok[x])
    numeric = _is_numeric(ok[x])
    pos = {v: (float(v) if numeric else i) for i, v in enumerate(xs)}
    groups = list(ok.groupby(others, sort=False, dropna=False)) if others else [((), ok)]
    styles = line_styles(min(len(groups), MAX_LINES))
    for (name, g), style in zip(groups[:MAX_LINES], styles, strict=True):
        px, m, lo, hi = [], [], [], []
        for v in xs:
            n, mean, half = mean_ci(g.loc[g[x] == v, metric])
            if n == 0:
                continue
            half = 0.0 if math.isnan(half) else half
            px.append(pos[v])
            m.append(mean)
            lo.append(mean - half)
            hi.append(mean + half)
        name = name if isinstance(name, tuple) else (name,)
        label = ", ".join(f"{k}={v}" for k, v in zip(others, name, strict=True)) or metric
        (line,) = ax.plot(px, m, ms=4, lw=1.3, label=label, **style)
        ax.fill_between(px, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(v) for v in xs], rotation=15, fontsize=8)
    ax.set(xlabel=axis_label(x), ylabel=axis_label(metric))
    ax.grid(alpha=0.3)
    if len(groups) > 1 or others:
        ax.legend(fontsize=7, loc="best")
    return fig


def _series_figure(root: Path, ok: pd.DataFrame, params: list[str]) -> str | None:
    fig = _series_plot(root, ok, params)
    return None if fig is None else _png(fig)


def _series_plot(root: Path, ok: pd.DataFrame, params: list[str]):
    """Total throughput over time: mean over the repetitions of each point, with its band."""
    from matplotlib.figure import Figure

    points = list(dict.fromkeys(ok["point"].tolist()))[:MAX_SERIES_POINTS]
    fig = Figure(figsize=(7.5, 3.8))
    ax = fig.add_subplot()
    drawn = 0
    styles = line_styles(len(points))
    for pid, style in zip(points, styles, strict=True):
        rows = ok[ok["point"] == pid]
        runs = []
        for key in rows["key"]:
            path = root / "runs" / key / "app_series.parquet"
            if not path.is_file():
                continue
            try:
                problem = Store(root).check_run(key, [path.name])
                if problem is None:
                    s = pd.read_parquet(path, columns=["time_s", "throughput_mbps"])
            except Exception as e:  # noqa: BLE001 - pyarrow raises several types
                problem = f"{path}: unreadable ({type(e).__name__}: {e})"
            if problem:
                _damaged(
                    f"{problem}; left out of the throughput figure (remove {path.parent} and "
                    "run the sweep again to recompute it)"
                )
                continue
            runs.append(s.groupby("time_s")["throughput_mbps"].sum())
        if not runs:
            continue
        table = pd.concat(runs, axis=1)
        t = table.index.to_numpy(dtype=float)
        stats = [mean_ci(table.iloc[i].to_numpy()) for i in range(len(table))]
        m = np.array([s[1] for s in stats])
        h = np.nan_to_num(np.array([s[2] for s in stats]))
        first = rows.iloc[0]
        label = ", ".join(f"{p}={first[p]}" for p in params) or str(pid)
        (line,) = ax.plot(
            t,
            m,
            lw=1.1,
            label=f"{label} (n={len(runs)})",
            color=style["color"],
            linestyle=style["linestyle"],
            marker=style["marker"],
            markevery=max(1, len(t) // 8),
            ms=4,
        )
        ax.fill_between(t, m - h, m + h, color=line.get_color(), alpha=0.15, lw=0)
        drawn += 1
    if not drawn:
        return None
    ax.set(xlabel="Time (s)", ylabel=axis_label("throughput_mbps"))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return fig


def _campaign_info(root: Path) -> dict:
    """campaign.json of a store; {} when missing or damaged (``load_sweep``, which the sweep
    section reads first, names a damaged one)."""
    return _read_json(root / "campaign.json") or {}


def _damaged(text: str) -> None:
    warnings.warn(text, DamagedFileWarning, stacklevel=3)


def _sweep_section(root: Path) -> str:
    df = load_sweep(root)
    info = _campaign_info(root)
    cfg = _sweep_config(root)
    spec = cfg.get("spec") or {}
    sweep = spec.get("sweep") or {}
    report_cfg = spec.get("report") or {}
    params = _param_columns(df)
    df = _sorted(df, params)
    ok = df[df["status"] == "ok"]
    failed = df[df["status"] == "failed"]
    damaged = df[df["status"] == "damaged"]
    out = []
    versions = sorted({str(v) for v in df.get("ndncc_version", pd.Series(dtype=str)).dropna()})
    commits = sorted({str(v) for v in df.get("git_commit", pd.Series(dtype=str)).dropna()})
    seeds = sorted({int(s) for s in ok["seed"].dropna()}) if len(ok) else []
    meta = [
        f"{len(df)} runs: {len(ok)} finished, {len(failed)} failed"
        + (f", {len(damaged)} damaged" if len(damaged) else ""),
        f"{ok['point'].nunique() if len(ok) else 0} points",
        f"seeds {seeds[0]}–{seeds[-1]} ({len(seeds)} distinct)" if seeds else "no seeds",
        f"ndncc {', '.join(versions) or '?'}",
        f"commit {', '.join(commits) or '?'}",
    ]
    if info.get("created"):
        meta.append(f"store created {info['created']}")
    out.append(f'<p class="meta">{_e(" · ".join(meta))}</p>')
    if sweep.get("description"):
        out.append(f"<p>{_e(sweep['description'])}</p>")
    if cfg.get("source"):
        out.append(f'<p class="meta">spec: <code>{_e(cfg["source"])}</code></p>')
    if len(damaged):
        out.append("<h3>Damaged runs</h3>")
        out.append(
            '<p class="meta">Their records cannot be read: they are left out of every figure '
            "and table below. The next sweep into this store recomputes them.</p>"
        )
        out.append(
            _table(
                ["run", "problem"],
                [[_e(k), _e(e)] for k, e in zip(damaged["key"], damaged["error"], strict=True)],
                left=2,
            )
        )
    if not params or not len(ok):
        return "\n".join(out)
    wanted = report_cfg.get("metrics") or DEFAULT_METRICS
    metrics = [m for m in wanted if m in ok.columns and ok[m].notna().any()]
    x = report_cfg.get("x") if report_cfg.get("x") in params else None
    if x is None:
        x = next((p for p in params if _is_numeric(ok[p])), params[0])
    others = [p for p in params if p != x]
    out.append("<h3>Metrics against " + _e(axis_label(x)) + "</h3>")
    out.append(
        '<p class="meta">Lines are means over the repetitions (seeds × runs) of each point; '
        "bands are 95 % Student-t confidence intervals of the mean (half-width "
        "t<sub>0.975, n−1</sub>·s/√n).</p>"
    )
    n_lines = ok.groupby(others, dropna=False).ngroups if others else 1
    if n_lines > MAX_LINES:
        out.append(f'<p class="meta">First {MAX_LINES} of {n_lines} lines shown.</p>')
    for m in metrics:
        out.append(
            _figure(_metric_figure(ok, m, x, others), f"{axis_label(m)} against {axis_label(x)}")
        )
    series = _series_figure(root, ok, params)
    if series is not None:
        out.append("<h3>Throughput over time</h3>")
        out.append(_figure(series, "mean over repetitions, 95 % band"))
    out.append("<h3>Every point</h3>")
    header = [_e(p) for p in params] + ["n"] + [f"{_e(m)} (mean ± 95 % CI)" for m in metrics]
    rows = []
    for _, g in ok.groupby("point", sort=False):
        first = g.iloc[0]
        cells = [_e(first[p]) for p in params] + [str(len(g))]
        for m in metrics:
            n, mean, half = mean_ci(g[m])
            cells.append(f"{_num(mean)} ± {_num(half, 3)}" if n > 1 else _num(mean))
        rows.append(cells)
    out.append(_table(header, rows, left=len(params)))
    if len(failed):
        out.append("<h3>Failed runs</h3>")
        frows = [
            [_e(r.get(p)) for p in params]
            + [_e(r.get("seed")), _e(r.get("run")), _e(r.get("error"))]
            for _, r in failed.iterrows()
        ]
        out.append(_table([*map(_e, params), "seed", "run", "error"], frows, left=len(params) + 3))
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# reproductions


def _title(d: Path) -> str:
    """The reproduction's title: the first line of its report.md (named when damaged)."""
    path = d / "report.md"
    try:
        manifest = files.read_manifest(d)
    except ValueError:
        manifest = None  # named with the section
    problem = files.check_file(d, path.name, manifest) if path.exists() else None
    if problem is None:
        try:
            first = path.read_text(encoding="utf-8").splitlines()[0]
            if first.startswith("# "):
                return first[2:].strip()
        except (OSError, IndexError):
            pass
        except UnicodeDecodeError as e:
            problem = f"{path}: damaged ({e})"
    if problem:
        _damaged(f"{problem}; the section goes by the folder's name")
    return d.name


#: The row class of each verdict: within, outside, only reported.
_ROW_CLASS = {True: "ok", False: "bad", None: "reported"}


def _repair_hint(d: Path, manifest: dict | None) -> str:
    """The command that writes a reproduction's files again from its stored runs."""
    command = (manifest or {}).get("command")
    if not command:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            found = re.search(r"`(ndncc reproduce [^`]+)`", (d / "report.md").read_text("utf-8"))
            command = found.group(1) if found else None
    command = command or "ndncc reproduce PAPER (with the flags it was made with)"
    return f"`{command} --out {d}` writes it again from the stored runs (none is run again)"


def _comparison(d: Path, manifest: dict | None) -> list[dict] | str:
    """The rows of d/comparison.csv, or why they cannot be trusted: a file that differs from
    the one the reproduction wrote (its manifest), or one cut short or altered (a header or a
    row not of the columns written, a verdict not one of those written, no final newline)."""
    from .experiments.common import COMPARISON_COLUMNS

    path = d / "comparison.csv"
    problem = files.check_file(d, "comparison.csv", manifest)
    if problem:
        return problem
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return f"{path}: unreadable ({e})"
    table = list(csv.reader(io.StringIO(text, newline="")))
    if not table or table[0] != COMPARISON_COLUMNS:
        return f"{path}: damaged (not the header ndncc writes)"
    if not text.endswith("\n"):
        return f"{path}: truncated (its last line is cut short)"
    for i, row in enumerate(table[1:], 2):
        if len(row) != len(COMPARISON_COLUMNS):
            return f"{path}: damaged at line {i} (not a row of the columns ndncc writes)"
        try:
            parse_verdict(row[-1])
        except ValueError as e:
            return f"{path}: damaged at line {i} ({e})"
    return [dict(zip(COMPARISON_COLUMNS, row, strict=True)) for row in table[1:]]


def _figure_problem(d: Path, png: Path, manifest: dict | None) -> str | None:
    problem = files.check_file(d, png.name, manifest)
    if problem:
        return problem
    why = files.png_problem(png)
    return f"{png}: {why}" if why else None


def _reproduction_section(d: Path) -> str:
    try:
        manifest = files.read_manifest(d)
    except ValueError as e:
        _damaged(str(e))
        manifest = None
    rows = _comparison(d, manifest)
    if isinstance(rows, str):
        text = f"{rows}; {_repair_hint(d, manifest)}"
        _damaged(text)
        return f'<p class="bad"><strong>Damaged:</strong> {_e(text)}</p>'
    verdicts = [parse_verdict(r["within"]) for r in rows]  # checked by _comparison
    out = [
        f"<p><strong>{_e(count_text(verdicts))}.</strong> "
        "Rows whose tolerance says <em>goal</em> are targets, not requirements; "
        "rows marked — are only reported.</p>"
    ]
    for exp in dict.fromkeys(r["experiment"] for r in rows):
        sub = [(r, v) for r, v in zip(rows, verdicts, strict=True) if r["experiment"] == exp]
        cells = [
            [
                _e(r["metric"]),
                _e(r["condition"]),
                _e(r["paper"]),
                _e(r["ours"]),
                _e(r["unit"]),
                _e(r["tolerance"]),
                f'<span class="v">{mark(v)}</span>',
            ]
            for r, v in sub
        ]
        classes = [_ROW_CLASS[v] for _, v in sub]
        out.append(f"<h3>{_e(exp)}</h3>")
        header = ["metric", "condition", "paper", "ours", "unit", "tolerance", "within"]
        out.append(_table(header, cells, left=2, classes=classes))
    pngs = sorted(d.glob("*.png"))
    if manifest is not None:  # a PNG the reproduction did not draw is not shown as its figure
        pngs = [p for p in pngs if p.name in manifest["files"]]
    if pngs:
        out.append("<h3>Figures</h3>")
    for p in pngs:
        problem = _figure_problem(d, p, manifest)
        if problem is None:
            out.append(_figure(_png_file(p), p.stem))
            continue
        text = f"{problem}; {_repair_hint(d, manifest)}"
        _damaged(text)
        out.append(f'<p class="bad"><strong>Figure not shown:</strong> {_e(text)}</p>')
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# the page


def build_html(src: str | Path) -> str:
    """The report of a sweep's or a reproduction's directory as one HTML string."""
    root = Path(src)
    sections: list[tuple[str, str]] = []
    repro = [root] if (root / "comparison.csv").is_file() else []
    repro += sorted(d for d in root.iterdir() if d.is_dir() and (d / "comparison.csv").is_file())
    store = Store(root)
    from .claims.html import claim_sections, has_map

    has_grid = store.exists() and not repro and not has_map(root)
    if has_grid:
        title = (_sweep_config(root).get("spec") or {}).get("sweep", {}).get("name", root.name)
        sections.append((f"Sweep {title}", _sweep_section(root)))
    for d in repro:
        sections.append((_title(d), _reproduction_section(d)))
    sections += claim_sections(root)
    if not sections:
        raise FileNotFoundError(
            f"{root}: nothing to report (no result store with runs/, no comparison.csv); "
            "give the --out of 'ndncc sweep' or 'ndncc reproduce'"
        )
    from . import __version__

    page_title = sections[0][0] if len(sections) == 1 else f"ndncc reproductions: {root.name}"
    toc = ""
    if len(sections) > 1:
        items = "".join(
            f'<li><a href="#s{i}">{_e(t)}</a></li>' for i, (t, _) in enumerate(sections)
        )
        toc = f"<ul>{items}</ul>"
    body = "\n".join(
        f'<section id="s{i}">{f"<h2>{_e(t)}</h2>" if len(sections) > 1 else ""}\n{b}</section>'
        for i, (t, b) in enumerate(sections)
    )
    made = time.strftime("%Y-%m-%d %H:%M")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{_e(page_title)}</title><style>{CSS}</style></head><body>\n"
        f"<h1>{_e(page_title)}</h1>\n"
        f'<p class="meta">Written by ndncc {_e(__version__)} on {_e(made)} from '
        f"<code>{_e(root)}</code>.</p>\n{toc}\n{body}\n</body></html>\n"
    )


def write_report(src: str | Path, out: str | Path | None = None) -> Path:
    """Writes the report (default ``SRC/report.html``) and returns its path."""
    path = Path(out) if out is not None else Path(src) / "report.html"
    text = build_html(src)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
