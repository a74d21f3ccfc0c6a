"""CHoPCoP (seed 001) through the registry: REM marks on the bottleneck, RIC's window follows."""

from pathlib import Path

import ndncc
import pytest
from ndncc.scenario import Scenario, ScenarioError

BASELINE = Path(__file__).parent.parent / "scenarios" / "chopcop" / "baseline.toml"


def _short(**overrides):
    s = Scenario.load(BASELINE)
    return s.with_overrides(overrides={"scenario.duration": "12s", **overrides})


def test_baseline_marks_at_the_bottleneck_and_keeps_the_link_busy():
    r = ndncc.run(_short())
    app = r.summary["apps"][0]
    assert app["timeouts"] == 0
    assert app["throughput_mbps"] > 37.0  # of 40 Mbit/s, slow start included
    marks = {(f["node"], f["peer"]): f["marks"] for f in r.summary["faces"]}
    assert marks[("B", "C")] > 5, marks  # REM on B's queue towards C
    assert marks[("A", "B")] == 0  # the 200 Mbit/s link never queues
    w = r.series["window"].dropna().to_numpy()
    steady = w[len(w) // 3 :]
    assert 17 < steady.mean() < 30, steady.mean()  # paper: 23.27
    cuts = sum(1 for a, b in zip(w, w[1:], strict=False) if b < 0.9 * a)
    assert cuts >= 2, w


def test_chopcop_keys_are_checked():
    s = Scenario.load(BASELINE)
    with pytest.raises(ScenarioError, match=r"beta1"):
        s.with_overrides(overrides={"apps[receiver].beta1": 0.9}).resolve()
    with pytest.raises(ScenarioError, match=r"q_min"):
        s.with_overrides(overrides={"defaults.node.schemes.chopcop.q_min": 0.5}).resolve()
    spec = s.resolve()
    assert spec["apps"][0]["app"]["controller"]["delta"] == 6.0
