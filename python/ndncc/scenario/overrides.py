"""Overrides: dotted paths such as "trace.bin", "links[0].bandwidth", "apps[c1].rate"
(:meth:`Scenario.with_overrides`)."""

from __future__ import annotations

import copy
import re
from typing import Any

from .errors import _Bad, _did_you_mean
from .keys import _SCENARIO_KEYS, TOP_LEVEL

_PATH_SEGMENT = re.compile(r"^(?P<key>[^.\[\]]+)(?:\[(?P<sel>[^\]]+)\])?$")


def _split_path(path: str) -> list[tuple[str, str | None]]:
    parts, depth, current = [], 0, ""
    for char in path:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "." and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    segments = []
    for part in parts:
        match = _PATH_SEGMENT.match(part)
        if match is None:
            raise _Bad(
                f"cannot read override path '{path}'",
                'write e.g. "trace.bin", "links[0].bandwidth" or "apps[c1].rate"',
            )
        segments.append((match["key"], match["sel"]))
    return segments


def _select(items: Any, selector: str, key: str) -> dict:
    if isinstance(items, dict) and isinstance(items.get(selector), dict):
        return items[selector]
    if not isinstance(items, list):
        raise _Bad(
            f"no '{key}' entry '{selector}' to change",
            f"check the path; {key} has no entry {selector!r}",
        )
    if selector.isdigit():
        if int(selector) < len(items):
            return items[int(selector)]
        raise _Bad(
            f"{key}[{selector}] does not exist (there are {len(items)})",
            f"use an index below {len(items)}",
        )
    for i, item in enumerate(items):
        default = f"{item.get('kind')}{i}" if isinstance(item, dict) else None
        if isinstance(item, dict) and item.get("name", default) == selector:
            return item
    raise _Bad(f"no entry named '{selector}' in {key}", f"use an index, e.g. {key}[0]")


def _set_path(data: dict, path: str, value: Any) -> None:
    segments = _split_path(path)
    if len(segments) == 1 and segments[0][0] in _SCENARIO_KEYS and segments[0][1] is None:
        segments = [("scenario", None), *segments]
    first = segments[0][0]
    if first not in TOP_LEVEL:
        close = _did_you_mean(first, TOP_LEVEL)
        raise _Bad(
            f"unknown table '{first}'",
            f"did you mean '{close}'?" if close else f"known tables: {', '.join(TOP_LEVEL)}",
        )
    node: Any = data
    for i, (key, selector) in enumerate(segments):
        last = i == len(segments) - 1
        if not isinstance(node, dict):
            raise _Bad(f"'{path}' goes through a value that is not a table", "check the path")
        if selector is not None:
            node = _select(node.get(key), selector, key)
            if last:
                raise _Bad(f"'{path}' names a whole table", "add the key to set, e.g. .rate")
        elif last:
            if value is None:
                node.pop(key, None)
            else:
                node[key] = copy.deepcopy(value)
        else:
            node = node.setdefault(key, {})
