"""Memory a run would need, estimated before it starts (mixed into the resolver).

Every Interest a consumer has sent and not yet seen answered holds state until its Data, a
Nack, its timeout or its lifetime: the consumer's pending entry and deadline, PIT entries, the
events that carry it. A run of `ndncc.run` keeps about :data:`BYTES_PER_INTEREST` per such
Interest (measured: a constant-rate consumer at 3·10⁶ Interests/s for 1 s on a 10 Mbps link
grew the process by ≈ 2.1 GB). A rate-based consumer at its highest rate r whose Interests are
not answered (the link cannot carry them) keeps up to r × min(hold, active time) of them, where
hold is the later of its timeout and its Interests' lifetime. The sum over the consumers, at
that many bytes each, is the estimate: above :data:`REFUSE_SHARE` of the machine's memory the
scenario is refused (the run would abort when memory runs out), above :data:`WARN_SHARE` it is
warned about. Window-based consumers hold at most their window and are not counted.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

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
        parts = []  # (bytes, app, rate key, rate, hold in s)
        tags = {e["tag"]: e for e in controllers().values()}
        for app in self.apps:
            if app.kind != "consumer":
                continue
            body = app.spec["app"]
            controller = body["controller"]
            entry = tags[controller["type"]]
            if entry["target"] != "rate":
                continue
            rates = [
                (controller[p["name"]], p["name"])
                for p in entry["params"]
                if p["unit"] == "Interests/s" and isinstance(controller[p["name"]], (int, float))
            ]
            if not rates:
                continue
            rate, key = max(rates)
            hold_ns = max(body["lifetime_ns"], body["timeout_ns"] or 0)
            start = app.spec.get("start_ns") or 0
            stop = app.spec.get("stop_ns") or self.duration_ns or hold_ns
            hold_ns = min(hold_ns, max(stop - start, 0))
            parts.append((rate * hold_ns / 1e9 * BYTES_PER_INTEREST, app, key, rate, hold_ns))
        if not parts:
            return
        total = sum(p[0] for p in parts)
        memory = machine_memory()
        if total <= WARN_SHARE * memory:
            return
        size, app, key, rate, hold_ns = max(parts, key=lambda p: p[0])
        others = f"; {format_bytes(total)} with the other consumers" if len(parts) > 1 else ""
        problem = (
            f"the run may keep up to {size / BYTES_PER_INTEREST:.3g} Interests outstanding "
            f"({rate:g} Interests/s, each held up to {format_time(hold_ns)} when unanswered: "
            f"its timeout or lifetime, or the time it sends), about {format_bytes(size)} at "
            f"≈{BYTES_PER_INTEREST} B each{others}"
        )
        share = REFUSE_SHARE if total > REFUSE_SHARE * memory else WARN_SHARE
        safe = _floor3(rate * share * memory / total)
        fix = (
            f"lower {key} to at most {safe:.3g} Interests/s, or shorten lifetime or timeout "
            f"(this machine has {format_bytes(memory)})"
        )
        where = f"{app.key}.{key}"
        if total > REFUSE_SHARE * memory:
            self.error(where, problem + f": more than {REFUSE_SHARE:.0%} of memory", fix)
        else:
            self.warn(where, problem + f": more than {WARN_SHARE:.1%} of memory", fix)
