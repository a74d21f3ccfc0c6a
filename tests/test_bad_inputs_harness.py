"""benches/bad_inputs.py, the bad-input harness: its classifier, and a handful of its cases run
for real (the whole harness is a script: `python benches/bad_inputs.py`)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("bad_inputs", ROOT / "benches" / "bad_inputs.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bad_inputs"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_classifier_tells_the_outcomes_apart(harness):
    bad = harness.Case("flags", "x", ["run"])
    ok = harness.Case("flags", "y", ["run"], expect="ok")
    api = harness.Case("api", "z", code="import ndncc\nndncc.run(1)")

    def outcome(case, rc, out, timed_out=False, lost=(), problem=None):
        return harness.classify(case, rc, out, timed_out, list(lost), problem)[0]

    assert outcome(bad, 3, "error: s.toml: line 1: TOML syntax error") == "clear"
    assert outcome(bad, 1, "Traceback (most recent call last):\n  ...") == "traceback"
    assert outcome(bad, 101, "thread 'main' panicked at src/x.rs") == "traceback"
    assert outcome(bad, 1, "error: internal error (a bug in ndncc)") == "traceback"
    assert outcome(bad, 0, "results written to o/") == "silent"
    assert outcome(bad, 0, "warning: the tick is longer than the run") == "clear"
    assert outcome(bad, 2, "") == "silent"
    assert outcome(bad, None, "", timed_out=True) == "hang"
    assert outcome(bad, 0, "", lost=["o/summary.json"]) == "data loss"
    assert outcome(bad, 0, "ok", problem="left .ndncc-save-1") == "silent"
    assert outcome(bad, -15, "", problem="") == "clear"  # the case's check verified a clean stop
    assert outcome(ok, 0, "s.toml: OK") == "clear"
    assert outcome(ok, 3, "s.toml: problem") == "silent"  # a broken control shows
    assert outcome(api, None, "RAISED TypeError expected a path") == "clear"
    assert outcome(api, None, "RAISED AttributeError 'int' has no attribute") == "traceback"
    assert outcome(api, None, "RAISED ValueError dictionary update sequence element #0") == (
        "traceback"
    )  # a message from inside Python, not a check of the input
    assert outcome(api, None, "RETURNED <Result>") == "silent"
    assert outcome(api, None, "WARNED careful\nRETURNED <Result>") == "clear"
    assert outcome(api, None, "Segmentation fault") == "traceback"


def test_bad_values_cover_every_kind_of_parameter(harness):
    kinds = [
        {"type": "number", "min": 0.0, "min_open": True, "max": 1.0, "max_closed": True},
        {"type": "positive"},
        {"type": "rate_or", "word": "line"},
        {"type": "integer", "min": 1, "max": 10},
        {"type": "bool"},
        {"type": "time", "positive": True, "min_ns": 1000},
        {"type": "size", "min": 1, "max": 10},
        {"type": "size_or", "min": 1, "max": 10, "word": "producers"},
    ]
    for kind in kinds:
        values = harness.bad_values({"kind": kind, "example": 1})
        assert len(values) >= 2, kind


@pytest.mark.parametrize(
    "category, name",
    [
        ("scenario", "unclosed table header"),
        ("scenario", "duration negative"),
        ("scenario", "control: the tiny scenario"),
        ("flags", "validate --bogus"),
        ("api", "Scenario.from_toml_str(bad TOML)"),
    ],
)
def test_a_handful_of_cases_are_handled_clearly(harness, tmp_path, category, name):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "python"), *filter(None, [env.get("PYTHONPATH")])]
    )
    if category == "flags":
        from ndncc.cli import build_parser

        cases = harness.flag_cases(build_parser())
    elif category == "api":
        cases = harness.api_cases()
    else:
        cases = harness.scenario_cases()
    case = next(c for c in cases if c.name == name)
    result = harness.run_case(case, tmp_path, sys.executable, env)
    assert result.outcome == "clear", (result.reason, result.output[-500:])
