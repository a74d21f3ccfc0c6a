"""Quantities with units, as users write them (ns-3 style), converted to integers.

* rates  -> bits per second: ``"100Mbps"``, ``"1Gbps"``, ``"10Kbps"``, ``"500bps"``,
  ``"12.5MBps"`` (``b`` = bits, ``B`` = bytes; k/K, M, G, T are decimal, Ki/Mi/Gi binary)
* times  -> nanoseconds: ``"50ms"``, ``"10s"``, ``"1.5s"``, ``"250us"``, ``"100ns"``, ``"2min"``
* sizes  -> bytes: ``"1250B"``, ``"1500KB"`` (KB = 1000 bytes), ``"64KiB"`` (KiB = 1024 bytes)
* queues -> ``{"packets": N}`` or ``{"bytes": N}``: ``"100p"``, ``"100packets"``, ``"1500KB"``

Every parser raises :class:`UnitError` (with a suggested fix) instead of guessing. A bare number
is accepted only when it is zero (zero needs no unit); negative values are always rejected.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction

__all__ = [
    "UnitError",
    "format_queue",
    "format_rate",
    "format_size",
    "format_time",
    "parse_queue",
    "parse_rate",
    "parse_size",
    "parse_time",
]


class UnitError(ValueError):
    """A quantity that cannot be read. ``problem`` says what is wrong, ``fix`` what to write."""

    def __init__(self, problem: str, fix: str):
        super().__init__(f"{problem} (fix: {fix})")
        self.problem = problem
        self.fix = fix


_NUMBER = re.compile(
    r"^\s*(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>[^\s\d.+-][^\s]*)?\s*$"
)

_DECIMAL_PREFIX = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY_PREFIX = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}

_TIME_UNITS = {
    "ns": 1,
    "nsec": 1,
    "us": 10**3,
    "µs": 10**3,
    "usec": 10**3,
    "ms": 10**6,
    "msec": 10**6,
    "s": 10**9,
    "sec": 10**9,
    "secs": 10**9,
    "second": 10**9,
    "seconds": 10**9,
    "min": 60 * 10**9,
    "mins": 60 * 10**9,
    "minute": 60 * 10**9,
    "minutes": 60 * 10**9,
    "h": 3600 * 10**9,
    "hour": 3600 * 10**9,
    "hours": 3600 * 10**9,
}

_PACKET_UNITS = {"p", "pkt", "pkts", "packet", "packets"}

_RATE_UNIT = re.compile(
    r"^(?P<prefix>[kKmMgGtT]?)(?P<bin>i?)(?P<base>[bB])(?P<per>[pP][sS]|/[sS])$"
)
_SIZE_UNIT = re.compile(r"^(?P<prefix>[kKmMgGtT]?)(?P<bin>i?)(?P<base>[bB])$")


# --------------------------------------------------------------------------------------------
# Shared helpers


def _split(value: object, what: str, example: str) -> tuple[Fraction, str]:
    """Splits a value into (non-negative number, unit text); unit text may be empty."""
    if isinstance(value, bool):
        raise UnitError(f"expected {what} such as '{example}', got {value!r}", f"write '{example}'")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise UnitError(f"{value!r} is not a number", f"write '{example}'")
        if value < 0:
            raise UnitError(f"{what} must not be negative, got {value!r}", f"write '{example}'")
        return Fraction(value), ""
    if not isinstance(value, str):
        raise UnitError(
            f"expected {what} such as '{example}', got {type(value).__name__} {value!r}",
            f"write '{example}'",
        )
    match = _NUMBER.match(value)
    if match is None:
        raise UnitError(
            f"cannot read {value!r} as {what}: expected a number followed by a unit",
            f"write '{example}'",
        )
    number = Fraction(match["num"])
    if number < 0:
        raise UnitError(
            f"{what} must not be negative, got {value!r}",
            f"write a positive value such as '{example}'",
        )
    return number, match["unit"] or ""


def _missing_unit(value: object, what: str, unit_example: str) -> UnitError:
    return UnitError(f"{what} {value!r} has no unit", f"write '{_shown(value)}{unit_example}'")


def _shown(value: object) -> str:
    """A bare number as the user would retype it with a unit: 50 -> "50", 10.0 -> "10"."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _plain(number: Fraction) -> str:
    """A fraction with a finite decimal expansion as short decimal text ("12.5", "100")."""
    if number.denominator == 1:
        return str(number.numerator)
    text = format(Decimal(number.numerator) / Decimal(number.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# The largest amount each parser returns: the simulator keeps times and rates in 64-bit integers
# and adds times together, so they stop well short of 2^64 (10^18 ns is 31.7 years).
_LARGEST = {
    "nanoseconds": (10**18, "10^18 ns (31.7 years)"),
    "bits per second": (10**18, "10^18 bit/s"),
    "bytes": (2**64 - 1, "2^64 − 1 bytes"),
    "packets": (2**32 - 1, "4294967295 packets"),
}


def _whole(number: Fraction, value: object, smallest: str) -> int:
    if number.denominator != 1:
        raise UnitError(
            f"{value!r} is not a whole number of {smallest}",
            f"round it to a whole number of {smallest}",
        )
    largest, shown = _LARGEST.get(smallest, (None, ""))
    if largest is not None and number.numerator > largest:
        raise UnitError(f"{value!r} is too large (at most {shown})", "write a smaller value")
    return number.numerator


def _other_dimension(unit: str) -> str | None:
    """Names the dimension `unit` belongs to, to explain 'wrong kind of unit' mistakes."""
    if _RATE_UNIT.match(unit):
        return "a rate"
    if unit.lower() in _TIME_UNITS:
        return "a time"
    if _SIZE_UNIT.match(unit) or unit.lower() in ("byte", "bytes"):
        return "a size"
    if unit.lower() in _PACKET_UNITS:
        return "a packet count"
    return None


def _wrong_unit(value: object, unit: str, what: str, units: str, example: str) -> UnitError:
    other = _other_dimension(unit)
    if other is not None:
        return UnitError(f"{value!r} is {other}, but {what} is needed", f"write e.g. '{example}'")
    return UnitError(
        f"unknown unit '{unit}' in {value!r}; {what} takes {units}", f"write e.g. '{example}'"
    )


def _prefix_factor(prefix: str, binary: str, value: object) -> int:
    table = _BINARY_PREFIX if binary else _DECIMAL_PREFIX
    factor = table.get(prefix.lower())
    if factor is None:  # only possible for "i" without a prefix, e.g. "ib"
        raise UnitError(
            f"unknown unit prefix in {value!r}", "use k, M, G (decimal) or Ki, Mi, Gi (binary)"
        )
    return factor


# --------------------------------------------------------------------------------------------
# Rates


def parse_rate(value: object) -> int:
    """Parses a data rate; returns bits per second.

    ``b`` is bits and ``B`` bytes (case matters); the multiplier letter does not (``mbps`` is
    Mbps: there is no millibit). An all-uppercase ``MBPS`` is ambiguous and rejected.
    """
    what = "a rate"
    number, unit = _split(value, what, "100Mbps")
    if not unit:
        if number == 0:
            return 0
        raise _missing_unit(value, what, "Mbps")
    match = _RATE_UNIT.match(unit)
    if match is None:
        raise _rate_unit_error(value, number, unit)
    if match["base"] == "B" and match["per"] in ("PS", "/S") and unit == unit.upper():
        shown = _plain(number)
        raise UnitError(
            f"{value!r} is ambiguous: 'b' means bits and 'B' bytes",
            f"write '{shown}{match['prefix'].upper()}bps' for bits or "
            f"'{shown}{match['prefix'].upper()}Bps' for bytes per second",
        )
    factor = _prefix_factor(match["prefix"], match["bin"], value)
    bits = 8 if match["base"] == "B" else 1
    return _whole(number * factor * bits, value, "bits per second")


def _rate_unit_error(value: object, number: Fraction, unit: str) -> UnitError:
    size = _SIZE_UNIT.match(unit)
    if size is not None:
        shown = f"{_plain(number)}{size['prefix']}{size['bin']}{size['base']}ps"
        return UnitError(
            f"{value!r} is a size, not a rate (a rate ends in 'ps' or '/s')", f"write '{shown}'"
        )
    return _wrong_unit(
        value, unit, "a rate", "bps, Kbps, Mbps, Gbps; Bps etc. for bytes", "100Mbps"
    )


# --------------------------------------------------------------------------------------------
# Times


def parse_time(value: object, unit_example: str = "ms") -> int:
    """Parses a time or duration; returns nanoseconds.

    Units (case-insensitive): ns, us (µs), ms, s, min, h. ``unit_example`` is the unit proposed
    when the value has none ("write '50ms'").
    """
    what = "a time"
    number, unit = _split(value, what, f"50{unit_example}")
    if not unit:
        if number == 0:
            return 0
        raise _missing_unit(value, what, unit_example)
    factor = _TIME_UNITS.get(unit.lower())
    if factor is None:
        if unit.lower() == "m":
            shown = _plain(number)
            raise UnitError(f"'m' in {value!r} is ambiguous", f"write '{shown}ms' or '{shown}min'")
        raise _wrong_unit(value, unit, what, "ns, us, ms, s, min, h", f"50{unit_example}")
    return _whole(number * factor, value, "nanoseconds")


# --------------------------------------------------------------------------------------------
# Sizes and queues


def parse_size(value: object) -> int:
    """Parses a size; returns bytes. ``B`` = byte (``b``, bits, is rejected); KB = 1000 B,
    KiB = 1024 B; the multiplier letter is case-insensitive."""
    what = "a size"
    number, unit = _split(value, what, "1250B")
    if not unit:
        if number == 0:
            return 0
        raise _missing_unit(value, what, "B")
    if unit.lower() in ("byte", "bytes"):
        return _whole(number, value, "bytes")
    match = _SIZE_UNIT.match(unit)
    if match is None:
        raise _wrong_unit(value, unit, what, "B, KB, MB, GB, KiB, MiB, GiB", "1250B")
    if match["base"] == "b":
        raise UnitError(
            f"'b' in {value!r} means bits; sizes are in bytes",
            f"write '{_plain(number)}{match['prefix']}{match['bin']}B'",
        )
    factor = _prefix_factor(match["prefix"], match["bin"], value)
    return _whole(number * factor, value, "bytes")


def parse_queue(value: object) -> dict[str, int]:
    """Parses a queue capacity: ``"100p"`` -> ``{"packets": 100}``, ``"1500KB"`` ->
    ``{"bytes": 1500000}``."""
    what = "a queue capacity"
    example = "100p"
    number, unit = _split(value, what, example)
    if not unit:
        shown = _shown(value)
        raise UnitError(
            f"queue capacity {value!r} has no unit",
            f"write '{shown}p' for packets or '{shown}KB' for kilobytes",
        )
    if unit.lower() in _PACKET_UNITS:
        return {"packets": _whole(number, value, "packets")}
    try:
        return {"bytes": parse_size(value)}
    except UnitError as err:
        if _SIZE_UNIT.match(unit) or unit.lower() in ("byte", "bytes"):
            raise
        raise _wrong_unit(value, unit, what, "p (packets), B, KB, MB, KiB, MiB", example) from err


# --------------------------------------------------------------------------------------------
# Formatting (the inverse: integers to the shortest exact unit string)


def _format(amount: int, units: list[tuple[str, int]], zero: str) -> str:
    """Picks the largest unit that shows `amount` exactly with at most three decimals."""
    if amount == 0:
        return zero
    for name, factor in units:
        if amount % factor == 0:
            return f"{amount // factor}{name}"
        if amount > factor and _is_decimal_factor(factor):
            text = _plain(Fraction(amount, factor))
            if len(text.partition(".")[2]) <= 3:
                return f"{text}{name}"
    return f"{amount}{units[-1][0]}"


def _is_decimal_factor(factor: int) -> bool:
    while factor % 10 == 0:
        factor //= 10
    return factor == 1


def format_rate(bps: int) -> str:
    """``100_000_000`` -> ``"100Mbps"``; ``12_500_000`` -> ``"12.5Mbps"``."""
    return _format(
        int(bps), [("Gbps", 10**9), ("Mbps", 10**6), ("Kbps", 10**3), ("bps", 1)], "0bps"
    )


def format_time(ns: int) -> str:
    """``50_000_000`` -> ``"50ms"``; ``1_500_000_000`` -> ``"1.5s"``; ``120e9`` -> ``"2min"``."""
    units = [("min", 60 * 10**9), ("s", 10**9), ("ms", 10**6), ("us", 10**3), ("ns", 1)]
    return _format(int(ns), units, "0s")


def format_size(nbytes: int) -> str:
    """``1250`` -> ``"1250B"``; ``1_500_000`` -> ``"1.5MB"``; ``2_000_000`` -> ``"2MB"``."""
    units = [("GB", 10**9), ("MB", 10**6), ("KB", 10**3), ("B", 1)]
    return _format(int(nbytes), units, "0B")


def format_queue(queue: dict[str, int]) -> str:
    """``{"packets": 100}`` -> ``"100p"``; ``{"bytes": 64000}`` -> ``"64KB"``."""
    if "packets" in queue:
        return f"{queue['packets']}p"
    return format_size(queue["bytes"])
