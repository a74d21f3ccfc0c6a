"""Reading tables: :class:`_Table` (one table of the scenario, or one link of a topology
file, plus where it came from) and the records the resolver collects (:class:`_Link`,
:class:`_App`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import Problem, _Bad, _did_you_mean
from .keys import _KEY_HINTS

if TYPE_CHECKING:
    from .resolver import _Resolver

_MISSING = object()  # key absent, no default: the getter returns None
_INVALID = object()  # a value that failed validation (already reported)


class _Table:
    """One table of the scenario (or one link of a topology file) plus where it came from."""

    def __init__(self, res: _Resolver, data: dict, path: str, file: str | None = None):
        self.res = res
        self.data = data
        self.path = path
        self.file = file or res.source
        self.broken = False  # was not a table: its missing keys are not news

    def at(self, name: str) -> str:
        if self.path.startswith("line "):
            return f"{self.path} ({name})"
        return f"{self.path}.{name}" if self.path else name

    def error(self, name: str | None, problem: str, fix: str) -> None:
        self.res.problems.append(
            Problem(self.file, self.at(name) if name else self.path, problem, fix)
        )

    def check_keys(
        self, allowed: Iterable[str], elsewhere: dict[str, tuple[str, str]] | None = None
    ) -> None:
        """Reports unknown keys, with a suggestion; `elsewhere` maps keys that belong to another
        context to a (problem, fix) explanation."""
        allowed = tuple(allowed)
        for key in self.data:
            if key in allowed:
                continue
            if elsewhere and key in elsewhere:
                self.error(key, *elsewhere[key])
                continue
            hint = _KEY_HINTS.get(str(key).lower())
            close = hint if hint in allowed else _did_you_mean(str(key), allowed)
            fix = f"did you mean '{close}'?" if close else f"known keys here: {', '.join(allowed)}"
            self.error(key, f"unknown key '{key}'", fix)

    def get(
        self,
        name: str,
        convert: Callable[[object], Any],
        default: Any = _MISSING,
        required: str | None = None,
    ) -> Any:
        """The converted value of `name`; `default` when absent (None if no default); reports a
        missing required key (with `required` as the fix) or a bad value and returns _INVALID."""
        if name not in self.data:
            if required is not None:
                if not self.broken:
                    self.error(name, f"missing {name}", required)
                return _INVALID
            return None if default is _MISSING else default
        try:
            return convert(self.data[name])
        except _Bad as bad:
            self.error(name, bad.problem, bad.fix)
            return _INVALID


def _invalid(*values: Any) -> bool:
    return any(v is _INVALID for v in values)


@dataclass
class _Link:
    a: int
    b: int
    bandwidth_bps: int
    delay_ns: int
    queue_ab: dict
    queue_ba: dict
    loss: float
    cost: int
    file: str  # where the link was written, for messages
    key: str

    def spec(self) -> dict:
        return {
            "a": self.a, "b": self.b,
            "bandwidth_bps": self.bandwidth_bps, "delay_ns": self.delay_ns,
            "queue_ab": dict(self.queue_ab), "queue_ba": dict(self.queue_ba), "loss": self.loss,
            "cost": self.cost,
        }  # fmt: skip


@dataclass
class _App:
    index: int
    name: str
    node: int
    kind: str
    prefix: str
    key: str
    spec: dict
