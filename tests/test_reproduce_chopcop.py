"""`ndncc reproduce chopcop --quick` (seed 001, CHoPCoP and its baselines): every experiment's
rows are there, the required comparisons hold except the differences docs/schemes/chopcop.md
explains, and the figures have data and units (the quick tier takes about 25 s on 2 cores)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from ndncc.experiments import chopcop
from ndncc.experiments.common import COMPARISON_COLUMNS
from reproduce_helpers import reproduce_recording


@pytest.fixture(scope="module")
def drawn():
    return {}


@pytest.fixture(scope="module")
def rep(tmp_path_factory, drawn):
    import ndncc.experiments.chopcop_plots as plots

    out = tmp_path_factory.mktemp("chopcop")
    return reproduce_recording("chopcop", out, drawn, also_patch=(plots,), quick=True, n_jobs=2)


# Required rows that do not hold, each explained in docs/schemes/chopcop.md ("Where we
# differ"): the test fails if another one fails, and also if one of these starts to hold.
KNOWN_DIFFERENCES = {
    # our ICP keeps the 40 Mbit/s link busy (a window halved once per τ stays above the path's
    # BDP with the seed's 1 500 KB queue; no τ from 150 ms up, no timer from the single RTT
    # estimator, ICP's abstract-only law or whole-chunk re-asks lose half, and B forwards the
    # duplicates a real forwarder would: docs/schemes/chopcop.md, icp.md); the paper's lost
    # ~half to false timeouts
    (
        "baseline (Fig. 4, 5)",
        "throughput ordering CHoPCoP > ICTP > ICP ≈ HR-ICP",
        "CHoPCoP / ICTP / ICP / HR-ICP",
    ),
    (
        "multi-source REM (Fig. 8)",
        "throughput ordering CHoPCoP > ICTP > ICP ≈ HR-ICP",
        "CHoPCoP / ICTP / ICP / HR-ICP",
    ),
    # the paper's "outgoing data queue ... kept at ∼1050KB" with FISP: with C = the 1 500 KB
    # queue, shaping starts at Q = q_d + γ·q_i > Q_min = 600 KB; the DRR, paced at the link's
    # rate, would keep q_d where shaping began (≈ 600 KB − γ·q_i), and phase 2 delays every
    # Interest from Q = 1 125 KB on, so no γ ≥ 0 gives q_d ≈ 1 050 KB; with the DRR's window
    # (fisp_window, the default) it drains q_d to about a chunk (docs/schemes/chopcop.md)
    (
        "FISP vs non-cooperative receiver (Table I, Fig. 6)",
        "B's queue towards C (q_d), mean",
        "CIR 160/s, with FISP",
    ),
    (
        "FISP vs non-cooperative receiver (Table I, Fig. 6)",
        "B's queue towards C (q_d), mean",
        "CIR 200/s, with FISP",
    ),
    # the row's expectation, Q near Q_min, is the rate-paced DRR's (fisp_window = false); with
    # the window FISP holds q_d + q_i near one upstream round trip of the link, so Q ≈ γ·q_i ≈
    # 300 KB (docs/schemes/chopcop.md, "The queue with FISP"; the row is to be re-derived)
    (
        "FISP vs non-cooperative receiver (Table I, Fig. 6)",
        "FISP's Q = q_d + γ·q_i on B→C, mean",
        "CIR 160/s, with FISP",
    ),
    (
        "FISP vs non-cooperative receiver (Table I, Fig. 6)",
        "FISP's Q = q_d + γ·q_i on B→C, mean",
        "CIR 200/s, with FISP",
    ),
    # ICP and HR-ICP keep the 7-node bottlenecks busy (the same cause as the baseline's order)
    (
        "7-node topology (Table III)",
        "CHoPCoP's total over ICP's / HR-ICP's",
        "F and G together, [5, 12] s",
    ),
}


def test_required_comparisons_hold(rep):
    required = [r for r in rep.rows if r.checked and not r.tolerance.startswith("goal")]
    failed = {(r.experiment, r.metric, r.condition) for r in required if not r.within}
    assert failed == KNOWN_DIFFERENCES, sorted(failed)
    assert len(required) >= 25


def test_every_seed_001_experiment_has_rows(rep):
    experiments_ = {r.experiment for r in rep.rows}
    for name in (
        "baseline (Fig. 4, 5)",
        "FISP vs non-cooperative receiver (Table I, Fig. 6)",
        "multi-source timeouts (Table II)",
        "multi-source REM (Fig. 8)",
        "fairness (Fig. 10)",
        "FISP vs HbH (Fig. 11)",
        "7-node topology (Table III)",
    ):
        assert name in experiments_, name


def test_table_1_delivery_counts_complete_chunks(rep):
    """Without FISP at CIR 200 most segments arrive but almost no chunk is complete."""
    rows = {(r.metric, r.condition): r for r in rep.rows}
    cond = "CIR 200/s, without FISP"
    ratio = rows[("delivery ratio (complete chunks / chunks asked)", cond)].ours
    segments = rows[("segments received / segments asked", cond)].ours
    assert ratio < 0.2 < 0.5 < segments
    for cir in chopcop.CIRS:
        assert (
            rows[
                ("delivery ratio (complete chunks / chunks asked)", f"CIR {cir}/s, with FISP")
            ].ours
            == 1.0
        )


def test_paper_column_holds_only_the_papers_numbers(rep):
    """Our own checks leave `paper` empty; every expected value has its source."""
    for r in rep.rows:
        if r.expected is not None:
            assert r.expected_source
    ours = [r for r in rep.rows if "throughput (timeouts)" in r.metric]
    assert ours and all(r.paper is None for r in ours)
    t3 = [r for r in rep.rows if r.experiment == "7-node topology (Table III)"]
    for s in chopcop.SCHEMES:
        label = chopcop.LABEL[s]
        values = [
            next(r for r in t3 if r.metric == f"{label} throughput ({who})")
            for who in ("F", "G", "total")
        ]
        assert [r.paper for r in values] == list(chopcop_rows_table_3(s)), s
        for r in values:  # each checked against its own number
            assert r.tolerance == "goal ±20 %"
            assert r.within == (abs(r.ours - r.paper) <= 0.2 * r.paper)


def chopcop_rows_table_3(scheme):
    from ndncc.experiments.chopcop_rows import TABLE_3

    return TABLE_3[scheme]


def test_comparison_csv_and_report(rep):
    with open(rep.comparison, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == COMPARISON_COLUMNS
    within = COMPARISON_COLUMNS.index("within")
    tol = COMPARISON_COLUMNS.index("tolerance")
    assert {r[within] for r in rows[1:] if r[tol] == "reported"} == {"n/a"}
    text = rep.report.read_text()
    assert "Table I" in text and "Table III" in text


def test_figures_have_data_and_units(rep, drawn):
    assert [f.name for f in rep.figures] == [
        "fig5_baseline.png",
        "fig6_fisp_queue.png",
        "fig8_multi_source.png",
        "fig10_fairness.png",
        "fig11_fisp_vs_hbh.png",
        "table3_seven_node.png",
    ]
    for name, fig in drawn.items():
        for ax in fig.axes:
            assert "(" in ax.get_ylabel(), (name, ax.get_ylabel())
            assert ax.get_xlabel(), name
            ys = [np.asarray(line.get_ydata(), dtype=float) for line in ax.lines]
            bars = [p.get_height() for p in ax.patches]
            assert any(np.isfinite(y).any() and np.nanmax(y) > 0 for y in ys) or any(
                b > 0 for b in bars
            ), (name, ax.get_title())


def test_paper_cells_sit_on_the_rows_the_paper_prints(rep):
    """The paper's ≈ 1 050 KB is B's outgoing data queue q_d (§V-B), checked ±15 %; FISP's Q
    is ours, beside Q_min; the +55 % has one row."""
    qd = {r.condition: r for r in rep.rows if r.metric == "B's queue towards C (q_d), mean"}
    big_q = {r.condition: r for r in rep.rows if r.metric.startswith("FISP's Q = q_d")}
    assert set(qd) == set(big_q) == {"CIR 160/s, with FISP", "CIR 200/s, with FISP"}
    for cond, r in qd.items():
        assert r.paper == 1050 and r.tolerance == "±15 %", cond
        assert r.within == (abs(r.ours - 1050) <= 157.5)
        # q_d, not Q: Q adds γ·q_i, the Data owed upstream (B's 100 ms round trip)
        assert r.ours < big_q[cond].ours - 100, cond
        assert big_q[cond].paper is None and big_q[cond].expected == 600
    goal = [r for r in rep.rows if r.metric.startswith("throughput gain δ = 6 over δ = 2")]
    assert len(goal) == 1 and goal[0].paper == 55 and goal[0].tolerance.startswith("goal")
    assert goal[0].within == (abs(goal[0].ours - 55) <= 27.5)


def test_one_claim_one_row(rep):
    """No claim has two rows: B's queue mean on the baseline, Table II's δ gain; Table I's
    throughputs without FISP and the factor of 5 are checked against the paper's numbers."""
    keys = [(r.experiment, r.metric, r.condition) for r in rep.rows]
    assert len(keys) == len(set(keys))
    base_q = [r for r in rep.rows if r.paper == 235.8]
    assert len(base_q) == 1 and base_q[0].tolerance == "±50 %"
    assert not [r for r in rep.rows if r.metric == "throughput δ = 6 above δ = 2"]
    assert not [r for r in rep.rows if r.metric == "CHoPCoP's total the highest"]
    rows = {(r.metric, r.condition): r for r in rep.rows}
    for cond, paper, value in (
        ("CIR 160/s, without FISP", 2.4, 2.4),
        ("CIR 200/s, without FISP", "977.9 Kbps", 0.9779),
    ):
        r = rows[("throughput (complete chunks)", cond)]
        assert r.paper == paper and r.within == (abs(r.ours - value) <= 0.5 * value)
    (five,) = [r for r in rep.rows if r.paper == "a factor of 5"]
    over_icp, over_hr_icp = five.ours
    assert five.expected == 5 and five.within == (min(over_icp, over_hr_icp) >= 4)


