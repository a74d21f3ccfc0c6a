"""Value converters: value -> converted value, or raise :class:`~.errors._Bad` (which the
caller turns into a Problem located at the key)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any

from ..units import UnitError, format_time, parse_queue, parse_rate, parse_size, parse_time
from .errors import _Bad, _describe, _did_you_mean
from .keys import CLOCKS, MAX_RATE, U64

_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


def _unit(
    parse: Callable[..., Any], positive: str | None = None, minimum: int = 0, **kw: Any
) -> Callable[[object], Any]:
    """Wraps a units parser; with `positive` (an example value) zero is rejected too, and an
    amount below `minimum` (e.g. a timer period of a few ns, which would flood the event
    queue)."""

    def convert(value: object) -> Any:
        try:
            result = parse(value, **kw)
        except UnitError as err:
            raise _Bad(err.problem, err.fix) from None
        amount = next(iter(result.values())) if isinstance(result, dict) else result
        if positive is not None and amount == 0:
            raise _Bad(f"must be positive, got {value!r}", f"write e.g. '{positive}'")
        if amount < minimum:
            shown = format_time(minimum) if parse is parse_time else str(minimum)
            raise _Bad(
                f"{value!r} is below the smallest period, {shown}", f"write e.g. '{positive}'"
            )
        return result

    return convert


def _integer(low: int = 0, high: int = U64) -> Callable[[object], int]:
    def convert(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                fix = f"write {int(value)} (no decimal point)"
            elif isinstance(value, str) and value.strip().isdigit():
                fix = f"write {value.strip()} without quotes"
            else:
                fix = f"write a whole number such as {max(low, 1)}"
            raise _Bad(f"expected an integer, got {_describe(value)}", fix)
        if value < low:
            raise _Bad(f"must be at least {low}, got {value}", f"write a whole number >= {low}")
        if value > high:
            raise _Bad(f"must be at most {high}, got {value}", f"write a whole number <= {high}")
        return value

    return convert


def _a_number(value: object, example: str) -> float:
    """`value` as a float, or _Bad for a non-number (a quoted number gets "without quotes")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fix = f"write e.g. {example}"
        if isinstance(value, str):
            try:
                float(value.strip())
            except ValueError:
                fix = f"write a plain number (no unit, no quotes), e.g. {example}"
            else:
                fix = f"write {value.strip()} without quotes"
        raise _Bad(f"expected a number, got {_describe(value)}", fix)
    if not math.isfinite(value):
        raise _Bad(f"expected a finite number, got {value!r}", f"write e.g. {example}")
    return float(value)


def _positive_number(example: str) -> Callable[[object], float]:
    def convert(value: object) -> float:
        number = _a_number(value, example)
        if number <= 0:
            raise _Bad(f"must be a positive number, got {value!r}", f"write e.g. {example}")
        if number > MAX_RATE:
            # every such key is a rate per second (or a factor of one)
            raise _Bad(
                f"{value!r} is too large: at most {MAX_RATE:g}, one per nanosecond (the "
                "simulator's resolution)",
                f"write e.g. {example}",
            )
        return number

    return convert


def _number_in(
    example: str,
    low: float,
    high: float | None = None,
    *,
    open_low: bool = False,
    closed_high: bool = False,
) -> Callable[[object], float]:
    """A number >= low (> low with `open_low`) and, with `high`, < high (<= high with
    `closed_high`)."""

    def convert(value: object) -> float:
        number = _a_number(value, example)
        below = number <= low if open_low else number < low
        above = high is not None and (number > high if closed_high else number >= high)
        if below or above:
            if high is not None:
                where = (
                    f"in {'(' if open_low else '['}{low:g}, {high:g}{']' if closed_high else ')'}"
                )
            else:
                where = f"{'greater than' if open_low else 'at least'} {low:g}"
            raise _Bad(f"must be {where}, got {value!r}", f"write e.g. {example}")
        return number

    return convert


