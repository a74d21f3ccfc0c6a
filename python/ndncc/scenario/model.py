"""The public class :class:`Scenario` and the canonical JSON (and hash) of a resolved spec."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

from .errors import Problem, ScenarioError, _Bad, _describe
from .keys import MAX_SCENARIO_BYTES
from .overrides import _set_path
from .resolver import _Resolver
from .toml_io import _parse_toml, _to_toml, check_data_nesting, plain


def spec_json(spec: dict) -> str:
    """A resolved spec as canonical JSON (sorted keys, no spaces)."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"))


def spec_hash(spec: dict) -> str:
    """sha256 (hex) of a resolved spec's canonical JSON (:meth:`Scenario.hash`)."""
    import hashlib  # on first use: start-up time

    return hashlib.sha256(spec_json(spec).encode()).hexdigest()


class Scenario:
    """A simulation scenario: the nested dict of a scenario TOML file, plus where it came from.

    Build one with :meth:`load`, :meth:`from_toml_str`, :meth:`from_dict` or the builder::

        s = (Scenario(name="line", duration="10s")
             .link("C", "P", bandwidth="10Mbps", delay="10ms")
             .producer("P", "/p")
             .consumer("C", "/p", rate=500))
        spec = s.resolve()
    """

    def __init__(
        self,
        name: str | None = None,
        duration: str | None = None,
        seed: int | None = None,
        run: int | None = None,
    ):
        self._data: dict = {}
        self._source = "<python>"
        self._base_dir = Path.cwd()
        self._default_name = "scenario"
        self._duration_overridden = False  # apps starting after the end then only warn
        scenario = {
            k: v
            for k, v in (("name", name), ("duration", duration), ("seed", seed), ("run", run))
            if v is not None
        }
        if scenario:
            self._data["scenario"] = scenario

    # ---- constructors --------------------------------------------------------------------

    @classmethod
    def from_dict(
        cls, data: dict, source: str = "<python>", base_dir: str | Path | None = None
    ) -> Scenario:
        """A scenario from the nested dict a TOML file parses to (deep-copied)."""
        if not isinstance(data, dict):
            raise ScenarioError(
                [
                    Problem(
                        source,
                        "",
                        f"a scenario must be a dict, got {_describe(data)}",
                        "pass the parsed TOML tables as a dict",
                    )
                ]
            )
        check_data_nesting(data, source)
        scenario = cls()
        scenario._data = copy.deepcopy(data)
        scenario._source = source
        scenario._base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        return scenario

    @classmethod
    def from_toml_str(
        cls, text: str, source: str = "<string>", base_dir: str | Path | None = None
    ) -> Scenario:
        """A scenario from TOML text; relative paths in it start at `base_dir` (default: cwd).
        A UTF-8 byte order mark at its start (some Windows editors write one) is ignored."""
        if not isinstance(text, str):
            hint = ": decode it first, text.decode('utf-8')" if isinstance(text, bytes) else ""
            raise TypeError(
                f"Scenario.from_toml_str: text must be the TOML text as a str, got "
                f"{type(text).__name__}{hint} (or give a file to Scenario.load)"
            )
        return cls.from_dict(_parse_toml(text, source), source, base_dir)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Reads a scenario TOML file; its name defaults to the file name without extension."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                f"Scenario.load: path must be a file name (str or pathlib.Path), got "
                f"{type(path).__name__}"
            )
        path = Path(path)
        if path.exists() and not path.is_file():
            kind = "a directory" if path.is_dir() else "not a regular file"
            raise ScenarioError(
                [Problem(str(path), "", f"{kind}, not a scenario file", "give a .toml file")]
            )
        if path.is_file() and path.stat().st_size > MAX_SCENARIO_BYTES:
            raise ScenarioError(
                [
                    Problem(
                        str(path),
                        "",
                        f"{path.stat().st_size:,} bytes: far larger than any scenario file",
                        "check the path",
                    )
                ]
            )
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ScenarioError(
                [Problem(str(path), "", "scenario file not found", "check the path")]
            ) from None
        except (OSError, UnicodeDecodeError) as err:
            raise ScenarioError(
                [Problem(str(path), "", f"cannot read the file: {err}", "check the file")]
            ) from None
        scenario = cls.from_toml_str(text, str(path), path.parent)
        scenario._default_name = path.stem
        return scenario

    # ---- builder -------------------------------------------------------------------------

    def node(self, name: str, **opts: Any) -> Scenario:
        """Declares (or updates) node `name`; opts: strategy, cs, schemes (e.g.
        ``schemes={"sf": {"depth": 20}}`` or ``{"mircc": {"interval": "250ms"}}``, or
        ``{"sf": False}`` to drop a default scheme); a node runs at most one scheme."""
        self._data.setdefault("nodes", {}).setdefault(name, {}).update(opts)
        return self

    def link(
        self,
        a: str,
        b: str,
        bandwidth: str | None = None,
        delay: str | None = None,
        queue: str | None = None,
        **opts: Any,
    ) -> Scenario:
        """Adds a link; opts: queue_ab, queue_ba, loss, cost."""
        link = {"between": [a, b], "bandwidth": bandwidth, "delay": delay, "queue": queue, **opts}
        self._data.setdefault("links", []).append(_without_none(link))
        return self

    def producer(
        self,
        node: str,
        prefix: str,
        payload: str | None = None,
        name: str | None = None,
        **opts: Any,
    ) -> Scenario:
        """Adds a producer; opts: freshness, content_segments, processing_delay, start, stop."""
        app = {
            "name": name,
            "node": node,
            "kind": "producer",
            "prefix": prefix,
            "payload": payload,
            **opts,
        }
        self._data.setdefault("apps", []).append(_without_none(app))
        return self

    def consumer(
        self,
        node: str,
        prefix: str,
        controller: str = "constant-rate",
        rate: float | None = None,
        name: str | None = None,
        **opts: Any,
    ) -> Scenario:
        """Adds a consumer; opts: window, max_rate, nack_suppression, min_rate, multipath,
        engine, randomize, tick, smoothing, granularity, max_owed, kr, period, clock,
        clock_granularity, clock_wait_mean, clock_profile, clock_profile_state,
        clock_load_window, lifetime, timeout, retransmit, max_transmissions, start_seq, max_seq,
        start, stop."""
        app = {
            "name": name,
            "node": node,
            "kind": "consumer",
            "prefix": prefix,
            "controller": controller,
            "rate": rate,
            **opts,
        }
        self._data.setdefault("apps", []).append(_without_none(app))
        return self

    def route(self, node: str, prefix: str, next_hop: str | list[str], cost: int = 0) -> Scenario:
        """Adds a static route (a FIB entry at `node` towards neighbour `next_hop`)."""
        self._data.setdefault("routes", []).append(
            {"node": node, "prefix": prefix, "next_hop": next_hop, "cost": cost}
        )
        return self

    def topology(self, file: str | Path, format: str | None = None) -> Scenario:
        """Reads nodes and links from an ndnSIM or Mini-NDN topology file."""
        self._data["topology"] = _without_none({"file": str(file), "format": format})
        return self

    def defaults(self, **link_opts: Any) -> Scenario:
        """Sets [defaults.link] values: bandwidth, delay, queue, loss, cost."""
        self._data.setdefault("defaults", {}).setdefault("link", {}).update(link_opts)
        return self

    def routing(self, mode: str = "shortest", metric: str | None = None) -> Scenario:
        self._data["routing"] = _without_none({"mode": mode, "metric": metric})
        return self

    def packets(self, **opts: Any) -> Scenario:
        """Sets [packets] values: interest_size, data_overhead, nack_overhead."""
        self._data.setdefault("packets", {}).update(opts)
        return self

    def trace(self, **opts: Any) -> Scenario:
        """Sets [trace] values: bin, delays, parquet, figures, rate_trace, app_delays_trace."""
        self._data.setdefault("trace", {}).update(opts)
        return self

    # ---- derived scenarios -----------------------------------------------------------------

    def with_overrides(
        self,
        *,
        seed: int | None = None,
        run: int | None = None,
        duration: str | None = None,
        name: str | None = None,
        overrides: dict[str, Any] | None = None,
    ) -> Scenario:
        """A copy with some values replaced. `overrides` maps dotted paths ("trace.bin",
        "links[0].bandwidth", "apps[c1].rate", "nodes.R1.strategy") to new values; None
        removes a key."""
        _check_overrides(overrides)
        new = Scenario.from_dict(self._data, self._source, self._base_dir)
        new._default_name = self._default_name
        new._duration_overridden = self._duration_overridden or bool(
            duration is not None or {"duration", "scenario.duration"} & set(overrides or {})
        )
        changes = {
            k: v
            for k, v in (("seed", seed), ("run", run), ("duration", duration), ("name", name))
            if v is not None
        }
        changes = {f"scenario.{k}": v for k, v in changes.items()} | dict(overrides or {})
        problems = []
        for path, value in changes.items():
            try:
                _set_path(new._data, path, value)
            except _Bad as bad:
                problems.append(Problem("<overrides>", path, bad.problem, bad.fix))
        if problems:
            raise ScenarioError(problems)
        return new

    # ---- results -------------------------------------------------------------------------------

    def _resolve(self) -> tuple[dict, dict, list[Problem]]:
        resolver = _Resolver(
            plain(self._data),
            self._source,
            self._base_dir,
            self._default_name,
            self._duration_overridden,
        )
        spec, options = resolver.run()
        return spec, options, resolver.warnings

    def validate(self) -> None:
        """Raises :class:`ScenarioError` listing every mistake; returns None if there is none."""
        self._resolve()

    def resolve(self) -> dict:
        """The resolved spec (``crates/sim/src/spec.rs``) as a dict ready for ``json.dumps``."""
        return self._resolve()[0]

    def routes(self) -> list[dict]:
        """The FIB entries on net faces the simulator installs: ``{"node", "prefix", "link",
        "cost"}`` dicts (indices into the resolved spec's nodes and links) — the static
        ``[[routes]]`` and, with shortest-path routing, the computed entries at every node a
        consumer's Interests reach (``docs/scenario.md``, "How routes are computed")."""
        from .schemes import _core

        found = _core().routes(json.dumps(self.resolve()))
        return [{"node": n, "prefix": p, "link": link, "cost": c} for n, p, link, c in found]

    def to_json(self) -> str:
        """The resolved spec as canonical JSON (sorted keys, no spaces); :meth:`hash` hashes it."""
        return spec_json(self.resolve())

    def hash(self) -> str:
        """sha256 (hex) of the resolved spec's canonical JSON."""
        return spec_hash(self.resolve())

    def resolved(self) -> tuple[dict, dict, list[Problem]]:
        """Resolves once: (spec, trace_options, warnings) — what :meth:`resolve`,
        :attr:`trace_options` and :attr:`warnings` each resolve again for."""
        return self._resolve()

    @property
    def trace_options(self) -> dict:
        """Python-side output settings: parquet, figures (bool), rate_trace (period in seconds
        or None), app_delays_trace (bool)."""
        return self._resolve()[1]

    @property
    def warnings(self) -> list[Problem]:
        """Things that are allowed but probably unintended (e.g. a node without links)."""
        return self._resolve()[2]

    @property
    def data(self) -> dict:
        """A copy of the scenario's nested dict (the TOML shape)."""
        return copy.deepcopy(self._data)

    @property
    def source(self) -> str:
        return self._source

    @property
    def base_dir(self) -> Path:
        return self._base_dir

    def to_toml(self) -> str:
        """The scenario as TOML text (relative paths still relative to :attr:`base_dir`)."""
        return _to_toml(plain(self._data))

    def __repr__(self) -> str:
        name = (
            self._data.get("scenario", {}).get("name", self._default_name)
            if isinstance(self._data.get("scenario"), dict)
            else self._default_name
        )
        return f"Scenario({name!r}, source={self._source!r})"


def _check_overrides(overrides: Any) -> None:
    """Refuses `overrides` that are not a mapping of dotted paths (str) to values."""
    from collections.abc import Mapping

    example = "e.g. {'trace.bin': '50ms', 'apps[c1].rate': 200}"
    if overrides is not None and not isinstance(overrides, Mapping):
        raise TypeError(
            f"with_overrides: overrides must be a dict of dotted paths to values ({example}), "
            f"got {type(overrides).__name__}"
        )
    for key in overrides or {}:
        if not isinstance(key, str):
            raise TypeError(
                f"with_overrides: every key of overrides is a dotted path as a str ({example}), "
                f"got {key!r}"
            )


def _without_none(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}
