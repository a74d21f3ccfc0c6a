"""[[apps]]: producers, and consumers with their controller, sending engine and clock
(including the clock profiles an OS clock replays)."""

from __future__ import annotations

from typing import Any

from ..units import UnitError, format_time, parse_time
from .clock_profiles import _profile_state, _read_profile_json
from .convert import (
    _CLOCK_TIME,
    _DELAY,
    _PERIOD_TIME,
    _POSITIVE_TIME,
    _TIME,
    _WAIT_TIME,
    _boolean,
    _choice,
    _clock,
    _integer,
    _kr,
    _name,
    _number_in,
    _prefix,
    _size,
    _string,
    _unit,
)
from .errors import ScenarioError, missing
from .keys import (
    _APP_KEYS,
    _CLOCK_KEYS,
    _PRODUCER_KEYS,
    APP_KINDS,
    CLOCK_PROFILE_STATES,
    DEFAULT_CLOCK_GRANULARITY_NS,
    DEFAULT_LIFETIME_NS,
    DEFAULT_RMC_PERIOD_NS,
    ENGINE_KEYS,
    ENGINES,
    MAX_CHUNK_SEGMENTS,
    NDNSIM_LIFETIME_NS,
    RANDOMIZE,
    RETRANSMIT,
    U32,
)
from .schemes import consumer_keys, controller_keys, controllers, cross_check, read_params
from .tables import _INVALID, _App, _invalid, _Table