def _rate_or(word: str) -> Callable[[object], float | None]:
    """A rate in Interests/s, or `word` (None): a rate the simulator derives from the face
    ("line": sf's line rate; "capacity": MIRCC's C; "rtt": MIRCC's floor of 1/d)."""

    def convert(value: object) -> float | None:
        if isinstance(value, str):
            if value.strip().lower() == word:
                return None
            try:
                float(value.strip())
            except ValueError:
                close = _did_you_mean(value.strip(), [word], cutoff=0.5)
                raise _Bad(
                    f'expected a number of Interests/s or "{word}", got {_describe(value)}',
                    f'did you mean "{word}"?' if close else f'write e.g. 1000, or "{word}"',
                ) from None
        return _positive_number(f'1000, or "{word}"')(value)

    return convert


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        word = value.strip().lower() if isinstance(value, str) else ""
        fix = f"write {word} without quotes" if word in ("true", "false") else "write true or false"
        raise _Bad(f"expected true or false, got {_describe(value)}", fix)
    return value


def _string(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad(f"expected a string, got {_describe(value)}", "put the value in double quotes")
    return value


def _scenario_name(value: object) -> str:
    """A scenario name: also the default output directory results/<name>, so one path part."""
    text = _string(value)
    fix = 'use letters, digits, "-", "_" and ".", e.g. "dumbbell-2"'
    if not text.strip() or text in (".", ".."):
        raise _Bad(f"{text!r} is not a usable name", fix)
    if any(c in text for c in "/\\") or any(ord(c) < 32 for c in text):
        raise _Bad(f"{text!r} contains a path separator or a control character", fix)
    if len(text) > 200:
        raise _Bad(f"the name is {len(text)} characters long (at most 200)", fix)
    return text


def _choice(what: str, options: Iterable[str]) -> Callable[[object], str]:
    options = tuple(options)

    def convert(value: object) -> str:
        listed = ", ".join(f'"{o}"' for o in options)
        if not isinstance(value, str):
            raise _Bad(f"expected a string, got {_describe(value)}", f"use one of {listed}")
        if value in options:
            return value
        close = _did_you_mean(value.replace("_", "-"), options, cutoff=0.5)
        fix = f'did you mean "{close}"?' if close else f"use one of {listed}"
        raise _Bad(f"unknown {what} '{value}' (known: {listed})", fix)

    return convert


def _name(what: str) -> Callable[[object], str]:
    def convert(value: object) -> str:
        if not isinstance(value, str):
            raise _Bad(
                f"expected a {what} name, got {_describe(value)}",
                'write it in double quotes, e.g. "R1"',
            )
        text = value
        if not _NAME_RE.match(text):
            cleaned = re.sub(r"[^A-Za-z0-9_.\-]+", "_", text).strip("_.-") or "n1"
            raise _Bad(
                f"{what} name {text!r} may contain only letters, digits, '_', '-' and '.'",
                f"rename it, e.g. '{cleaned}'",
            )
        return text

    return convert


def _prefix(value: object) -> str:
    text = _string(value)
    if not text.startswith("/"):
        raise _Bad(f"prefix {text!r} must start with '/'", f"write '/{text}'")
    if any(c.isspace() for c in text):
        raise _Bad(
            f"prefix {text!r} contains whitespace", "remove the spaces or percent-encode them (%20)"
        )
    if text != "/" and (text.endswith("/") or "//" in text):
        fixed = "/" + "/".join(c for c in text.split("/") if c)
        raise _Bad(f"prefix {text!r} has an empty name component", f"write '{fixed}'")
    return text


def _probability(value: object) -> float:
    if isinstance(value, str) and value.strip().endswith("%"):
        number = value.strip()[:-1].strip()
        try:
            value = float(number) / 100
        except ValueError:
            raise _Bad(
                f"cannot read {value!r} as a percentage", 'write e.g. 0.01 or "1%"'
            ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(
            f"expected a probability, got {_describe(value)}", 'write e.g. 0.01 (1 % loss) or "1%"'
        )
    if not 0 <= value < 1:
        hint = f'; for {value} % write {value / 100:g} or "{value:g}%"' if 1 <= value < 100 else ""
        raise _Bad(
            f"loss must be a probability in [0, 1), got {value!r}",
            f"write e.g. 0.01 for 1 % loss{hint}",
        )
    return float(value)


def _pair(value: object) -> tuple[str, str]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise _Bad(f"expected two node names, got {_describe(value)}", 'write between = ["A", "B"]')
    return _name("node")(value[0]), _name("node")(value[1])


def _next_hops(value: object) -> list[str]:
    hops = list(value) if isinstance(value, (list, tuple)) else [value]
    if not hops:
        raise _Bad("next_hop is empty", 'write next_hop = "R1" or next_hop = ["R1", "R2"]')
    return [_name("node")(h) for h in hops]


_TIME = _unit(parse_time, unit_example="s")
_POSITIVE_TIME = _unit(parse_time, positive="1s", unit_example="s")
_DELAY = _unit(parse_time, unit_example="ms")
_POSITIVE_RATE = _unit(parse_rate, positive="100Mbps")
_POSITIVE_QUEUE = _unit(parse_queue, positive="100p")


def _size(low: int, high: int, example: str) -> Callable[[object], int]:
    base = _unit(parse_size)

    def convert(value: object) -> int:
        size = base(value)
        if size < low:
            raise _Bad(f"must be positive, got {value!r}", f"write e.g. '{example}'")
        if size > high:
            raise _Bad(f"must be at most {high} bytes, got {value!r}", f"write e.g. '{example}'")
        return size

    return convert


def _size_or(word: str, low: int, high: int) -> Callable[[object], int | None]:
    """A size in bytes, or `word` (None): a size the resolver derives ("producers": the Data
    wire size of the scenario's producers)."""
    size = _size(low, high, "1250B")

    def convert(value: object) -> int | None:
        if isinstance(value, str) and value.strip().lower() == word:
            return None
        try:
            return size(value)
        except _Bad as bad:
            if isinstance(value, str) and _did_you_mean(value.strip(), [word], cutoff=0.5):
                raise _Bad(
                    f'expected a size such as "1250B", or "{word}", got {_describe(value)}',
                    f'did you mean "{word}"?',
                ) from None
            raise _Bad(bad.problem, f'{bad.fix}, or "{word}"') from None

    return convert


def _kr(value: object) -> float:
    """The RMC gain kr: the loop's error evolves as e <- (1 - kr) e, so it is stable only for
    0 < kr < 2 (seed 003)."""
    kr = _a_number(value, "1")
    if not 0 < kr < 2:
        raise _Bad(
            f"kr must be in (0, 2), got {value!r}",
            "write a gain in (0, 2), e.g. kr = 1 (seed 003's recommended value): every period "
            "multiplies the RMC loop's error by 1 - kr, so the loop is unstable for kr >= 2 "
            "(and does not converge for kr <= 0)",
        )
    return kr


_clock_choice = _choice("clock", CLOCKS)


def _clock(value: object) -> str:
    """A clock model name; a time (clock = "1ms") gets a fix naming clock_granularity."""
    try:
        return _clock_choice(value)
    except _Bad as bad:
        if isinstance(value, str):
            try:
                parse_time(value)
            except UnitError:
                pass
            else:
                raise _Bad(
                    bad.problem,
                    f"clock names the clock model; for timers of granularity {value} write "
                    f'clock = "granular" and clock_granularity = "{value}"',
                ) from None
        raise


_CLOCK_TIME = _unit(parse_time, positive="1ms", unit_example="ms")
# a timer that fires periodically: at least 1 µs (a 1 ns period is 10^9 events per second)
_PERIOD_TIME = _unit(parse_time, positive="1ms", minimum=1_000, unit_example="ms")
_WAIT_TIME = _unit(parse_time, positive="50us", unit_example="us")
