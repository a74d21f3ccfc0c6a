"""Clock profiles: the JSON files `ndncc clock-probe` writes (the measured waiting times an
OS clock replays, consumer key ``clock_profile``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import Problem, ScenarioError
from .keys import U64
from .tables import _MISSING


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return f"the number {value!r}"


def _whole_ns(value: object, low: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= U64


def read_clock_profile(path: str | Path, state: str = "idle") -> tuple[int, list[int]]:
    """Reads a clock profile written by ``ndncc clock-probe``: returns the clock granularity
    t_g and the waiting times of profile `state` ("idle" or "load"), both in ns.

    The file is JSON: ``{"version": 1, "granularity_ns": N, "profiles": {"idle":
    {"samples_ns": [...], ...}, "load": {...}}, ...}`` (other keys are ignored). Raises
    :class:`ScenarioError` listing every mistake, each located in the file (a JSON path such as
    ``profiles.idle.samples_ns[3]``, or ``line N`` for a syntax error)."""
    path = Path(path)
    return _profile_state(_read_profile_json(path), str(path), state)


_PROBE_AGAIN = "write the file again with `ndncc clock-probe`"


def _read_profile_json(path: Path) -> dict:
    """A clock profile file's JSON object; ScenarioError if it cannot be read or parsed."""
    file = str(path)
    probe = _PROBE_AGAIN

    def fail(key: str, problem: str, fix: str) -> ScenarioError:
        return ScenarioError([Problem(file, key, problem, fix)])

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise fail("", "clock profile file not found", f"check the path, or {probe}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise fail("", f"cannot read the file: {err}", f"check the file, or {probe}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise fail(
            f"line {err.lineno}",
            f"invalid JSON: {err.msg} (column {err.colno})",
            f"fix it, or {probe}",
        ) from None
    except RecursionError:
        raise fail("", "the JSON is nested too deeply to read", probe) from None
    if not isinstance(data, dict):
        raise fail("", f"expected a JSON object, got {_json_kind(data)}", probe)
    return data


def _profile_state(data: dict, file: str, state: str) -> tuple[int, list[int]]:
    """t_g and the samples of profile `state` in a profile file's JSON object (see
    :func:`read_clock_profile`)."""
    probe = _PROBE_AGAIN
    problems: list[Problem] = []
    version = data.get("version", 1)
    if version != 1 or isinstance(version, bool):
        problems.append(
            Problem(
                file,
                "version",
                f"unsupported version {json.dumps(version)}",
                f"{probe} (version 1)",
            )
        )
    granularity = data.get("granularity_ns")
    if "granularity_ns" not in data:
        problems.append(
            Problem(
                file,
                "granularity_ns",
                "missing granularity_ns",
                f"add the clock's t_g in ns, or {probe}",
            )
        )
    elif not _whole_ns(granularity, 1):
        problems.append(
            Problem(
                file,
                "granularity_ns",
                f"granularity_ns must be a whole number of ns > 0, got {_json_kind(granularity)}",
                f'write e.g. "granularity_ns": 1000000 (1 ms), or {probe}',
            )
        )
    samples = _profile_samples(file, data.get("profiles", _MISSING), state, problems)
    if problems:
        raise ScenarioError(problems)
    return granularity, samples


def _profile_samples(file: str, profiles: Any, state: str, problems: list[Problem]) -> list[int]:
    """The samples of `profiles[state]` (appends to `problems` and returns [] if invalid)."""
    probe = _PROBE_AGAIN
    key = f"profiles.{state}"
    if profiles is _MISSING:
        problems.append(Problem(file, "profiles", "missing profiles", probe))
        return []
    if not isinstance(profiles, dict):
        problems.append(
            Problem(file, "profiles", f"expected an object, got {_json_kind(profiles)}", probe)
        )
        return []
    if state not in profiles:
        others = [str(name) for name in profiles]
        fix = f'measure the "{state}" profile: {probe}'
        if others:
            fix = f'set clock_profile_state = "{others[0]}" in the scenario, or {fix}'
        has = f"it has: {', '.join(others)}" if others else "it has none"
        problems.append(Problem(file, key, f"no '{state}' profile in the file ({has})", fix))
        return []
    profile = profiles[state]
    if not isinstance(profile, dict):
        problems.append(Problem(file, key, f"expected an object, got {_json_kind(profile)}", probe))
        return []
    if "samples_ns" not in profile:
        problems.append(Problem(file, f"{key}.samples_ns", "missing samples_ns", probe))
        return []
    samples = profile["samples_ns"]
    key += ".samples_ns"
    if not isinstance(samples, list):
        problems.append(
            Problem(
                file,
                key,
                f"expected an array of waiting times (ns), got {_json_kind(samples)}",
                probe,
            )
        )
        return []
    if not samples:
        problems.append(
            Problem(
                file,
                key,
                "no samples: the profile has no waiting times",
                f"measure longer: {probe}",
            )
        )
        return []
    for i, sample in enumerate(samples):
        if not _whole_ns(sample, 0):
            problems.append(
                Problem(
                    file,
                    f"{key}[{i}]",
                    f"a waiting time must be a whole number of ns >= 0, got {_json_kind(sample)}",
                    f"remove it, or {probe}",
                )
            )
            return []  # one bad sample is enough: the file is not what clock-probe writes
    return samples