class _AppReader:
    """[[apps]] (mixed into :class:`~.resolver._Resolver`)."""

    # ---- [[apps]] --------------------------------------------------------------------------

    def read_apps(self) -> None:
        names: dict[str, str] = {}
        for i, t in enumerate(self.array("apps")):
            app = self.read_app(i, t)
            if app is None:
                continue
            if app.name in names:
                t.error(
                    "name",
                    f"duplicate app name '{app.name}' (also {names[app.name]})",
                    "give every app a distinct name",
                )
                continue
            names[app.name] = t.path
            self.apps.append(app)
        self.check_shares()

    def check_shares(self) -> None:
        """The producers of a prefix that hold a share must not hold more than all of it."""
        total: dict[str, float] = {}
        for app in self.apps:
            share = app.spec["app"].get("share") if app.kind == "producer" else None
            if share is not None:
                total[app.prefix] = total.get(app.prefix, 0.0) + share
                if total[app.prefix] > 1.0 + 1e-9:
                    self.array("apps")[app.index].error(
                        "share",
                        f"the shares of the producers of {app.prefix} add up to "
                        f"{total[app.prefix]:g}, more than 1",
                        "make the shares of one prefix add up to at most 1",
                    )

    def read_app(self, i: int, t: _Table) -> _App | None:
        kind = t.get(
            "kind",
            _choice("app kind", APP_KINDS),
            required='add kind = "consumer" or kind = "producer"',
        )
        self.check_app_keys(t, kind)
        name = t.get(
            "name", _name("app"), default=f"{kind}{i}" if isinstance(kind, str) else f"app{i}"
        )
        node_name = t.get("node", _name("node"), required='add node = "NAME"')
        node = None if _invalid(node_name) else self.node_ref(t, "node", node_name)
        prefix = t.get("prefix", _prefix, required='add prefix = "/prefix"')
        start = t.get("start", _TIME, default=0)
        stop = t.get("stop", _TIME)
        self.check_app_times(t, start, stop)
        if kind == "producer":
            body = self.read_producer(t)
        elif kind == "consumer":
            body = self.read_consumer(t)
        else:
            body = None
        if body is None or node is None or _invalid(name, prefix, start, stop):
            return None
        if kind == "consumer":
            self.check_clock_periods(t, body, start, stop)
        spec = {
            "name": name,
            "node": node,
            "start_ns": start,
            "stop_ns": stop,
            "app": {"kind": kind, "prefix": prefix, **body},
        }
        return _App(i, name, node, kind, prefix, t.path, spec)

    def check_app_keys(self, t: _Table, kind: Any) -> None:
        if kind == "producer":
            other = {
                k: (
                    f"'{k}' is a consumer key, this app is a producer",
                    'remove it, or set kind = "consumer"',
                )
                for k in consumer_keys()
            }
            t.check_keys(_APP_KEYS + _PRODUCER_KEYS, other)
        elif kind == "consumer":
            other = {
                k: (
                    f"'{k}' is a producer key, this app is a consumer",
                    'remove it, or set kind = "producer"',
                )
                for k in _PRODUCER_KEYS
            }
            t.check_keys(_APP_KEYS + consumer_keys(), other)
        else:
            t.check_keys(_APP_KEYS + _PRODUCER_KEYS + consumer_keys())

    def check_app_times(self, t: _Table, start: Any, stop: Any) -> None:
        if _invalid(start, stop):
            return
        if stop is not None and stop <= start:
            t.error(
                "stop",
                f"the app stops ({format_time(stop)}) before it starts ({format_time(start)})",
                "make stop later than start, or remove stop",
            )
        if self.duration_ns is not None and start >= self.duration_ns:
            ends = format_time(self.duration_ns)
            if self.duration_overridden:  # a shortened run: expected, not a mistake
                problem = f"the app starts at {format_time(start)}, after the run ends ({ends})"
                self.warn(t.at("start"), problem, "it will not run", file=t.file)
                return
            t.error(
                "start",
                f"the app starts at {format_time(start)}, after the scenario ends ({ends})",
                "start it earlier, or make [scenario] duration longer",
            )

    def check_clock_periods(self, t: _Table, body: dict, start: int, stop: int | None) -> None:
        """A consumer's clock period (its tick engine's tick, its RMC loop's period, its
        clock's granularity) must be shorter than the time it sends: the clock would not wake
        it again before it stops. Refused, or warned about in a shortened run (an override)."""
        if self.duration_ns is None:
            return
        end = self.duration_ns if stop is None else min(stop, self.duration_ns)
        active = end - start
        engine, clock = body["engine"], body["clock"]
        periods = {
            "tick": engine.get("tick_ns") if engine["type"] == "tick" else None,
            "period": engine.get("period_ns") if engine["type"] == "rmc" else None,
            "clock_granularity": clock.get("tg_ns"),
        }
        for key, period in periods.items():
            if key not in t.data or period is None or active <= 0 or period < active:
                continue
            problem = (
                f"{key} = {format_time(period)} is not shorter than the time the consumer "
                f"sends ({format_time(active)}): its clock would wake it once, at its start"
            )
            fix = (
                f'make {key} a small part of the run (e.g. "10ms"), or make [scenario] '
                "duration longer"
            )
            if self.duration_overridden:  # a shortened run: expected, not a mistake
                self.warn(t.at(key), problem, fix, file=t.file)
            else:
                t.error(key, problem, fix)

    def read_producer(self, t: _Table) -> dict | None:
        body = {
            "payload_size": t.get("payload", _size(1, U32, "1024B"), default=1024),
            "freshness_ns": t.get("freshness", _TIME, default=0),
            "content_segments": t.get("content_segments", _integer(1)),
            "processing_delay_ns": t.get("processing_delay", _DELAY, default=0),
            # seed 001's multi-source runs: a share of the blocks, placed at random
            "share": t.get("share", _number_in("0.5", 0.0, open_low=True)),
            "placement_block": t.get("placement_block", _integer(1)),
        }
        if isinstance(body["share"], float) and body["share"] > 1.0:
            t.error("share", f"must be at most 1, got {body['share']:g}", "write e.g. 0.5")
            return None
        if body["placement_block"] is not None and body["share"] is None:
            t.error("placement_block", "needs share", "add share = 0.5, or remove it")
            return None
        if _invalid(*body.values()):
            return None
        # only when set: the resolved form of a producer holding all its content is unchanged
        return {k: v for k, v in body.items() if v is not None or k == "content_segments"}

    def read_consumer(self, t: _Table) -> dict | None:
        controller = self.read_controller(t)
        engine = self.read_engine(t)
        clock = self.read_clock(t)
        retransmit = t.get("retransmit", _choice("retransmit mode", RETRANSMIT), default="none")
        body = {
            "controller": controller,
            "engine": engine,
            "clock": clock,
            "lifetime_ns": t.get("lifetime", _POSITIVE_TIME, default=_lifetime_default(controller)),
            "timeout_ns": t.get("timeout", _POSITIVE_TIME),
            "retx_on_timeout": None if _invalid(retransmit) else RETRANSMIT[retransmit][0],
            "retx_on_nack": None if _invalid(retransmit) else RETRANSMIT[retransmit][1],
            "max_transmissions": t.get("max_transmissions", _integer(1, U32), default=U32),
            "start_seq": t.get("start_seq", _integer(), default=0),
            "max_seq": t.get("max_seq", _integer(1)),
            # chunked fetch (seed 001): a chunk of N segments per sequence number
            "chunk_segments": t.get("chunk_segments", _integer(1, MAX_CHUNK_SEGMENTS)),
        }
        if "max_transmissions" in t.data and retransmit == "none":
            self.warn(
                t.at("max_transmissions"),
                'max_transmissions has no effect with retransmit = "none"',
                'set retransmit = "timeout", "nack" or "both"',
                file=t.file,
            )
        bad = _invalid(controller, retransmit, *body.values()) or controller is None
        return None if bad else body

    def foreign_keys(self, t: _Table, what: str, chosen: str, owners: dict) -> bool:
        """Reports keys that apply to another `what` (controller, engine, clock) than `chosen`;
        True if there were any."""
        found = False
        for key, applies_to in owners.items():
            if key in t.data and chosen not in applies_to:
                listed = " or ".join(f'"{o}"' for o in applies_to)
                t.error(
                    key,
                    f"'{key}' applies to {what} = {listed}, this consumer uses \"{chosen}\"",
                    f'remove {key}, or set {what} = "{applies_to[0]}"',
                )
                found = True
        return found

    def read_controller(self, t: _Table) -> dict | None:
        """The consumer's controller (a registered scheme part) and its keys, read with the
        registry's schema; None if invalid. A rate left at "line" (sf-aimd's max_rate, mircc's
        rate) is filled in by cross_checks with the consumer node's line rate."""
        parts = controllers()
        controller = t.get("controller", _choice("controller", parts), default="constant-rate")
        if _invalid(controller) or self.foreign_keys(
            t, "controller", controller, controller_keys()
        ):
            return None
        entry = parts[controller]
        values = read_params(t, entry, None)
        if _invalid(*values.values()):
            return None
        config = {"type": entry["tag"], **values}
        return config if cross_check(t, "controller", config) else None

    def read_engine(self, t: _Table) -> Any:
        """The resolved engine, or _INVALID (after reporting why)."""
        engine = t.get("engine", _choice("engine", ENGINES), default="ideal")
        if _invalid(engine) or self.foreign_keys(t, "engine", engine, ENGINE_KEYS):
            return _INVALID
        if engine == "ideal":
            randomize = t.get("randomize", _choice("randomize", RANDOMIZE), default="none")
            if _invalid(randomize):
                return _INVALID
            if randomize == "none":
                return {"type": "ideal"}
            return {"type": "randomized", "dist": randomize}
        if ENGINES[engine] == "rfc3448":
            granularity = t.get("granularity", _CLOCK_TIME)  # None: the clock's t_g
            max_owed = t.get("max_owed", _integer(1, U32))  # None: no cap
            if _invalid(granularity, max_owed):
                return _INVALID
            return {
                "type": "rfc3448",
                "burst": engine == "rfc3448-burst",
                "granularity_ns": granularity,
                "max_owed": max_owed,
            }
        if engine == "rmc":
            kr = t.get("kr", _kr, default=1.0)
            period = t.get("period", _PERIOD_TIME, default=DEFAULT_RMC_PERIOD_NS)
            if _invalid(kr, period):
                return _INVALID
            return {"type": "rmc", "kr": kr, "period_ns": period}
        tick = t.get(
            "tick",
            _unit(parse_time, positive="10ms", minimum=1_000, unit_example="ms"),
            required=f'add tick = "10ms" (the clock granularity of engine = "{engine}")',
        )
        smoothing = t.get("smoothing", _boolean, default=engine == "tick+smoothing")
        if engine == "tick+smoothing" and smoothing is False:
            t.error(
                "smoothing",
                'engine = "tick+smoothing" means smoothing = true',
                'remove smoothing = false, or set engine = "tick"',
            )
            return _INVALID
        if _invalid(tick, smoothing):
            return _INVALID
        return {"type": "tick", "tick_ns": tick, "smoothing": smoothing}

    def read_clock(self, t: _Table) -> Any:
        """The resolved clock of the consumer's sending loop, or _INVALID (after reporting)."""
        clock = t.get("clock", _clock, default="ideal")
        if _invalid(clock) or self.foreign_keys(t, "clock", clock, _CLOCK_KEYS):
            return _INVALID
        if clock == "ideal":
            return {"type": "ideal"}
        tg = t.get("clock_granularity", _CLOCK_TIME)
        if clock == "granular":
            if _invalid(tg):
                return _INVALID
            return {"type": "granular", "tg_ns": DEFAULT_CLOCK_GRANULARITY_NS if tg is None else tg}
        wait = self.read_clock_wait(t)
        load = self.read_clock_load(t)
        if _invalid(tg, wait, load):
            return _INVALID
        spec, profile_tg = wait
        return {
            "type": "os",
            "tg_ns": profile_tg if tg is None else tg,
            "wait": spec,
            "load": load,
        }

    def read_clock_load(self, t: _Table) -> Any:
        """`clock_load_window = "START-END"`: wake-ups in that window draw from the profile's
        "load" waiting times (a CPU-load phase). None without it, _INVALID after reporting."""
        if "clock_load_window" not in t.data:
            return None
        text = t.get("clock_load_window", _string)
        if _invalid(text):
            return _INVALID
        file = t.data.get("clock_profile")
        if not isinstance(file, str):
            t.error(
                "clock_load_window",
                "a load window replays the 'load' waiting times of a measured clock profile",
                'add clock_profile = "clock.json" (measured by `ndncc clock-probe`)',
            )
            return _INVALID
        parts = text.split("-")
        try:
            if len(parts) != 2:
                raise UnitError("expected START-END", 'write e.g. "20s-40s"')
            start, end = (parse_time(x.strip()) for x in parts)
        except UnitError as e:
            t.error("clock_load_window", f"{text!r}: {e.problem}", e.fix)
            return _INVALID
        if end <= start:
            t.error(
                "clock_load_window",
                f"{text!r}: the window ends before it starts",
                'write START-END with START < END, e.g. "20s-40s"',
            )
            return _INVALID
        profile = self.clock_profile(t, file, "load")
        if profile is None:
            return _INVALID
        return {
            "start_ns": start,
            "end_ns": end,
            "wait": {"type": "empirical", "samples_ns": sorted(profile[1])},
        }

    def read_clock_wait(self, t: _Table) -> Any:
        """The waiting-time distribution of an OS clock and the granularity it implies (the
        profile file's, else 1 ms), or _INVALID."""
        mean_given, profile_given = "clock_wait_mean" in t.data, "clock_profile" in t.data
        if mean_given and profile_given:
            t.error(
                "clock_profile",
                "clock_wait_mean and clock_profile are both given: an OS clock draws its "
                "waiting times from one distribution",
                "keep clock_wait_mean (exponential waiting times) or clock_profile (measured "
                "ones), not both",
            )
            return _INVALID
        if not (mean_given or profile_given):
            t.error(
                "clock",
                'clock = "os" needs the distribution of its waiting times',
                'add clock_wait_mean = "50us" (exponential), or clock_profile = "clock.json" '
                "(measured by `ndncc clock-probe`)",
            )
            return _INVALID
        if mean_given:
            if "clock_profile_state" in t.data:
                t.error(
                    "clock_profile_state",
                    "clock_profile_state selects a profile of clock_profile, which is not given",
                    "remove it, or use clock_profile instead of clock_wait_mean",
                )
                return _INVALID
            mean = t.get("clock_wait_mean", _WAIT_TIME)
            if _invalid(mean):
                return _INVALID
            return {"type": "exponential", "mean_ns": mean}, DEFAULT_CLOCK_GRANULARITY_NS
        file = t.get("clock_profile", _string)
        state = t.get(
            "clock_profile_state", _choice("clock profile state", CLOCK_PROFILE_STATES), "idle"
        )
        if _invalid(file, state):
            return _INVALID
        profile = self.clock_profile(t, file, state)
        if profile is None:
            return _INVALID
        granularity, samples = profile
        # sorted, as the simulator keeps them: the spec (and its hash) ignores the file's order
        return {"type": "empirical", "samples_ns": sorted(samples)}, granularity

    def clock_profile(self, t: _Table, file: str, state: str) -> tuple[int, list[int]] | None:
        """A clock profile (relative to the scenario file), read once per resolve; None after
        reporting why it cannot be used."""
        path = self.base_dir / file
        if not path.is_file():
            t.error(
                "clock_profile",
                f"clock profile '{path}' {missing(path)}",
                "check the path; it is relative to the scenario file (measure a profile with "
                "`ndncc clock-probe`)",
            )
            return None
        if (path, state) not in self.clock_profiles:
            try:
                # the file is read and parsed once, whichever states the consumers use
                if path not in self.profile_files:
                    try:
                        self.profile_files[path] = _read_profile_json(path)
                    except ScenarioError as err:
                        self.profile_files[path] = err
                data = self.profile_files[path]
                if isinstance(data, ScenarioError):
                    raise data
                self.clock_profiles[path, state] = _profile_state(data, str(path), state)
            except ScenarioError as err:
                self.problems.extend(err.problems)
                self.clock_profiles[path, state] = None
        return self.clock_profiles[path, state]


def _lifetime_default(controller: Any) -> int:
    """The Interest lifetime when a consumer leaves `lifetime` out: ndnSIM's `LifeTime` (2 s)
    for its ConsumerCbr (controller "ndnsim-cbr"), 4 s (NFD's default) otherwise."""
    if isinstance(controller, dict) and controller.get("type") == "ndnsim_cbr":
        return NDNSIM_LIFETIME_NS
    return DEFAULT_LIFETIME_NS
