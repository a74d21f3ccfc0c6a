"""Memory a run would need, estimated before it starts (mixed into the resolver).

Every Interest a consumer has sent and not yet seen answered holds state until its Data, a
Nack, its timeout or its lifetime: the consumer's pending entry and deadline, PIT entries, the
events that carry it. A run of `ndncc.run` keeps about :data:`BYTES_PER_INTEREST` per such
Interest (measured: a constant-rate consumer at 3·10⁶ Interests/s for 1 s on a 10 Mbps link
grew the process by ≈ 2.1 GB). A rate-based consumer at its highest rate r whose Interests are
not answered (the link cannot carry them) keeps up to r × min(hold, active time) of them, where
hold is the later of its timeout and its Interests' lifetime. A window-based consumer sends its
whole window at once when it starts and keeps it outstanding: it holds up to its largest window
setting (``window``, ``initial_window``, ``min_window``; measured: a ``fixed-window`` consumer
of 4·10⁶ grew the process by ≈ 1.8 GB, ≈ 460 B per Interest, within the same bound). Either is
capped by ``max_seq``, the sequence numbers it may ask for. The sum over the consumers, at that
many bytes each, is the estimate: above :data:`REFUSE_SHARE` of the machine's memory the
scenario is refused (the run would abort when memory runs out), above :data:`WARN_SHARE` it is
warned about.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, NamedTuple

from ..units import format_time
from .schemes import controllers

BYTES_PER_INTEREST = 700
REFUSE_SHARE = 0.5
WARN_SHARE = 0.125
_FALLBACK_MEMORY = 8 * 2**30


def machine_memory() -> int:
    """Bytes of memory this process may use: the physical memory, or the cgroup's limit when
    smaller (8 GiB when neither can be read)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = _FALLBACK_MEMORY
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit.isdigit():
            total = min(total, int(limit))
    except OSError:
        pass
    return total if total > 0 else _FALLBACK_MEMORY


def format_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} PB"


def _floor3(x: float) -> float:
    """`x` rounded down to 3 significant digits (a limit to stay below)."""
    step = 10.0 ** (math.floor(math.log10(x)) - 2)
    return math.floor(x / step) * step


class _BudgetChecker:
    """The estimate of the state a run keeps (mixed into :class:`~.resolver._Resolver`)."""

    def check_memory(self) -> None:
        parts = [p for app in self.apps if app.kind == "consumer" for p in self._held(app)]
        if not parts:
            return
        total = sum(p.interests for p in parts) * BYTES_PER_INTEREST
        memory = machine_memory()
        if total <= WARN_SHARE * memory:
            return
        part = max(parts, key=lambda p: p.interests)
        size = part.interests * BYTES_PER_INTEREST
        others = f"; {format_bytes(total)} with the other consumers" if len(parts) > 1 else ""
        problem = (
            f"the run may keep up to {part.interests:.3g} Interests outstanding ({part.why}), "
            f"about {format_bytes(size)} at ≈{BYTES_PER_INTEREST} B each{others}"
        )
        share = REFUSE_SHARE if total > REFUSE_SHARE * memory else WARN_SHARE
        safe = _floor3(part.value * share * memory / total)
        fix = part.fix.format(safe=safe) + f" (this machine has {format_bytes(memory)})"
        where = f"{part.app.key}.{part.key}"
        if total > REFUSE_SHARE * memory:
            self.error(where, problem + f": more than {REFUSE_SHARE:.0%} of memory", fix)
        else:
            self.warn(where, problem + f": more than {WARN_SHARE:.1%} of memory", fix)

    def _held(self, app) -> list[_Held]:
        """The Interests one consumer may keep outstanding (nothing when its controller has no
        numeric rate or window setting)."""
        body = app.spec["app"]
        controller = body["controller"]
        entry = _tags()[controller["type"]]
        cap = body.get("max_seq")
        cap = math.inf if cap is None else cap
        if entry["target"] == "window":
            windows = [
                (controller[p["name"]], p["name"])
                for p in entry["params"]
                if p["name"].endswith("window") and _number(controller.get(p["name"]))
            ]
            if not windows:
                return []
            window, key = max(windows)
            why = f"{key} = {window:.10g}, all sent when it starts"
            fix = f"lower {key} to at most {{safe:.3g}}"
            return [_Held(min(window, cap), app, key, window, why, fix)]
        rates = [
            (controller[p["name"]], p["name"])
            for p in entry["params"]
            if p["unit"] == "Interests/s" and _number(controller.get(p["name"]))
        ]
        if not rates:
            return []
        rate, key = max(rates)
        hold_ns = max(body["lifetime_ns"], body["timeout_ns"] or 0)
        start = app.spec.get("start_ns") or 0
        stop = app.spec.get("stop_ns") or self.duration_ns or hold_ns
        hold_ns = min(hold_ns, max(stop - start, 0))
        why = (
            f"{rate:g} Interests/s, each held up to {format_time(hold_ns)} when unanswered: "
            "its timeout or lifetime, or the time it sends"
        )
        fix = f"lower {key} to at most {{safe:.3g}} Interests/s, or shorten lifetime or timeout"
        return [_Held(min(rate * hold_ns / 1e9, cap), app, key, rate, why, fix)]


class _Held(NamedTuple):
    """One consumer's share of the estimate: `interests` outstanding at most, because of its
    setting `key` = `value` (`why` says how; `fix` has a ``{safe}`` for the safe value)."""

    interests: float
    app: Any
    key: str
    value: float
    why: str
    fix: str


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _tags() -> dict[str, dict]:
    return {e["tag"]: e for e in controllers().values()}
