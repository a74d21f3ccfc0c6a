"""Problems: what a scenario reports (:class:`Problem`, :class:`ScenarioError`), the
converters' failure (:class:`_Bad`) and the helpers every message uses (how a value is
described, did-you-mean)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One mistake (or warning): where it is, what is wrong, how to fix it."""

    file: str
    key: str
    problem: str
    fix: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else self.file
        return f"{where}: {self.problem} (fix: {self.fix})"


class ScenarioError(Exception):
    """A scenario that cannot be run. ``problems`` lists every mistake found; ``str()`` gives
    one line per problem: ``FILE: KEY: PROBLEM (fix: FIX)``."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self):
        # Pickled (a sweep's worker process sends it back) by its problems, not by its
        # message: the default would rebuild it from the joined text, one "problem" a character.
        return (type(self), (self.problems,))


class _Bad(Exception):
    """A value that cannot be used (raised by converters, turned into a Problem by callers)."""

    def __init__(self, problem: str, fix: str):
        super().__init__(problem)
        self.problem = problem
        self.fix = fix


def missing(path: object) -> str:
    """Why `path` cannot be read as a file: "not found", "is a directory, not a file", or "is
    not a regular file" (a socket, a device)."""
    from pathlib import Path

    path = Path(str(path))
    if path.is_dir():
        return "is a directory, not a file"
    return "is not a regular file" if path.exists() else "not found"


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    if value is None:
        return "None"
    kind = {int: "the integer", float: "the number"}.get(type(value), type(value).__name__)
    return f"{kind} {value!r}"


def _did_you_mean(word: str, options: Iterable[str], cutoff: float = 0.6) -> str | None:
    options = list(options)
    exact = [o for o in options if o.lower() == word.lower()]
    close = exact or difflib.get_close_matches(word, options, n=1, cutoff=cutoff)
    return close[0] if close else None
