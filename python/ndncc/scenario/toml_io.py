"""TOML reading (syntax errors as Problems with a fix) and writing (:meth:`Scenario.to_toml`)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .errors import Problem, ScenarioError
from .keys import TOP_LEVEL

_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$|\s*\(at end of document\)$")


def _toml_error_fix(message: str) -> str:
    fixes = {
        "Invalid value": 'put text in double quotes: delay = "50ms", not delay = 50ms',
        "Expected newline or end of document": (
            'one key = value per line; put text in double quotes: delay = "50ms", not delay = 50ms'
        ),
        "Cannot overwrite": "a key or table is defined twice; keep one definition",
        "Cannot declare": "a table is defined twice; keep one definition",
        "Cannot mutate": "a table is defined twice; keep one definition",
        "Expected '=' after a key": "write key = value",
        "Unterminated string": "close the string with a double quote",
        "Unclosed array": "close the array with ]",
        "Expected ']'": "close the table header with ], e.g. [scenario]",
        "Invalid statement": "each line is a [table], a key = value, or a # comment",
    }
    for start, fix in fixes.items():
        if message.startswith(start):
            return fix
    return "see docs/scenario.md for the TOML syntax"


def _parse_toml(text: str, source: str) -> dict:
    import tomllib  # on first use: generated scenarios never parse TOML

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        match = _TOML_POSITION.search(message)
        line = match.group(1) if match and match.group(1) else None
        problem = message[: match.start()] if match else message
        key = f"line {line}" if line else "end of file"
        raise ScenarioError(
            [Problem(source, key, f"TOML syntax error: {problem}", _toml_error_fix(problem))]
        ) from None


_TOML_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_TOML_ORDER = {name: i for i, name in enumerate(TOP_LEVEL)}


def _toml_key(key: str) -> str:
    return key if _TOML_BARE_KEY.match(key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return (
            repr(value)
            if math.isfinite(value)
            else {"inf": "inf", "-inf": "-inf"}.get(repr(value), "nan")
        )
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(
                f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None
            )
            + "}"
        )
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def _is_table_array(value: Any) -> bool:
    return (
        isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, dict) for v in value)
    )


def _toml_table(
    path: list[str], table: dict, out: list[str], header: str, always: bool = False
) -> None:
    """Appends `table` under `header` (left out when the table has only sub-tables, unless
    `always`: every [[array]] element needs its header)."""
    scalars = [
        (k, v)
        for k, v in table.items()
        if v is not None and not isinstance(v, dict) and not _is_table_array(v)
    ]
    tables = [(k, v) for k, v in table.items() if isinstance(v, dict)]
    arrays = [(k, v) for k, v in table.items() if _is_table_array(v)]
    if always or scalars or not (tables or arrays):
        out.append(header)
    out.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in scalars)
    for key, sub in tables:
        name = ".".join(_toml_key(p) for p in [*path, key])
        _toml_table([*path, key], sub, out, f"\n[{name}]")
    for key, items in arrays:
        name = ".".join(_toml_key(p) for p in [*path, key])
        for item in items:
            _toml_table([*path, key], item, out, f"\n[[{name}]]", always=True)


def _to_toml(data: dict) -> str:
    out: list[str] = []
    for key in sorted(data, key=lambda k: _TOML_ORDER.get(k, len(TOP_LEVEL))):
        value = data[key]
        if isinstance(value, dict):
            _toml_table([key], value, out, f"\n[{_toml_key(key)}]")
        elif _is_table_array(value):
            for item in value:
                _toml_table([key], item, out, f"\n[[{_toml_key(key)}]]", always=True)
        elif value is not None:
            out.insert(0, f"{_toml_key(key)} = {_toml_value(value)}")
    return "\n".join(out).lstrip("\n") + "\n"