def test_multi_source_ordering_carries_the_order_the_papers_gains_imply(rep):
    """+107.6 % over ICTP and a factor of 2 over ICP/HR-ICP put ICTP at C/2.076, below ICP's
    C/2: the row keeps the issue's order and shows the derived shares beside it."""
    from ndncc.experiments.chopcop_rows import implied_shares

    assert implied_shares({"ictp": 107.6, "icp": 100.0, "hr-icp": 100.0}) == pytest.approx(
        [100.0, 100 / 2.076, 50.0, 50.0]
    )
    (row,) = [
        r
        for r in rep.rows
        if r.experiment == "multi-source REM (Fig. 8)"
        and r.metric.startswith("throughput ordering")
    ]
    chopcop_, ictp, icp, hr_icp = row.expected
    assert chopcop_ == row.ours[0]  # in Mbit/s, from our CHoPCoP's throughput
    assert icp == hr_icp == pytest.approx(chopcop_ / 2)
    assert ictp == pytest.approx(chopcop_ / 2.076) and ictp < icp
    assert row.expected_source.startswith("derived")
    # the paper prints gains, not the order: its sentence, not issue 14's order, is the cell
    assert row.paper.startswith("CHoPCoP improves throughput by 107.6% compared to ICTP")
    assert row.tolerance.startswith("issue 14's order")


