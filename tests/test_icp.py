"""ICP added through the registry: its scenario runs, its keys are validated from the schema."""

from pathlib import Path

import ndncc
import pytest
from ndncc.scenario import Scenario, ScenarioError

LINE = Path(__file__).parent.parent / "scenarios" / "icp" / "line.toml"


def test_icp_line_saw_tooth():
    r = ndncc.run(LINE)
    app = r.summary["apps"][0]
    assert app["throughput_mbps"] > 8.5  # of 10 Mbit/s
    assert app["timeouts"] > 0 and app["retransmissions"] == app["timeouts"]
    w = r.series["window"].dropna().to_numpy()
    halvings = sum(1 for a, b in zip(w, w[1:], strict=False) if b < 0.7 * a)
    assert halvings >= 2, w


def test_icp_keys_are_checked():
    s = Scenario.load(LINE)
    with pytest.raises(ScenarioError, match=r"apps\[0\]\.decrease: must be in \(0, 1\)"):
        s.with_overrides(overrides={"apps[consumer].decrease": 1.5}).resolve()
    with pytest.raises(ScenarioError, match="'ssthresh' applies to controller = \"icp\""):
        s.with_overrides(
            overrides={"apps[consumer].controller": "fixed-window", "apps[consumer].ssthresh": 4}
        ).resolve()
    spec = s.resolve()
    assert spec["apps"][0]["app"]["controller"]["tau"] == 300_000_000
