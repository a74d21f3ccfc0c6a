"""The compact form of a resolved spec's long lists, as the simulator reads it.

A generated scenario repeats one record thousands of times with a few fields changed (10 000
pairs: 20 002 nodes, 20 001 links, 20 000 apps, ≈ 11 MB of JSON). :func:`compact_spec` writes
each long list (``nodes``, ``links``, ``apps``) as templates plus one column per field that
varies: ``{"rows": n, "templates": [...], "template": [...], "columns": {field: [...]}}``. The
format, the fields that may be columns and the errors are documented in
``crates/sim/src/compact.rs``; the plain form (a list of records) stays valid everywhere.

Row ``i`` is ``templates[template[i]]`` with each column's ``i``-th value put in place of its
field, so any record can be encoded: a field that cannot be a column, or is missing from some
record, stays in the templates, and records that differ in it get templates of their own.
"""

from __future__ import annotations

from typing import Any

#: The fields that may be columns, per list (``crates/sim/src/compact.rs``). ``prefix`` is the
#: app's ``app.prefix``.
COLUMNS: dict[str, tuple[str, ...]] = {
    "nodes": ("name", "strategy", "cs_capacity"),
    "links": ("a", "b", "bandwidth_bps", "delay_ns", "loss", "cost"),
    "apps": ("name", "node", "start_ns", "stop_ns", "prefix"),
}

#: Lists shorter than this stay plain (records): the compact form pays only for long lists.
MIN_ROWS = 64

#: The columns whose values are strings (the others take numbers, never bools: see _fits).
_STRINGS = {"name", "strategy", "prefix"}


def compact_spec(spec: dict[str, Any], min_rows: int = MIN_ROWS) -> dict[str, Any]:
    """`spec` with each of its lists of ≥ `min_rows` records in the compact form (a new dict;
    `spec` is not changed). A list whose records fall into more than :data:`MAX_TEMPLATES`
    templates stays plain."""
    out = dict(spec)
    for key, fields in COLUMNS.items():
        rows = spec.get(key)
        if isinstance(rows, list) and len(rows) >= min_rows:
            out[key] = compact_rows(rows, fields)
    return out


#: The most templates of one list: records that differ in more than the column fields are
#: rare, and finding a row's template is a scan of the templates.
MAX_TEMPLATES = 16


def compact_rows(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> dict[str, Any] | list:
    """The compact form of `rows` with the given column `fields` (those present, with a value of
    the right type, in every row, and not the same in all); `rows` itself when they need more
    than :data:`MAX_TEMPLATES` templates."""
    if not rows:
        return {"rows": 0, "templates": []}
    columns = {}
    for f in fields:
        vs = _values(rows, f)
        if vs.count(vs[0]) != len(vs) and _fits(f, vs):
            columns[f] = vs
    templates: list[dict[str, Any]] = []
    rests: list[dict[str, Any]] = []  # each template without its column fields
    template = []
    for r in rows:
        rest = _without(r, columns)
        # dict equality (in C) against the few templates so far
        i = next((i for i, t in enumerate(rests) if t == rest), len(rests))
        if i == len(rests):
            if i == MAX_TEMPLATES:
                return rows
            templates.append(r)
            rests.append(rest)
        template.append(i)
    out: dict[str, Any] = {"rows": len(rows), "templates": templates}
    if len(templates) > 1:
        out["template"] = template
    if columns:
        out["columns"] = columns
    return out


_MISSING = object()


def _values(rows: list[dict[str, Any]], field: str) -> list[Any]:
    """Each row's value of `field` (``_MISSING`` where it has none)."""
    if field == "prefix":
        apps = [r.get("app") for r in rows]
        return [a.get("prefix", _MISSING) if type(a) is dict else _MISSING for a in apps]
    return [r.get(field, _MISSING) for r in rows]


def _fits(field: str, vs: list[Any]) -> bool:
    """Whether every value in `vs` has the JSON type column `field` takes (no bools, no
    negative integers)."""
    types = set(map(type, vs))
    if field in _STRINGS:
        return types == {str}
    if field == "loss":
        return types <= {int, float}
    if field == "stop_ns":
        types.discard(type(None))
        vs = [v for v in vs if v is not None]
    return types <= {int} and (not vs or min(vs) >= 0)


def _without(row: dict[str, Any], columns: dict[str, list]) -> dict[str, Any]:
    """`row` without the fields that are columns (what its template must hold)."""
    rest = row.copy()
    for f in columns:
        if f == "prefix":
            app = rest["app"] = rest["app"].copy()
            del app["prefix"]
        else:
            del rest[f]
    return rest
