"""`ndncc reproduce`: the sweep runner and the sf-clock reproduction (quick tier)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from ndncc import experiments
from ndncc.cli import main
from ndncc.experiments import sf_clock
from ndncc.experiments.common import COMPARISON_COLUMNS, Row, markdown_table, relative, tally
from ndncc.sweep import Job, run_jobs

ROOT = Path(__file__).resolve().parents[1]
LINEAR = str(ROOT / "scenarios" / "sf-clock" / "linear.toml")


def test_sweep_results_do_not_depend_on_the_number_of_workers():
    jobs = [
        Job("a", LINEAR, {"scenario.duration": "2s", "apps[consumer].stop": "1s"}),
        Job(
            "b",
            LINEAR,
            {
                "scenario.duration": "2s",
                "apps[consumer].stop": "1s",
                "apps[consumer].engine": "tick",
                "apps[consumer].tick": "100ms",
            },
        ),
    ]
    one = run_jobs(jobs, n_jobs=1)
    two = run_jobs(jobs, n_jobs=2)
    assert list(one) == list(two) == ["a", "b"]
    for k in one:
        s1 = dict(one[k].summary, wall_time_s=0)
        s2 = dict(two[k].summary, wall_time_s=0)
        assert s1 == s2
    assert one["a"].summary["apps"] != one["b"].summary["apps"]


def test_sweep_rejects_duplicate_keys_and_missing_files(tmp_path):
    with pytest.raises(ValueError):
        run_jobs([Job("a", LINEAR), Job("a", LINEAR)])
    with pytest.raises(FileNotFoundError):
        run_jobs([Job("a", str(tmp_path / "nope.toml"))])


def test_relative_rows():
    r = relative(10.0, 10.4, 0.05, experiment="e", metric="m", condition="c", unit="u")
    assert r.within and r.tolerance == "±5 %"
    r = relative(10.0, 11.0, 0.05, experiment="e", metric="m", condition="c", unit="u")
    assert not r.within
    r = relative(0, 0, 0.25, goal=True, experiment="e", metric="m", condition="c", unit="u")
    assert r.within and r.tolerance.startswith("goal")
    assert Row("e", "m", "c", [1, 2.5], 3.14159, "u", "t", True).as_csv()[3:7] == [
        "1 / 2.5",
        "",
        "",
        "3.142",
    ]


def test_expected_values_carry_their_source_and_reported_rows_are_not_counted():
    theory = Row("e", "m", "c", None, 590, "u", "±10 %", True, expected=600, expected_source="C/n")
    assert theory.as_csv()[3:7] == ["", "600", "C/n", "590"]
    with pytest.raises(ValueError):
        Row("e", "m", "c", None, 1, "u", "t", True, expected=600)
    reported = Row("e", "m", "c", None, 1, "u", "reported", None)
    failed = Row("e", "m", "c", 1, 2, "u", "exactly 1", False)
    assert reported.as_csv()[-1] == "n/a" and not reported.checked
    assert tally([theory, reported, failed]) == (1, 2)
    table = markdown_table([theory, reported])
    assert "600 (C/n)" in table and "| — |" in table


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("sf-clock")
    return experiments.reproduce("sf-clock", out, quick=True, n_jobs=2), out


def test_quick_reproduction_writes_csv_report_and_figures(quick):
    rep, out = quick
    with open(out / "comparison.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == COMPARISON_COLUMNS
    assert len(rows) - 1 == len(rep.rows) > 30
    text = (out / "report.md").read_text()
    assert "Table" in text and "fig5_bucket.png" in text
    assert "ours, Data received by 10 s" in text  # both throughput readings
    for fig in rep.figures:
        assert fig.is_file() and fig.stat().st_size > 10_000


# Required rows that do not hold, each explained in docs/schemes/sf.md ("Where we differ"): the
# test fails if another one fails, and also if one of these starts to hold (update the docs).
SF_KNOWN_DIFFERENCES = {
    (
        "dumbbell, several pairs, tick trends",
        "total throughput falls as the tick grows (Fig. 8a)",
        "2 pairs, depth 50, tick 1 → 5 → 10 ms",
    ),
    (
        "dumbbell, several pairs, tick trends",
        "smoothed total similar to the unsmoothed (Fig. 11 vs 8)",
        "depth 50, pairs 2, every tick",
    ),
    (
        "dumbbell, several pairs, tick trends",
        "smoothed total similar to the unsmoothed (Fig. 11 vs 8)",
        "depth 500, pairs 2, every tick",
    ),
}


def test_quick_reproduction_meets_the_required_tolerances(quick):
    """Every comparison that is a requirement (not a 'goal') holds, but for the documented
    differences: see the issue's acceptance."""
    rep, _ = quick
    required = [r for r in rep.rows if r.checked and not r.tolerance.startswith("goal")]
    failed = {(r.experiment, r.metric, r.condition) for r in required if not r.within}
    assert failed == SF_KNOWN_DIFFERENCES
    conditions = {(r.experiment, r.metric, r.condition) for r in required}
    assert ("linear", "throughput", "ideal") in conditions
    assert ("dumbbell, 1 pair", "smoothing raises throughput", "depth 50, tick 5 ms") in conditions


def test_quick_reproduction_checks_the_figure_claims_of_seed_002(quick):
    rep, _ = quick
    metrics = {(r.experiment, r.metric) for r in rep.rows}
    for claim in (
        ("linear, Fig. 4-5", "highest consumer rate (the cap)"),
        ("linear, Fig. 4-5", "time of the first Nack"),
        ("linear, Fig. 4-5", "bucket at its maximum D = 50 before the first Nack"),
        ("dumbbell, several pairs", "total Nacks rise with more pairs (Fig. 9)"),
        ("dumbbell, several pairs, tick trends", "fine clock above every coarse tick (Fig. 8b, c)"),
        ("linear", "throughput, Data received by 10 s"),
    ):
        assert claim in metrics, claim
    conds = {r.condition for r in rep.rows if r.metric.endswith("(Fig. 11 vs 8)")}
    assert conds == {f"depth {d}, pairs 2, every tick" for d in sf_clock.DEPTHS}


def test_paper_cells_hold_only_the_papers_numbers(quick):
    """A number in the "paper" column is one the seed prints (its tables and text)."""
    rep, _ = quick
    printed = {v for pair in sf_clock.PAPER_LINEAR.values() for v in pair}
    printed |= {v for pair in sf_clock.PAPER_SINGLE.values() for v in pair}
    printed |= set(sf_clock.PAPER_CAP.values()) | set(sf_clock.PAPER_OVERFLOW_RATE.values())
    printed |= set(sf_clock.PAPER_FIRST_NACK) | {1000}  # Fig. 6: "goes to 1,000 packets/sec"
    for r in rep.rows:
        cells = r.paper if isinstance(r.paper, list) else [r.paper]
        for v in cells:
            assert not isinstance(v, int | float) or v in printed, (r.metric, r.condition, v)


def test_report_counts_only_rows_that_can_fail(quick):
    rep, out = quick
    ok, n = tally(rep.rows)
    assert n == len(rep.rows)  # every sf-clock row is a check
    assert f"**{ok} of {n} comparisons within tolerance.**" in (out / "report.md").read_text()


def test_cli_reproduce_rejects_unknown_paper(capsys):
    assert main(["reproduce", "nope", "-q"]) == 3
    assert "sf-clock" in capsys.readouterr().err