def test_where_icps_false_timeouts_go(rep):
    """The re-expressions reach A through B (no PIT entry left to aggregate them: B forwards
    every chunk Interest C sends, bar the last in flight) and their duplicates cross the
    bottleneck."""
    rows = {r.metric: r for r in rep.rows if r.experiment == "ICP's timer (τ sweep)"}
    t, retx = rows[
        "timeouts / re-expressions sent (a chunk completed before its re-ask left none)"
    ].ours
    assert 0 < retx <= t
    sent, forwarded = rows["chunk Interests C sent to B / B forwarded to A"].ours
    assert sent - 1 <= forwarded <= sent
    dup, share = rows["duplicate Data segments across B→C / their share of B→C's Data"].ours
    assert dup > 0 and 0 < share < 100


def test_ictps_multi_source_reasks_are_fast_retransmits(rep):
    """Chunks from the near source overtake the far source's: ICTP re-asks without a timeout
    (fast retransmit on out-of-sequence arrival, as seed 001 reports) and its window stays
    small."""
    (row,) = [
        r
        for r in rep.rows
        if r.metric == "ICTP throughput / window mean / re-asks / timeouts"
        and r.condition.startswith("A–C 50 ms")
    ]
    thr, window, reasks, timeouts = row.ours
    assert reasks > 10 and timeouts == 0
    assert 0 < window < 10 and 0 < thr < 30
