"""`ndncc reproduce clock-fixes --quick`: the findings docs/engines.md reports."""

from __future__ import annotations

from ndncc import experiments


def test_quick_clock_fixes(tmp_path):
    rep = experiments.reproduce("clock-fixes", tmp_path, quick=True, n_jobs=2)
    best = {r.experiment: r.ours for r in rep.rows if r.metric.startswith("best fix")}
    # smoothing is the best fix in every case (seeds 000 and 002's proposal)
    assert set(best.values()) == {"tick+smoothing"}, best
    by = {(r.experiment, r.condition): r.ours for r in rep.rows if r.metric.startswith("goodput")}
    # RFC 3448 without bursts never releases more than one Interest at a time, and starves
    for (case, cond), (good, _loss, burst) in by.items():
        if cond.endswith(", rfc3448"):
            assert burst == 1, (case, cond)
            ideal = by[(case, cond.replace("rfc3448", "ideal"))][0]
            assert good < 0.1 * ideal, (case, cond)
    assert (tmp_path / "clock_fixes.png").is_file()
