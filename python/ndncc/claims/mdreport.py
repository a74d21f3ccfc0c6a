"""claims.md: the claim map of one paper as Markdown (what ``docs/unknowns.md`` explains)."""

from __future__ import annotations

from .unknowns import MapPoint


def _cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _box(points: list[MapPoint], decl) -> str:
    rows = ["| unknown | range declared | range over these points |", "|---|---|---|"]
    for u in decl.unknowns:
        vals = [p.values[u.name] for p in points]
        if u.finite:
            got = "{" + ", ".join(str(v) for v in u.levels if v in vals) + "}"
        else:
            got = f"[{min(vals):g}, {max(vals):g}] {u.unit}".rstrip()
        rows.append(f"| {u.name} | {_cell(u.describe_range())} | {got} |")
    return "\n".join(rows)


def markdown(m, cm, figure_names: dict[int, str]) -> str:
    d = m.decl
    counts = cm.counts
    n_design = len(m.points) - 1
    lines = [
        f"# Claim map: {m.paper}",
        "",
        f"`ndncc reproduce {m.paper} --unknowns --points {m.requested_points} --seeds {m.seeds}"
        f"{' --quick' if m.quick else ''}`: {n_design} design points "
        f"({'full grid' if n_design < m.requested_points else 'Latin hypercube'}, design seed "
        f"{m.design_seed}) and our default, × {m.seeds} seed(s): {m.runs} distinct runs "
        f"({m.runs_done_now} run now), {len(cm.evaluated_points)} points evaluated; "
        f"{m.wall_s:.1f} s wall.",
        "",
        f"**{counts['claims']} claims** (rows of comparison.csv that can fail): "
        f"**{counts['at_default']} hold at our default, {counts['somewhere']} hold somewhere "
        f"in the region, {counts['nowhere']} hold nowhere.**",
        "",
        "`fraction`: share of the region where the claim holds (mean over design points of "
        "the share of seeds); the interval is the 95 % Wilson score interval over the "
        "evaluated (point, seed) pairs. `depends most on`: the unknown whose upper half of "
        "its range (on its sampling scale) changes the hold rate most against its lower half "
        "(the signed difference; a finite set: largest minus smallest rate over its levels). "
        "See `docs/unknowns.md`.",
        "",
        "## Unknowns",
        "",
        "| unknown | scenario keys | region | our default | why unknown | note |",
        "|---|---|---|---|---|---|",
    ]
    for u in d.unknowns:
        keys = "<br>".join(f"`{k}`" for k in u.keys)
        lines.append(
            f"| {u.name} | {keys} | {_cell(u.describe_range())} | {u.default}"
            f"{(' ' + u.unit) if u.unit and not u.finite else ''} | {u.reason} | {_cell(u.note)} |"
        )
    lines.append("")
    if d.constraints:
        lines += ["## What the paper states about its setup", ""]
        for c in d.constraints:
            checked = (
                " (checked by rows: " + "; ".join(f"{e} / {mm}" for e, mm in c.rows) + ")"
                if c.rows
                else " (no row checks it)"
            )
            lines.append(f"* {c.text} — {c.source}{checked}")
        lines.append("")
    if d.notes:
        lines += [d.notes, ""]
    if m.errors:
        lines += [
            f"## Points not evaluated ({len(m.errors)})",
            "",
            *[f"* point {pid}, seed {s}: {e}" for (pid, s), e in sorted(m.errors.items())],
            "",
        ]
    lines += ["## Where every claim holds together", ""]
    if cm.all_hold:
        lines += [
            f"{len(cm.all_hold)} of {len(cm.evaluated_points)} evaluated design points, within:",
            "",
            _box(cm.all_hold, d),
            "",
        ]
    else:
        lines += ["Nowhere: no evaluated design point holds every claim.", ""]
    nowhere = [s for s in cm.stats if s.holds == 0 and s.at_default != "true"]
    lines += [f"## Claims that hold nowhere in the region ({len(nowhere)})", ""]
    lines += [f"* {s.claim.number}. {_cell(s.claim.name)}" for s in nowhere] or ["None."]
    lines += ["", "## Every claim", ""]
    lines += [
        "| # | claim | paper | tolerance | at our default | fraction [95 % CI] | "
        "depends most on | figure |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in cm.stats:
        c = s.claim
        name, v = s.influence[0] if s.influence else ("", float("nan"))
        dep = "—" if v != v else ("none" if v == 0 else f"{name} ({v:+.2f})")
        frac = (
            "—"
            if s.fraction != s.fraction
            else (f"{s.fraction:.2f} [{s.ci[0]:.2f}, {s.ci[1]:.2f}]")
        )
        fig = figure_names.get(c.number)
        lines.append(
            f"| {c.number} | {_cell(c.name)} | {_cell(c.paper)} | {_cell(c.tolerance)} | "
            f"{s.at_default} | {frac} | {_cell(dep)} | {f'[fig]({fig})' if fig else '—'} |"
        )
    lines.append("")
    return "\n".join(lines)
