"""The claim map's section of ``ndncc report`` (from claims/claims.csv, claims.md and the
figures beside them)."""

from __future__ import annotations

import csv
from pathlib import Path


def has_map(d: Path) -> bool:
    return (d / "claims" / "claims.csv").is_file()


def claim_sections(root: Path) -> list[tuple[str, str]]:
    """A section per claim map under `root` (itself, or one level down: ``--all``)."""
    dirs = [root] if has_map(root) else []
    dirs += sorted(d for d in root.iterdir() if d.is_dir() and has_map(d))
    return [(f"Claim map: {d.name}", claim_section(d / "claims")) for d in dirs]


def _summary(md: Path) -> list[str]:
    """claims.md's opening paragraphs (the command, the counts), as plain text."""
    try:
        lines = md.read_text(encoding="utf-8").split("\n## ")[0].splitlines()[1:]
    except OSError:
        return []
    return [x.replace("**", "").replace("`", "") for x in lines if x.strip()]


def claim_section(folder: Path) -> str:
    from ..report import _e, _figure, _png_file, _table

    with open(folder / "claims.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = [f"<p>{_e(p)}</p>" for p in _summary(folder / "claims.md")]
    out.append(
        f"<p>The unknowns, the paper's constraints and the region where every claim holds: "
        f"<code>{_e(folder / 'claims.md')}</code> (docs/unknowns.md).</p>"
    )
    cells, classes = [], []
    for r in rows:
        frac = r["fraction"]
        ci = f"{frac} [{r['ci_low']}, {r['ci_high']}]" if frac else "—"
        dep = r["most_influential"]
        if dep and dep != "none":
            dep = f"{dep} ({r['sensitivity']})"
        cells.append(
            [
                _e(r["claim"]),
                _e(f"{r['experiment']} / {r['metric']} / {r['condition']}"),
                _e(r["paper"]),
                _e(r["tolerance"]),
                _e(r["holds_at_default"]),
                _e(ci),
                _e(dep or "—"),
            ]
        )
        holds = r["holds_at_default"] == "true"
        classes.append("ok" if holds else "bad")
    header = ["#", "claim", "paper", "tolerance", "at our default", "fraction [95 % CI]"]
    out.append(_table([*header, "depends most on"], cells, left=2, classes=classes))
    figs = [(r, folder / r["figure"]) for r in rows if r["figure"]]
    if figs:
        out.append("<h3>Claims over their most influential unknowns</h3>")
        out += [
            _figure(_png_file(p), f"claim {r['claim']}: {r['metric']} / {r['condition']}")
            for r, p in figs
            if p.is_file()
        ]
    return "\n".join(out)
