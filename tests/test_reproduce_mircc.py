"""`ndncc reproduce mircc-clock`: every required comparison holds (the run takes a few seconds)."""

from __future__ import annotations

import pytest
from ndncc import experiments


@pytest.fixture(scope="module")
def rep(tmp_path_factory):
    return experiments.reproduce("mircc-clock", tmp_path_factory.mktemp("mircc"), n_jobs=2)


def test_required_comparisons_hold(rep):
    required = [r for r in rep.rows if not r.tolerance.startswith("goal")]
    failed = [f"{r.metric} / {r.condition}: {r.ours}" for r in required if not r.within]
    assert not failed, failed
    assert len(required) >= 20


def test_report_and_figures(rep):
    text = rep.report.read_text()
    assert "Tables IV and V" in text
    assert [f.name for f in rep.figures] == [
        "fig5_rate.png",
        "fig6_loss.png",
        "fig7_rate_smoothing.png",
        "fig8_loss_smoothing.png",
        "multipath_rates.png",
    ]
