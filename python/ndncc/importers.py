"""Readers for topology files users already have: ndnSIM annotated topologies and Mini-NDN
``.conf`` files.

Both return a :class:`Topology`: the nodes in order of appearance and the links in the same
shape as a scenario's ``[[links]]`` tables (``between``, ``bandwidth``, ``delay``, ``queue``,
``loss``, ``cost``; quantities as unit strings such as ``"10Mbps"``), so a scenario treats a
topology file exactly like links written in TOML. A key a file does not give (a Mini-NDN link
without ``delay``) is left out and filled from the scenario's ``[defaults.link]``.

Mistakes raise :class:`TopologyError`, which lists every problem found with its line number.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from .units import UnitError, parse_queue, parse_rate, parse_time

__all__ = [
    "Topology",
    "TopologyError",
    "infer_format",
    "read_minindn_conf",
    "read_ndnsim_topology",
    "read_topology",
]

FORMATS = ("ndnsim", "minindn")
_EXTENSIONS = {".txt": "ndnsim", ".conf": "minindn"}
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


@dataclass
class Topology:
    """Nodes and links read from a topology file.

    ``links[i]`` was read on line ``link_lines[i]`` and node ``nodes[j]`` on ``node_lines[j]``;
    ``warnings`` holds ``(line, message)`` pairs for things accepted but worth knowing.
    """

    path: str
    format: str
    nodes: list[str] = field(default_factory=list)
    node_lines: list[int] = field(default_factory=list)
    links: list[dict] = field(default_factory=list)
    link_lines: list[int] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class FileProblem:
    """One mistake in a topology file. ``line`` is None for a problem with the whole file."""

    line: int | None
    problem: str
    fix: str


class TopologyError(ValueError):
    """A topology file that cannot be read; ``problems`` lists every mistake found."""

    def __init__(self, path: str, problems: list[FileProblem]):
        self.path = path
        self.problems = problems
        super().__init__("\n".join(self._format(p) for p in problems))

    def _format(self, p: FileProblem) -> str:
        where = f"{self.path}: line {p.line}" if p.line is not None else self.path
        return f"{where}: {p.problem} (fix: {p.fix})"


def infer_format(path: str | Path) -> str | None:
    """The topology format implied by a file extension (.txt: ndnsim, .conf: minindn)."""
    return _EXTENSIONS.get(Path(path).suffix.lower())


def read_topology(path: str | Path, fmt: str | None = None) -> Topology:
    """Reads a topology file in `fmt` ("ndnsim" or "minindn"; inferred from the extension when
    None)."""
    fmt = fmt or infer_format(path)
    if fmt == "ndnsim":
        return read_ndnsim_topology(path)
    if fmt == "minindn":
        return read_minindn_conf(path)
    raise TopologyError(
        str(path),
        [
            FileProblem(
                None, f"unknown topology format {fmt!r}", 'use format = "ndnsim" or "minindn"'
            )
        ],
    )


def _read_lines(path: str | Path) -> list[str]:
    p = Path(path)
    if not p.is_file():
        if p.is_dir():
            why = "is a directory, not a file"
        else:
            why = "is not a regular file" if p.exists() else "file not found"
        fix = "check the path (relative paths start at the scenario file)"
        raise TopologyError(str(path), [FileProblem(None, why, fix)])
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise TopologyError(
            str(path), [FileProblem(None, f"cannot read the file: {err}", "check the file")]
        ) from None
    return text.splitlines()


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f"did you mean '{close[0]}'?" if close else f"declare '{name}' first"


class _Reader:
    """State shared by both formats while reading one file."""

    def __init__(self, path: str | Path, fmt: str):
        self.topo = Topology(path=str(path), format=fmt)
        self.problems: list[FileProblem] = []
        self.link_index: dict[frozenset[str], int] = {}
        # ndnSIM link columns some lines leave out: column -> line numbers
        self.unset: dict[str, list[int]] = {}

    def error(self, line: int | None, problem: str, fix: str) -> None:
        self.problems.append(FileProblem(line, problem, fix))

    def warn(self, line: int, message: str) -> None:
        self.topo.warnings.append((line, message))

    def add_node(self, line: int, name: str) -> None:
        if name in self.topo.nodes:
            first = self.topo.node_lines[self.topo.nodes.index(name)]
            self.error(
                line,
                f"node '{name}' is declared twice (first on line {first})",
                "remove one of the lines",
            )
            return
        self.topo.nodes.append(name)
        self.topo.node_lines.append(line)

    def check_endpoints(self, line: int, a: str, b: str) -> bool:
        good = True
        for name in (a, b):
            if name not in self.topo.nodes:
                self.error(line, f"link to unknown node '{name}'", _suggest(name, self.topo.nodes))
                good = False
        if a == b:
            self.error(line, f"link from '{a}' to itself", "a link joins two different nodes")
            good = False
        return good

    def existing_link(self, a: str, b: str) -> int | None:
        return self.link_index.get(frozenset((a, b)))

    def add_link(self, line: int, link: dict) -> None:
        a, b = link["between"]
        self.link_index[frozenset((a, b))] = len(self.topo.links)
        self.topo.links.append(link)
        self.topo.link_lines.append(line)

    def finish(self) -> Topology:
        if self.problems:
            raise TopologyError(self.topo.path, self.problems)
        # the same message on several lines once, at the first, naming the others
        lines: dict[str, list[int]] = {}
        for line, message in self.topo.warnings:
            lines.setdefault(message, []).append(line)
        self.topo.warnings = [
            (found[0], message + (f" (also lines {_listed(found[1:])})" if found[1:] else ""))
            for message, found in lines.items()
        ]
        return self.topo


def _listed(lines: list[int]) -> str:
    return ", ".join(map(str, lines[:5])) + (", …" if len(lines) > 5 else "")


# --------------------------------------------------------------------------------------------
# ndnSIM annotated topology


def read_ndnsim_topology(path: str | Path) -> Topology:
    """Reads an ndnSIM annotated topology (``topo-6-node.txt`` style).

    Lines before a line exactly ``router`` are ignored; ``#`` starts a comment only in column 0;
    router lines are ``name comment yPos xPos [systemId]`` until a line exactly ``link``; link
    lines are ``src dst bandwidth metric delay queue [lossRate]``. A link repeated in the reverse
    direction is skipped.
    """
    reader = _Reader(path, "ndnsim")
    section = "preamble"
    for number, raw in enumerate(_read_lines(path), start=1):
        line = raw.rstrip()
        if section == "preamble":
            section = "routers" if line == "router" else section
        elif line.startswith("#") or not line:
            continue
        elif section == "routers" and line == "link":
            section = "links"
        elif "#" in line:
            reader.error(
                number,
                "'#' starts a comment only in column 0",
                "move the comment to a line of its own",
            )
        elif section == "routers":
            _ndnsim_router(reader, number, line.split())
        else:
            _ndnsim_link(reader, number, line.split())
    _warn_unset(reader)
    if section == "preamble":
        reader.error(
            None,
            "no line 'router' found",
            "start the node list with a line containing only 'router'",
        )
    return reader.finish()


def _ndnsim_router(reader: _Reader, number: int, fields: list[str]) -> None:
    if len(fields) not in (4, 5):
        reader.error(
            number,
            f"a router line has 4 or 5 fields (name comment yPos xPos [systemId]), "
            f"found {len(fields)}",
            "write e.g. 'R1 NA 1 2'"
            + ("; links follow a line containing only 'link'" if len(fields) >= 6 else ""),
        )
        return
    for label, text in zip(("yPos", "xPos"), fields[2:4], strict=True):
        if not _NUMBER.match(text):
            reader.error(
                number, f"{label} {text!r} is not a number", "write a coordinate such as 0 or 1.5"
            )
    reader.add_node(number, fields[0])


def _ndnsim_link(reader: _Reader, number: int, fields: list[str]) -> None:
    """``src dst bandwidth metric [delay [queue [lossRate]]]``: ndnSIM reads the fields it finds
    and leaves the rest unset, and ignores any after the seventh."""
    if len(fields) < 4:
        reader.error(
            number,
            f"a link line has 4 to 7 fields (src dst bandwidth metric [delay [queue "
            f"[lossRate]]]), found {len(fields)}",
            "write e.g. 'R1 R2 10Mbps 1 10ms 100'",
        )
        return
    if len(fields) > 7:
        reader.warn(number, f"fields after the seventh ignored, as ndnSIM does: {fields[7:]}")
    a, b, bandwidth, metric = fields[:4]
    link: dict = {"between": [a, b]}
    good = reader.check_endpoints(number, a, b)
    good &= _store(reader, number, link, "bandwidth", bandwidth, _positive_rate)
    good &= _store(reader, number, link, "cost", metric, _metric)
    for i, key, convert in (
        (4, "delay", _time),
        (5, "queue", lambda text: _ndnsim_queue(reader, number, text)),
        (6, "loss", lambda text: _ndnsim_loss(reader, number, text)),
    ):
        if len(fields) > i:
            good &= _store(reader, number, link, key, fields[i], convert)
        elif key != "loss":
            reader.unset.setdefault(key, []).append(number)
    if good:
        _add_ndnsim_link(reader, number, link)


#: What ndnSIM uses for a link line without a delay or a queue: the previous link's (its
#: PointToPointHelper keeps them), or ns-3's defaults for the first
_NDNSIM_UNSET = {"delay": "0 s", "queue": "100 packets"}


def _warn_unset(reader: _Reader) -> None:
    """One warning per column that some link lines leave out."""
    for key, lines in reader.unset.items():
        shown = _listed(lines)
        reader.warn(
            lines[0],
            f"no {key} column on line{'s' if len(lines) > 1 else ''} {shown}: the scenario's "
            f"[defaults.link] {key} applies (ndnSIM keeps the {key} of the link line before, "
            f"or ns-3's default, {_NDNSIM_UNSET[key]})",
        )


def _add_ndnsim_link(reader: _Reader, number: int, link: dict) -> None:
    a, b = link["between"]
    index = reader.existing_link(a, b)
    if index is None:
        reader.add_link(number, link)
        return
    first = reader.topo.links[index]
    first_line = reader.topo.link_lines[index]
    if first["between"] == [a, b]:
        reader.error(
            number,
            f"link {a} {b} is listed twice (first on line {first_line})",
            "remove one of the lines",
        )
    elif {k: v for k, v in first.items() if k != "between"} != {
        k: v for k, v in link.items() if k != "between"
    }:
        reader.warn(
            number,
            f"reverse duplicate of line {first_line} skipped, although its parameters differ",
        )


def _store(reader: _Reader, number: int, link: dict, key: str, text: str, convert) -> bool:
    """Converts one field and stores it in `link`; reports a problem and returns False if bad."""
    try:
        link[key] = convert(text)
    except UnitError as err:
        reader.error(number, f"{key}: {err.problem}", err.fix)
        return False
    return True


def _positive_rate(text: str) -> str:
    if parse_rate(text) <= 0:
        raise UnitError(f"bandwidth {text!r} must be positive", "write e.g. '10Mbps'")
    return text


def _time(text: str) -> str:
    parse_time(text)
    return text


def _probability(text: str) -> float:
    if not _NUMBER.match(text) or not 0 <= float(text) < 1:
        raise UnitError(
            f"loss rate {text!r} must be a probability in [0, 1)", "write e.g. 0.01 for 1 % loss"
        )
    return float(text)


def _metric(text: str) -> int:
    if not text.isdigit():
        raise UnitError(f"metric {text!r} must be a non-negative integer", "write e.g. 1")
    return int(text)


def _ndnsim_queue(reader: _Reader, number: int, text: str) -> str:
    if text.isdigit():
        if int(text) == 0:
            raise UnitError("queue of 0 packets", "write a positive number of packets such as 100")
        return f"{int(text)}p"
    if text.startswith("ns3::"):
        return _ns3_queue(reader, number, text)
    queue = parse_queue(text)
    if not next(iter(queue.values())):
        raise UnitError(
            f"queue {text!r} has no capacity", "write a positive number of packets such as 100"
        )
    reader.warn(
        number, f"queue {text!r} read as an ns-3 queue size (ndnSIM expects a number of packets)"
    )
    return text


def _ns3_object(text: str, what: str) -> tuple[str, dict[str, str]]:
    """An ns-3 object spec as ndnSIM reads it: ``Type,Attr=Value,…`` -> (type without
    ``ns3::`` and template arguments, {attribute: value})."""
    kind, *pairs = [part.strip() for part in text.split(",")]
    attrs = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UnitError(
                f"{what} attribute {pair!r} is not Attribute=Value",
                f"write e.g. {text.split(',')[0]},MaxSize=100p",
            )
        attrs[name.strip()] = value.strip().strip('"')
    return kind.removeprefix("ns3::").split("<")[0], attrs


def _packets_or_size(text: str, what: str) -> str:
    """An ns-3 queue size (``"100p"``, ``"64KB"``; a bare number is packets)."""
    value = f"{text}p" if text.isdigit() else text
    queue = parse_queue(value)
    if not next(iter(queue.values())):
        raise UnitError(f"{what} {text!r} has no capacity", "write e.g. 100p")
    return value


def _ns3_queue(reader: _Reader, number: int, text: str) -> str:
    """A queue spec in the queue column (ndnSIM passes it to PointToPointHelper::SetQueue): a
    drop-tail queue of its MaxSize (ns-3's default 100p); a RED queue as a drop-tail queue of
    its limit (ns-3's default 25 packets), with a warning — no early drops."""
    kind, attrs = _ns3_object(text, "queue")
    size = attrs.get("MaxSize") or attrs.get("MaxPackets") or attrs.get("QueueLimit")
    if kind == "DropTailQueue":
        return _packets_or_size(size, "queue MaxSize") if size else "100p"
    if kind in ("RedQueue", "RedQueueDisc"):
        queue = _packets_or_size(size, "queue limit") if size else "25p"
        limit = "its limit" if size else "ns-3's default limit"
        ignored = sorted(set(attrs) - {"MaxSize", "MaxPackets", "QueueLimit"})
        reader.warn(
            number,
            f"{kind} modelled as a drop-tail queue of {queue} ({limit}): no early, "
            "probabilistic drops" + (f"; ignored: {', '.join(ignored)}" if ignored else ""),
        )
        return queue
    raise UnitError(
        f"queue type ns3::{kind} is not modelled (drop-tail and RED queues are)",
        "write a number of packets such as 100, or ns3::DropTailQueue,MaxSize=100p",
    )


#: The packet size a per-byte or per-bit ns-3 error rate is turned into a per-packet loss for
#: (ndnSIM's default Data payload)
_NOMINAL_PACKET_BYTES = 1024


def _ndnsim_loss(reader: _Reader, number: int, text: str) -> float:
    """The loss column: a probability, or an ns-3 error model (ndnSIM installs it as the
    ReceiveErrorModel of both ends). RateErrorModel with ErrorUnit=ERROR_UNIT_PACKET is a
    per-packet loss; per byte or bit (ns-3's default unit is the byte) it is turned into the
    loss of a 1024-byte packet, with a warning."""
    if not text.startswith("ns3::"):
        return _probability(text)
    kind, attrs = _ns3_object(text, "error model")
    if kind != "RateErrorModel":
        raise UnitError(
            f"error model ns3::{kind} is not modelled (ns3::RateErrorModel is)",
            "write a loss probability such as 0.01, or "
            "ns3::RateErrorModel,ErrorUnit=ERROR_UNIT_PACKET,ErrorRate=0.01",
        )
    rate = _probability(attrs.get("ErrorRate", "0"))
    unit = attrs.get("ErrorUnit", "ERROR_UNIT_BYTE")
    bits = {"ERROR_UNIT_PACKET": 0, "ERROR_UNIT_BYTE": 8, "ERROR_UNIT_BIT": 1}.get(unit)
    if bits is None:
        raise UnitError(
            f"ErrorUnit {unit!r} is not one of ERROR_UNIT_PACKET, ERROR_UNIT_BYTE, ERROR_UNIT_BIT",
            "write ErrorUnit=ERROR_UNIT_PACKET",
        )
    if bits == 0:
        return rate
    units = _NOMINAL_PACKET_BYTES * 8 // bits
    loss = 1 - (1 - rate) ** units
    reader.warn(
        number,
        f"ErrorRate {rate:g} per {unit.removeprefix('ERROR_UNIT_').lower()}"
        + ("" if "ErrorUnit" in attrs else " (ns-3's default unit)")
        + f" modelled as a loss of {loss:.4g} per packet, that of a "
        f"{_NOMINAL_PACKET_BYTES}-byte packet (ns-3 loses small packets less often)",
    )
    if loss >= 1:
        raise UnitError(
            f"that error rate loses every {_NOMINAL_PACKET_BYTES}-byte packet",
            "lower ErrorRate, or write ErrorUnit=ERROR_UNIT_PACKET",
        )
    return loss


# --------------------------------------------------------------------------------------------
# Mini-NDN .conf

_MININDN_SECTIONS = ("nodes", "switches", "links", "faces")
_MININDN_LINK_KEYS = ("bw", "delay", "loss", "max_queue_size")


def read_minindn_conf(path: str | Path) -> Topology:
    """Reads a Mini-NDN topology (``.conf``).

    INI-like: ``[nodes]`` lines ``a: _`` or ``a: key=value ...``; ``[links]`` lines
    ``a:b delay=10ms bw=100 loss=0.5 max_queue_size=200`` (bw in Mbit/s, loss in percent,
    max_queue_size in packets); optional ``[switches]`` (simulated as forwarding nodes) and
    ``[faces]`` (``a:b cost=N``, the link's routing cost). Keys are split from values at the
    first space and lower-cased, so node names are lower-case.
    """
    reader = _Reader(path, "minindn")
    section: str | None = None
    seen: set[str] = set()
    faces: list[tuple[int, str, str]] = []
    for number, raw in enumerate(_read_lines(path), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = _minindn_section(reader, number, line, seen)
            continue
        key, value = (re.split(r"\s", line, maxsplit=1) + [""])[:2]
        key, value = key.lower(), value.strip()
        if section is None:
            reader.error(
                number,
                "line outside any section",
                "put it under [nodes], [switches], [links] or [faces]",
            )
        elif section in ("nodes", "switches"):
            _minindn_node(reader, number, key, value, section)
        elif section == "links":
            _minindn_link(reader, number, key, value)
        elif section == "faces":
            faces.append((number, key, value))
    if "nodes" not in seen:
        reader.error(
            None, "no [nodes] section", "list the nodes under [nodes], one 'name: _' per line"
        )
    for number, key, value in faces:
        _minindn_face(reader, number, key, value)
    return reader.finish()


def _minindn_section(reader: _Reader, number: int, line: str, seen: set[str]) -> str | None:
    if not line.endswith("]"):
        reader.error(number, f"section header {line!r} is not closed", "write e.g. [links]")
        return None
    name = line[1:-1].strip()
    if name not in _MININDN_SECTIONS:
        close = difflib.get_close_matches(name.lower(), _MININDN_SECTIONS, n=1)
        fix = (
            f"did you mean [{close[0]}]?"
            if close
            else "sections are [nodes], [switches], [links], [faces]"
        )
        reader.error(number, f"unknown section [{name}]", fix)
        return None
    if name in seen:
        reader.error(number, f"section [{name}] appears twice", "merge the two sections")
    seen.add(name)
    return name


def _params(reader: _Reader, number: int, value: str) -> dict[str, str] | None:
    """Parses ``key=value key=value`` (a lone ``_`` means none); None after an error."""
    params: dict[str, str] = {}
    for item in value.split():
        if item == "_":
            continue
        key, eq, val = item.partition("=")
        if not eq or not key or not val:
            reader.error(number, f"parameter {item!r} is not key=value", "write e.g. delay=10ms")
            return None
        if key in params:
            reader.error(number, f"parameter '{key}' is given twice", "keep one of them")
            return None
        params[key] = val
    return params


def _minindn_node(reader: _Reader, number: int, key: str, value: str, section: str) -> None:
    name = key.split(":")[0]
    if not name:
        reader.error(number, "node line without a name", "write e.g. 'a: _'")
        return
    _params(reader, number, value)  # node parameters are checked but not used
    if section == "switches":
        reader.warn(number, f"switch '{name}' is simulated as an NDN forwarding node")
    reader.add_node(number, name)


def _minindn_link(reader: _Reader, number: int, key: str, value: str) -> None:
    ends = key.split(":")
    if len(ends) != 2 or not all(ends):
        reader.error(number, f"link {key!r} is not 'a:b'", "write e.g. 'a:b delay=10ms bw=100'")
        return
    params = _params(reader, number, value)
    if params is None:
        return
    if not params:
        reader.error(
            number, f"link {key} has no parameters", "add at least one, e.g. 'delay=10ms bw=100'"
        )
        return
    a, b = ends
    good = reader.check_endpoints(number, a, b)
    link = _minindn_link_values(reader, number, a, b, params)
    if link is None or not good:
        return
    index = reader.existing_link(a, b)
    if index is not None:
        first = reader.topo.link_lines[index]
        reader.error(
            number,
            f"a link between {a} and {b} is already on line {first}",
            "remove one of the lines",
        )
        return
    reader.add_link(number, link)


def _minindn_link_values(
    reader: _Reader, number: int, a: str, b: str, params: dict[str, str]
) -> dict | None:
    link: dict = {"between": [a, b]}
    good = True
    for key, text in params.items():
        if key not in _MININDN_LINK_KEYS:
            reader.warn(
                number,
                f"link parameter '{key}' ignored (ndncc simulates {', '.join(_MININDN_LINK_KEYS)})",
            )
            continue
        target, convert = _MININDN_CONVERT[key]
        good &= _store(reader, number, link, target, text, convert)
    return link if good else None


def _mbps(text: str) -> str:
    if not _NUMBER.match(text) or not float(text) > 0:
        raise UnitError(
            f"bw {text!r} must be a positive number of Mbit/s",
            "write e.g. bw=100 (Mini-NDN bw is in Mbit/s)",
        )
    rate = f"{text}Mbps"
    parse_rate(rate)
    return rate


def _percent(text: str) -> float:
    if not _NUMBER.match(text) or not 0 <= float(text) < 100:
        raise UnitError(
            f"loss {text!r} must be a percentage in [0, 100)", "write e.g. loss=1 for 1 % loss"
        )
    return float(Fraction(text) / 100)


def _packets(text: str) -> str:
    if not text.isdigit() or int(text) == 0:
        raise UnitError(
            f"max_queue_size {text!r} must be a positive number of packets",
            "write e.g. max_queue_size=100",
        )
    return f"{int(text)}p"


_MININDN_CONVERT = {
    "bw": ("bandwidth", _mbps),
    "delay": ("delay", _time),
    "loss": ("loss", _percent),
    "max_queue_size": ("queue", _packets),
}


def _minindn_face(reader: _Reader, number: int, key: str, value: str) -> None:
    ends = key.split(":")
    if len(ends) != 2 or not all(ends):
        reader.error(number, f"face {key!r} is not 'a:b'", "write e.g. 'a:b cost=10'")
        return
    params = _params(reader, number, value)
    if params is None:
        return
    index = reader.existing_link(*ends)
    if index is None:
        reader.error(
            number,
            f"[faces] entry {key} has no matching link in [links]",
            "add the link or remove this line",
        )
        return
    cost = params.get("cost")
    if cost is None or not cost.isdigit():
        reader.error(
            number,
            f"face {key} needs cost=N with N a non-negative integer",
            "write e.g. 'a:b cost=10'",
        )
        return
    link = reader.topo.links[index]
    if "cost" in link and link["cost"] != int(cost):
        reader.warn(number, f"cost of link {key} changed from {link['cost']} to {cost}")
    link["cost"] = int(cost)
