"""Readable axis labels, with units, for the columns of a sweep's index: metrics
(``throughput_mbps`` → "Throughput, all consumers (Mbit/s)") and grid axes named by their
override path (``defaults.node.schemes.sf.depth`` → "sf depth, every node (Interests)"), and
line styles that keep many lines apart. Used by the report's figures; no plotting here."""

from __future__ import annotations

import re

#: metric column -> label with its unit (store.py's columns, report.py's defaults)
METRIC_LABELS = {
    "throughput_mbps": "Throughput, all consumers (Mbit/s)",
    "delivery_ratio": "Delivery ratio (Data / Interests sent)",
    "fairness_jain": "Jain's fairness index",
    "delay_ms_mean": "Mean delay (ms)",
    "interests_sent": "Interests sent",
    "data_received": "Data received",
    "nacks_received": "Nacks received",
    "timeouts": "Timeouts",
    "retransmissions": "Retransmissions",
    "data_bytes": "Data received (bytes)",
    "drops": "Packets dropped",
    "marks": "Packets marked",
    "max_queue_pkts": "Largest queue (packets)",
    "wall_time_s": "Wall time (s)",
    "sim_time_s": "Simulated time (s)",
    "events": "Events",
    "packet_hops": "Packet hops",
    "link_losses": "Packets lost on links",
}

#: scenario keys (not a scheme's parameters) that name what they set
_PLAIN_KEYS = ("bandwidth", "delay", "queue", "duration", "start", "stop", "payload", "tick")
#: scenario keys (not a scheme's parameters) -> what they set
_KEYS = {k: k for k in _PLAIN_KEYS} | {
    "loss": "loss probability",
    "cost": "routing cost",
    "engine": "sending engine",
    "cs": "Content Store",
    "max_seq": "last sequence number",
}
#: the unit of a bare number of a scenario key, where it has one
_KEY_UNITS = {"cs": "packets"}

_UNITS = {"time": "", "": ""}  # a time is written with its unit: the ticks carry it


def _scheme_unit(scheme: str | None, param: str) -> str | None:
    """The unit the registry declares for `param` (of router part `scheme`, or of any
    controller when `scheme` is None); None when no scheme declares it."""
    try:
        from .scenario.schemes import controllers, routers
    except ImportError:  # pragma: no cover - the native module is always there in use
        return None
    try:
        parts = [routers()[scheme]] if scheme else list(controllers().values())
    except (KeyError, OSError, ValueError):
        return None
    for part in parts:
        for p in part["params"]:
            if p["name"] == param:
                return _UNITS.get(p["unit"], p["unit"])
    return None


def _where(scope: str) -> str:
    """`defaults.node` -> "every node", `nodes.R1` -> "node R1", `apps[c1]` -> "app c1"."""
    if scope in ("defaults.node", "defaults.nodes"):
        return "every node"
    if scope == "defaults.link":
        return "every link"
    m = re.fullmatch(r"nodes\.(.+)", scope)
    if m:
        return f"node {m[1]}"
    m = re.fullmatch(r"(apps|links|routes)\[(.+)\]", scope)
    if m:
        return f"{m[1][:-1]} {m[2]}"
    return scope


def axis_label(column: str) -> str:
    """A readable label with its unit for a metric or a grid axis (an override path, or a
    labelled axis's own name, returned as it is)."""
    if column in METRIC_LABELS:
        return METRIC_LABELS[column]
    m = re.fullmatch(r"apps\.(.+)\.(\w+)", column)  # a per-consumer column
    if m and m[2] in METRIC_LABELS:
        return f"{METRIC_LABELS[m[2]].replace(', all consumers', '')} of consumer {m[1]}"
    if "." not in column and "[" not in column:
        return column  # a labelled axis ("engine") or a column of its own
    m = re.fullmatch(r"(?P<scope>.*?)\.?schemes\.(?P<scheme>[\w-]+)\.(?P<param>\w+)", column)
    if m:
        unit = _scheme_unit(m["scheme"], m["param"])
        text = f"{m['scheme']} {m['param']}, {_where(m['scope'])}"
        return f"{text} ({unit})" if unit else text
    scope, _, key = column.rpartition(".")
    if key in _KEYS:
        what, unit = _KEYS[key], _KEY_UNITS.get(key, "")
    else:
        what = key.replace("_", " ")
        unit = (_scheme_unit(None, key) or "") if scope.startswith("apps") else ""
    text = f"{what}, {_where(scope)}" if scope else what
    return f"{text} ({unit})" if unit else text


#: markers and dash patterns cycled with the colours, so that lines differ in more than hue
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
_DASHES = ("-", "--", "-.", ":")


def line_styles(n: int) -> list[dict]:
    """`n` line styles (colour, marker, linestyle), pairwise distinct in colour up to 20 lines
    (tab10, then tab20's) and always distinct in (marker, dash) up to 40: lines stay apart in
    print, in greyscale and for readers who do not see some hues."""
    from matplotlib import colormaps

    if n <= 10:
        colours = [colormaps["tab10"](i) for i in range(n)]
    elif n <= 20:  # the dark then the light half of tab20, never two of a pair side by side
        colours = [colormaps["tab20"](2 * i % 20 + (2 * i // 20)) for i in range(n)]
    else:
        colours = [colormaps["turbo"](i / (n - 1)) for i in range(n)]
    return [
        {
            "color": colours[i],
            "marker": _MARKERS[i % len(_MARKERS)],
            "linestyle": _DASHES[(i // len(_MARKERS) + i) % len(_DASHES)],
        }
        for i in range(n)
    ]
