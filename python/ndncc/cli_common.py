"""What every ``ndncc`` command module shares: exit codes, the input-error type, the console,
and the checks of flags and output folders. It sits below :mod:`ndncc.cli` and its ``cli_*``
command modules, which all import it (nothing is imported back from cli.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_INTERRUPTED = 130


class InputError(Exception):
    """A user-facing problem with an input file or value (exit code 3)."""


def _console(stderr: bool = False):
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # Off a terminal (pipes, CI logs) rich would wrap at 80 columns; tables need more.
    width = None if stream.isatty() else 132
    return Console(stderr=stderr, highlight=False, width=width)


def _escape(text: str) -> str:
    """Text of the user's (a path, a name) inside rich markup: "[x]" stays text."""
    from rich.markup import escape

    return escape(text)


def _say(console, text: str) -> None:
    """A line of plain text: wrapped at word boundaries on a terminal, never off one (a pipe or
    a log keeps each message on one line, for grep)."""
    console.print(text, markup=False, soft_wrap=not console.is_terminal)


def _parse_set(items: list[str] | None) -> dict[str, Any]:
    """``--set key=value`` pairs; values are parsed as TOML scalars when possible."""
    import tomllib

    from .scenario.toml_io import MAX_NESTING

    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise InputError(f"--set {item!r}: expected KEY=VALUE, e.g. --set trace.bin=50ms")
        key, raw = item.split("=", 1)
        if raw.count("[") + raw.count("{") > MAX_NESTING:
            raise InputError(
                f"--set {key.strip()}: the value is nested more than {MAX_NESTING} levels deep; "
                "a scenario value needs a few levels at most"
            )
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        out[key.strip()] = value
    return out


def _output_dir(path: Path, flag: str = "--out", kind: str | None = None) -> Path:
    """Creates the output directory before any work, or fails with an input error: a path that
    is a file, under a file, unwritable or impossible is the user's to fix, not a crash after
    the measurement; so is a folder holding results of another `kind` than those to be written
    (:mod:`ndncc.folders`)."""
    if path.exists() and not path.is_dir():
        raise InputError(f"{flag} {path}: exists and is not a directory (choose another path)")
    if kind is not None:
        from .folders import FolderKindError, check_kind

        try:
            check_kind(path, kind, flag)
        except FolderKindError as e:
            raise InputError(str(e)) from None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{flag} {path}: cannot create it ({e.strerror or e})") from e
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"{flag} {path}: not writable (choose another path)")
    return path


def _error(text: str) -> None:
    """Errors go to stderr unwrapped, one problem per line, so scripts can grep them."""
    print(text, file=sys.stderr, flush=True)
