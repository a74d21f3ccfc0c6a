"""The run-wide tables: [scenario], [packets] and [trace]."""

from __future__ import annotations

from typing import Any

from ..units import format_time, parse_time
from .convert import _POSITIVE_TIME, _boolean, _integer, _scenario_name, _size, _unit
from .keys import (
    _PACKET_KEYS,
    _PERIODIC_TRACES,
    _SCENARIO_KEYS,
    _TRACE_KEYS,
    DEFAULT_RATE_TRACE_NS,
    U32,
)
from .tables import _invalid, _Table


class _SettingsReader:
    """[scenario], [packets] and [trace] (mixed into :class:`~.resolver._Resolver`)."""

    # ---- [scenario], [packets] -------------------------------------------------------------

    def read_scenario(self) -> dict:
        t = self.table("scenario")
        t.check_keys(_SCENARIO_KEYS)
        name = t.get("name", _scenario_name, default=self.default_name)
        duration = t.get(
            "duration", _POSITIVE_TIME, required='add duration = "10s" under [scenario]'
        )
        seed = t.get("seed", _integer(), default=1)
        run = t.get("run", _integer(), default=0)
        if not _invalid(duration):
            self.duration_ns = duration
        return {"name": name, "duration_ns": duration, "seed": seed, "run": run}

    def read_packets(self) -> dict:
        t = self.table("packets")
        t.check_keys(_PACKET_KEYS)
        return {
            "interest_size": t.get("interest_size", _size(1, U32, "40B"), default=40),
            "data_overhead": t.get("data_overhead", _size(0, U32, "0B"), default=0),
            "nack_overhead": t.get("nack_overhead", _size(0, U32, "4B"), default=4),
        }

    # ---- [trace] -----------------------------------------------------------------------------

    def read_trace(self) -> tuple[dict, dict]:
        t = self.table("trace")
        t.check_keys(_TRACE_KEYS)
        bin_ns = t.get(
            "bin", _unit(parse_time, positive="100ms", unit_example="ms"), default=100_000_000
        )
        delays = t.get("delays", _boolean, default=True)
        options = {
            "parquet": t.get("parquet", _boolean, default=True),
            "figures": t.get("figures", _boolean, default=True),
            **{key: self.read_trace_period(t, key, bin_ns) for key in _PERIODIC_TRACES},
            "app_delays_trace": t.get("app_delays_trace", _boolean, default=False),
            "bin_s": None if _invalid(bin_ns) else bin_ns / 1e9,
        }
        if options["app_delays_trace"] is True and delays is False:
            t.error(
                "app_delays_trace",
                "app_delays_trace needs the per-Data delay table",
                "set delays = true, or app_delays_trace = false",
            )
        self.bin_ns = bin_ns
        return {"bin_ns": bin_ns, "delays": delays}, options

    def read_trace_period(self, t: _Table, key: str, bin_ns: Any) -> float | None:
        """The period in seconds of an ndnSIM-style periodic tracer: false (off, the default),
        true (ndnSIM's 0.5 s) or a time that is a multiple of bin; None when off or invalid."""
        value = t.data.get(key, False)
        if value is False:
            return None
        period = (
            DEFAULT_RATE_TRACE_NS
            if value is True
            else t.get(key, _unit(parse_time, positive="0.5s", unit_example="s"))
        )
        if _invalid(period):
            return None
        if not _invalid(bin_ns) and period % bin_ns:
            multiple = max(1, round(period / bin_ns)) * bin_ns
            t.error(
                key,
                f"period {format_time(period)} is not a multiple of bin ({format_time(bin_ns)})",
                f'set {key} = "{format_time(multiple)}", or change bin',
            )
            return None
        return period / 1e9
