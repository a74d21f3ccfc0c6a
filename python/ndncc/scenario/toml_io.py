"""TOML reading (syntax errors as Problems with a fix) and writing (:meth:`Scenario.to_toml`)."""

from __future__ import annotations

import copy
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


#: The deepest nesting of arrays and inline tables a scenario value may have (the deepest
#: real one, [nodes.R1.schemes.mircc] or a list of pairs, has 4).
MAX_NESTING = 32

_TOML_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


def _too_deep(source: str, where: str) -> ScenarioError:
    return ScenarioError(
        [
            Problem(
                source,
                where,
                f"a value is nested more than {MAX_NESTING} levels deep (arrays or tables "
                "inside one another)",
                "a scenario value needs a few levels at most: flatten it",
            )
        ]
    )


def _check_nesting(text: str, source: str) -> None:
    """Refuses TOML text whose brackets nest deeper than MAX_NESTING (before the parser,
    which recurses once per level), naming the first line that does."""
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        code = _TOML_STRING.sub("", line).split("#", 1)[0]
        for ch in code:
            depth += (ch in "[{") - (ch in "]}")
            if depth > MAX_NESTING:
                raise _too_deep(source, f"line {number}")
        depth = max(depth, 0)


def check_data_nesting(data: Any, source: str) -> None:
    """Refuses a scenario dict (built in Python) nested deeper than MAX_NESTING below its
    tables, naming the key where it does; iterative, so any depth is safe to check."""
    stack = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_NESTING + 2:  # + the table and its key
            raise _too_deep(source, path)
        if isinstance(value, (dict, list, tuple)):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                sub = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}".lstrip(".")
                # the key is named down to the value's first level, not its inner ones
                stack.append((item, sub if depth < 3 else path, depth + 1))


def plain(value: Any) -> Any:
    """A deep copy of a scenario value with numpy scalars and arrays (a scenario built from
    computed values) turned into the Python numbers, booleans and lists TOML gives: an
    ``int64`` reads like an ``int``, a ``float64`` like a ``float``."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if type(value).__module__ == "numpy":
        if hasattr(value, "tolist"):  # a scalar gives a Python number, an array a list
            return plain(value.tolist())
    return copy.deepcopy(value)


def _parse_toml(text: str, source: str) -> dict:
    import tomllib  # on first use: generated scenarios never parse TOML

    text = text.removeprefix("\ufeff")  # a byte order mark (some Windows editors write one)
    _check_nesting(text, source)
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise _too_deep(source, "") from None
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
