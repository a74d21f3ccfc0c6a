"""`ndncc reproduce sieve --quick`: the three scenarios run with every ndnSieve variant (and
PCON once the registry has it), comparison.csv has the required columns and rows, the figures
have data, and the required comparisons that fail are exactly the known, documented ones
(`docs/schemes/sieve.md`, "Where we differ")."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from ndncc.experiments import sieve, sieve_recon_rows
from ndncc.experiments.common import COMPARISON_COLUMNS
from ndncc.experiments.sieve_startup import FITTED_TH2
from reproduce_helpers import reproduce_recording


@pytest.fixture(scope="module")
def drawn():
    return {}


@pytest.fixture(scope="module")
def rep(tmp_path_factory, drawn):
    out = tmp_path_factory.mktemp("sieve")
    return reproduce_recording("sieve", out, drawn, quick=True, n_jobs=2)


PRINTED = ("ndnSieve, th2 = 0.3", "ndnSieve, th2 = 0.7")
# The consumer as printed (+1 per unmarked Data) overflows queues and is unfair: each row is
# explained in docs/schemes/sieve.md. The test fails if another required row fails, and also
# if one of these starts to hold.
KNOWN_DIFFERENCES = {
    *((f"{s} (Fig. 3{x})", "loss rate (queue overflow)", v) for s, x in
      (("dumbbell", "a"), ("multipath 1", "b"), ("multipath 2", "c")) for v in PRINTED),
    *(("dumbbell (Fig. 3a)", "Jain fairness index", v) for v in PRINTED),
    # a held move lands a whole window on a path another flow fills: a few drops
    ("multipath 2 (Fig. 3c)", "loss rate (queue overflow)",
     "ndnSieve +1/window, th2 = 0.7, hold = 2s"),
    # the per-Data start overshoots for one round trip after the first mark: drops at start
    *((f"{s} (Fig. 3{x})", "loss rate (queue overflow)", v) for s, x in
      (("dumbbell", "a"), ("multipath 1", "b"), ("multipath 2", "c"))
      for v in (sieve.START_PER_DATA, sieve.EVENTS)),
}  # fmt: skip


def test_comparison_csv_has_the_columns_and_a_row_per_scheme_and_scenario(rep):
    with open(rep.comparison, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == COMPARISON_COLUMNS
    labels = list(sieve.variants())
    for scen in sieve.SCENARIOS:
        for label in (v for v in labels if v.startswith("ndnSieve")):
            got = [r for r in rows[1:] if r[0].startswith(scen) and r[2] == label]
            assert {r[1] for r in got} >= {
                "total throughput (whole run)",
                "loss rate (queue overflow)",
            }, (scen, label)
    # "paper" holds only what the paper prints: numbers, or its own words
    paper = {r[3] for r in rows[1:]}
    assert "1" in paper and "0" in paper


def recon(r) -> bool:
    """A row about our reconstructions of CoopCon and FleCom (tested below)."""
    return sieve_recon_rows.TAG in r.metric


def against_pcon(r) -> bool:
    return "PCON" in r.metric and not recon(r)


def test_required_comparisons_hold_except_the_known_differences(rep):
    required = [r for r in rep.rows if r.checked and not r.tolerance.startswith("goal")]
    failed = {
        (r.experiment, r.metric, r.condition)
        for r in required
        if not r.within and not against_pcon(r) and not recon(r)
    }
    assert failed == KNOWN_DIFFERENCES
    assert len([r for r in required if not against_pcon(r) and not recon(r)]) >= 18


# Rows against PCON that do not hold in the quick tier (docs/schemes/sieve.md, "Where we differ"),
# per (experiment, metric): the ndnSieve variants for which they fail. "PCON" runs ndnSIM's
# defaults (64 KiB marking threshold), "PCON (20 KB)" the 2022 ndnSIM-2.9 port's threshold.
# In the dumbbell both PCONs leave one consumer stalled (ndnSIM's back-off after the first
# slow start overflows), so PCON's delays are those of a lone flow; the consumer as printed
# queues more than PCON everywhere; the 64 KiB PCON keeps the link full (tiny std).
# Exact set: the test fails when another one fails or one starts to hold.
P3, P7 = PRINTED
W3, W7 = "ndnSieve +1/window, th2 = 0.3", "ndnSieve +1/window, th2 = 0.7"
H7 = "ndnSieve +1/window, th2 = 0.7, hold = 2s"
S7, E7, Q3 = sieve.START_PER_DATA, sieve.EVENTS, sieve.QUEUE_ALONE
DB, M1, M2 = "dumbbell (Fig. 3a)", "multipath 1 (Fig. 3b)", "multipath 2 (Fig. 3c)"
_PCON_FAILS = {
    (DB, "delay std per consumer, ndnSieve / PCON"): (P3, P7, W7, H7, S7, E7),
    (DB, "delay std per consumer, ndnSieve / PCON (20 KB)"): (P3, P7, W7, H7, S7, E7),
    (DB, "mean delay per consumer, ndnSieve / PCON"): (P3, P7, S7, E7),
    (DB, "mean delay per consumer, ndnSieve / PCON (20 KB)"): (P3, P7, W7, H7, S7, E7, Q3),
    (DB, "throughput std, ndnSieve / PCON"): (P3, W3, P7, W7, H7, S7, E7, Q3),
    (DB, "throughput std, ndnSieve / PCON (20 KB)"): (P3, W3, P7, Q3),
    (M1, "delay std per consumer, ndnSieve / PCON"): (P3, P7),
    (M1, "delay std per consumer, ndnSieve / PCON (20 KB)"): (P3, P7),
    (M1, "mean delay per consumer, ndnSieve / PCON"): (P3, P7, E7),
    (M1, "mean delay per consumer, ndnSieve / PCON (20 KB)"): (P3, P7, S7, E7),
    # with ndnSIM's consumer machinery PCON's consumer 1 no longer stalls for the last seconds
    # of multipath 2 (an Interest is declared as soon as a sample brings the RTO down), so
    # PCON's two consumers share more evenly than the th2 = 0.7 variants'
    (M2, "Jain index, ndnSieve / PCON"): (P7, W7, H7),
    (M2, "Jain index, ndnSieve / PCON (20 KB)"): (P7, W7, H7),
    (M2, "mean delay per consumer, ndnSieve / PCON"): (P3, P7),
    (M2, "mean delay per consumer, ndnSieve / PCON (20 KB)"): (P3, P7, S7, E7),
}
KNOWN_PCON_DIFFERENCES = {(e, m, v) for (e, m), vs in _PCON_FAILS.items() for v in vs}


def test_rows_against_pcon_that_fail_are_the_known_ones(rep):
    if "PCON" not in sieve.variants():
        pytest.skip("PCON is not in the registry")
    required = [r for r in rep.rows if r.checked and not r.tolerance.startswith("goal")]
    failed = {(r.experiment, r.metric, r.condition) for r in required
              if against_pcon(r) and not r.within}  # fmt: skip
    assert failed == KNOWN_PCON_DIFFERENCES, sorted(failed ^ KNOWN_PCON_DIFFERENCES)


def test_pcon_rows_appear_exactly_when_pcon_is_registered(rep):
    """The rows against PCON are reported as they come out (docs/schemes/sieve.md discusses
    them: PCON leads in most of them here); they exist only with PCON in the registry."""
    rows = [r for r in rep.rows if against_pcon(r)]
    if "PCON" in sieve.variants():
        gains = [r for r in rows if r.metric == "total-throughput gain over PCON"]
        n_sieve = len([v for v in sieve.variants() if v.startswith("ndnSieve")])
        assert len(gains) == 3 * n_sieve
        port = [r for r in rows if r.metric == "total-throughput gain over PCON (20 KB)"]
        assert len(port) == 3 * n_sieve
        paper = {r.paper for r in gains}
        assert 33.55 in paper
    else:
        assert rows == []


def test_the_per_window_consumer_meets_the_acceptance(rep):
    rows = {(r.experiment, r.metric, r.condition): r for r in rep.rows}
    for th2 in (0.3, 0.7):
        label = f"ndnSieve +1/window, th2 = {th2}"
        assert rows[("dumbbell (Fig. 3a)", "Jain fairness index", label)].within
        for exp in ("dumbbell (Fig. 3a)", "multipath 1 (Fig. 3b)", "multipath 2 (Fig. 3c)"):
            assert rows[(exp, "loss rate (queue overflow)", label)].ours == 0
    steady = rows[
        ("dumbbell (Fig. 3a)", "total throughput after 3 s (start-up over)",
         "ndnSieve +1/window, th2 = 0.7")
    ]  # fmt: skip
    assert steady.ours >= 9.0


def test_r1_moves_traffic_to_its_r3_face_in_both_multipath_scenarios(rep):
    for r in rep.rows:
        goal = r.tolerance.startswith("goal")  # the instant beside the paper's: a target
        if r.metric.startswith(("R1 starts forwarding", "path switching")) and not goal:
            assert r.within and r.ours > 0, (r.experiment, r.condition)


def test_schemes_not_run_are_said_so(rep):
    text = rep.report.read_text()
    if sieve_recon_rows.available():
        assert "CoopCon and FleCom: run only as our reconstructions" in text
    else:
        assert "CoopCon and FleCom: not run" in text
    if "PCON" not in sieve.variants():
        assert "PCON: not run" in text


def test_every_figure_has_data_and_units(rep, drawn):
    names = [f.name for f in rep.figures]
    for fig in ("fig4", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10", "fig11", "fig12",
                "fig13", "fig14", "fig15", "fig16", "fig17", "table5_7"):  # fmt: skip
        assert any(n.startswith(fig + "_") for n in names), fig
    for name, fig in drawn.items():
        for ax in fig.axes:
            assert "(" in ax.get_ylabel(), (name, ax.get_ylabel())
            lines = [np.asarray(line.get_ydata(), float) for line in ax.lines]
            bars = [p.get_height() for p in ax.patches]
            # box plots draw their boxes, whiskers and medians as lines
            has_bars = any(np.isfinite(h) and h > 0 for h in bars)
            assert any(np.isfinite(y).any() for y in lines) or has_bars, name


def test_the_paper_printed_instants_have_goal_rows(rep):
    """≈ 1 s (multipath 1) and ≈ 4.1 s (multipath 2): our instant beside each, goal ±50 %."""
    paper = {"multipath 1 (Fig. 3b)": 1.0, "multipath 2 (Fig. 3c)": 4.1}
    goals = [r for r in rep.rows if r.metric.endswith(", when")]
    assert {r.experiment for r in goals} == set(paper)
    for r in goals:
        assert r.paper == paper[r.experiment] and r.tolerance == "goal ±50 %"
        assert r.within == (abs(r.ours - r.paper) <= 0.5 * r.paper), r.condition


def test_the_pcon_port_baseline_runs_with_its_threshold(rep):
    """The second PCON column differs from the first only by the port's marking threshold,
    and that threshold changes what PCON does (a stale override would give equal rows)."""
    if "PCON" not in sieve.variants():
        pytest.skip("PCON is not in the registry")
    router, _, _ = sieve.pcon_parts()
    ours = sieve.overrides("multipath 1", sieve.variants()[sieve.PCON_PORT], quick=True)
    base = sieve.overrides("multipath 1", sieve.variants()["PCON"], quick=True)
    assert ours.pop(f"defaults.node.schemes.{router}") == {"threshold": "20480B"}
    assert base.pop(f"defaults.node.schemes.{router}") == {}
    assert ours == base
    rows = {(r.experiment, r.metric, r.condition): r.ours for r in rep.rows}
    exp, cond = "multipath 1 (Fig. 3b)", "ndnSieve, th2 = 0.3"
    gain = "total-throughput gain over {}"
    assert rows[(exp, gain.format("PCON"), cond)] != rows[(exp, gain.format("PCON (20 KB)"), cond)]


def test_the_per_data_start_reaches_the_link_rate_before_the_per_window_ramp(rep):
    """start_per_data: the first switch in multipath 1 comes within the paper's ≈ 1 s, well
    before the +1/window ramp from cwnd = 1 gets there (our reading of why the paper's
    consumer starts fast); its whole-run dumbbell throughput is above the ramp's."""
    rows = {(r.experiment, r.metric, r.condition): r.ours for r in rep.rows}
    m1, db = "multipath 1 (Fig. 3b)", "dumbbell (Fig. 3a)"
    when = "R1 starts forwarding on its R3 face, when"
    ramp = "ndnSieve +1/window, th2 = 0.7"
    assert rows[(m1, when, sieve.START_PER_DATA)] <= 1.5 < rows[(m1, when, ramp)]
    whole = "total throughput (whole run)"
    assert rows[(db, whole, sieve.START_PER_DATA)] > rows[(db, whole, ramp)]


def test_with_moves_on_rise_signals_only_r1_moves_once_in_multipath_1(rep):
    """Signals only when β rises above th1 and metrics pushed only on mild signals: R1 moves
    its traffic to the R3 face once (the paper's Fig. 9), where the periodic refresh and the
    signals on every mild/severe change move it back and forth."""
    rows = {(r.experiment, r.metric, r.condition): r.ours for r in rep.rows}
    m1 = "multipath 1 (Fig. 3b)"
    changes = "changes of R1's busier face (100 ms bins)"
    assert rows[(m1, changes, sieve.EVENTS)] == 1
    assert rows[(m1, changes, sieve.START_PER_DATA)] > 1
    assert rows[(m1, "share of R1's Data through R3 after that", sieve.EVENTS)] > 0.9


def test_the_queue_alone_start_loses_nothing_and_is_fair(rep):
    """th2 = 0.3 with ε > th2 marking whatever the last window's β: the first mark comes
    before the per-Data start's overshoot, so no queue overflows in any scenario and the
    dumbbell's consumers share evenly (docs/schemes/sieve.md, "Why the fast start loses Data")."""
    rows = {(r.experiment, r.metric, r.condition): r for r in rep.rows}
    for exp in (DB, M1, M2):
        assert rows[(exp, "loss rate (queue overflow)", Q3)].ours == 0, exp
    assert rows[(DB, "Jain fairness index", Q3)].within
    assert rows[(DB, "loss rate (queue overflow)", S7)].ours > 0


FITTED = FITTED_TH2


def startup(rep) -> dict:
    from ndncc.experiments.sieve_startup import EXPERIMENT

    return {(r.metric.split(":")[0], r.condition): r.ours for r in rep.rows
            if r.experiment == EXPERIMENT}  # fmt: skip


def test_the_start_up_probe_shows_where_the_first_mark_comes(rep):
    """The 100 ms block window of β marks the per-Data start only once the queue is past 70
    (it then overflows whatever th2); a 10 ms window or the queue alone marks at th2·Q."""
    s = startup(rep)
    fast = "ndnSieve per-Data start, "
    for label in ("th2 = 0.3", "th2 = 0.3, β counted on arrival"):
        since, q_mark, q_peak = s[("first mark", fast + label)]
        assert since >= 50 and q_mark > 70 and q_peak == 100, label
        assert s[("Data dropped", fast + label)][0] > 0, label
    for label in ("th2 = 0.3, 10 ms window", "th2 = 0.3, queue alone"):
        _, q_mark, q_peak = s[("first mark", fast + label)]
        assert q_mark == 31 and q_peak < 100, label
        assert s[("Data dropped", fast + label)] == [0, 0, 0, 0], label
    # β sliding every 10 ms marks sooner than the 100 ms block, an EWMA of the blocks later
    block = s[("first mark", fast + "th2 = 0.3")][0]
    sliding = s[("first mark", fast + "th2 = 0.3, β over the last 100 ms, sliding every 10 ms")]
    ewma = s[("first mark", fast + "th2 = 0.3, β an EWMA of 100 ms windows (gain 0.5)")]
    assert sliding[0] < block < ewma[0]


def test_no_th2_gives_the_fast_start_both_zero_loss_and_9_mbits(rep):
    """With the queue alone marking, th2 trades the start's overflow against the link idling
    after each mark episode: every th2 tried (the fitted ones too) either drops Data in one
    of the three scenarios or stays below 9 Mbit/s over the dumbbell's run (the docs' claim;
    this fails if one meets both)."""
    s = startup(rep)
    seen = {"zero loss": False, "9 Mbit/s": False}
    tried = (0.3, 0.4, 0.5, 0.6, 0.7, *FITTED)
    for th2 in tried:
        fitted = " (fitted)" if th2 in FITTED else ""
        label = f"ndnSieve per-Data start, th2 = {th2}{fitted}, queue alone"
        lossless = s[("Data dropped", label)][1:] == [0, 0, 0]
        fast = s[("dumbbell total throughput", label)][0] >= 9.0
        assert not (lossless and fast), th2
        seen["zero loss"] |= lossless
        seen["9 Mbit/s"] |= fast
    assert all(seen.values()), seen


def test_every_candidate_lists_the_required_rows_it_fails(rep):
    """The probe's verdict row names the failing required rows per PCON baseline; the
    per-Data start as the reproduction runs it fails on loss in every scenario."""
    s = startup(rep)
    verdicts = {c: v for (m, c), v in s.items() if m == "required rows of the issue that fail"}
    assert len(verdicts) >= 15
    mine = verdicts["ndnSieve per-Data start, th2 = 0.7 (the reproduction's)"]
    for scen in ("dumbbell", "multipath 1", "multipath 2"):
        assert f"{scen} zero loss" in mine
    alone = verdicts["ndnSieve per-Data start, th2 = 0.3, queue alone"]
    assert "zero loss" not in alone and "Jain" not in alone.split(";")[0]
    assert alone.startswith("dumbbell total ≥ 9")
    if "PCON" in sieve.variants():
        assert all("vs PCON: " in v and "vs PCON (20 KB): " in v for v in verdicts.values())
        assert "dumbbell std" in alone.split("vs PCON: ")[1]


def test_a_gain_over_a_baseline_that_delivered_nothing_is_a_number_not_a_crash():
    # a claim map's point where PCON delivered nothing after the start-up raised
    # ZeroDivisionError in pcon_rows (2 of 64 points of the first sieve map)
    import math

    from ndncc.experiments.sieve_rows import gain_pct

    assert gain_pct(12.0, 10.0) == pytest.approx(20.0)
    assert gain_pct(8.0, 10.0) == pytest.approx(-20.0)
    assert gain_pct(5.0, 0.0) == math.inf
    assert math.isnan(gain_pct(0.0, 0.0))


# ---- CoopCon and FleCom as we reconstruct them (docs/schemes/flecom-recon.md) -----------------

RC, RF = sieve_recon_rows.COOPCON, sieve_recon_rows.FLECOM
TAG = sieve_recon_rows.TAG
# seed 004's sentences about CoopCon and FleCom: one row each, per scenario
RECON_METRICS = {
    DB: {
        f"loss rate (queue overflow), {TAG}",
        f"total throughput after 3 s, {TAG}",
        f"mean delay per consumer, ndnSieve / CoopCon / FleCom, {TAG}",
        f"Jain index, ndnSieve and FleCom the highest, {TAG}",
    },
    M1: {
        f"loss rate (queue overflow), {TAG}",
        f"total throughput after 3 s, {TAG}",
        f"PCON's total throughput the lowest, {TAG}",
        f"PCON's total throughput the most unstable, {TAG}",
        f"FleCom's total throughput above CoopCon's, {TAG}",
        f"FleCom's total throughput steadier than CoopCon's, {TAG}",
        f"ndnSieve's and FleCom's total throughput comparable, {TAG}",
        f"share of R1's Data through R3 (face 261), {TAG}",
        f"delay std, ndnSieve and FleCom below CoopCon and PCON, {TAG}",
        f"delay std, ndnSieve slightly above FleCom, {TAG}",
        f"mean delay, ndnSieve / CoopCon / FleCom, {TAG}",
    },
    M2: {
        f"loss rate (queue overflow), {TAG}",
        f"CoopCon's traffic stays off the alternative link (R2 — R3), {TAG}",
        f"FleCom adjusts the forwarding path (Data on R2 — R3), {TAG}",
        f"CoopCon's total throughput below FleCom's, {TAG}",
        f"FleCom's maximum total throughput over CoopCon's, {TAG}",
        f"Jain index, CoopCon less fair than FleCom and ndnSieve, {TAG}",
        f"mean delay of consumers 1 and 2, ndnSieve / CoopCon / FleCom, {TAG}",
    },
}
# Sentences our reconstructions do not reproduce in the quick tier, each discussed in
# docs/schemes/flecom-recon.md ("In seed 004's scenarios"): the test fails if another one fails,
# and also if one of these starts to hold.
KNOWN_RECON_FAILS = {
    (DB, f"mean delay per consumer, ndnSieve / CoopCon / FleCom, {TAG}"),
    (DB, f"Jain index, ndnSieve and FleCom the highest, {TAG}"),
    (M1, f"PCON's total throughput the lowest, {TAG}"),
    (M1, f"PCON's total throughput the most unstable, {TAG}"),
    (M1, f"FleCom's total throughput above CoopCon's, {TAG}"),
    (M1, f"FleCom's total throughput steadier than CoopCon's, {TAG}"),
    (M1, f"delay std, ndnSieve and FleCom below CoopCon and PCON, {TAG}"),
    (M1, f"delay std, ndnSieve slightly above FleCom, {TAG}"),
    (M2, f"CoopCon's total throughput below FleCom's, {TAG}"),
    (M2, f"FleCom's maximum total throughput over CoopCon's, {TAG}"),
    (M2, f"mean delay of consumers 1 and 2, ndnSieve / CoopCon / FleCom, {TAG}"),
}


def recon_rows(rep) -> list:
    if not sieve_recon_rows.available():
        pytest.skip("the reconstructions are not in the registry")
    return [r for r in rep.rows if recon(r)]


def test_each_sentence_about_coopcon_and_flecom_has_one_row_under_our_reconstruction(rep):
    rows = recon_rows(rep)
    for exp, metrics in RECON_METRICS.items():
        assert {r.metric for r in rows if r.experiment == exp} == metrics, exp
    # one row per sentence, or per reconstruction for a sentence about each of them
    per_scheme = {"loss rate", "total throughput after", "share of R1"}
    for r in rows:
        same = [x for x in rows if (x.experiment, x.metric) == (r.experiment, r.metric)]
        n = 2 if r.metric.startswith(tuple(per_scheme)) else 1
        assert len(same) == n, (r.experiment, r.metric)
        if n == 2:
            assert {x.condition for x in same} == {RC, RF}
    # no loss in any scenario, as the paper reports for all four schemes
    assert all(r.ours == 0 for r in rows if r.metric.startswith("loss rate"))


def test_recon_rows_that_fail_are_the_known_ones(rep):
    rows = recon_rows(rep)
    failed = {(r.experiment, r.metric) for r in rows
              if r.checked and not r.tolerance.startswith("goal") and not r.within}  # fmt: skip
    assert failed == KNOWN_RECON_FAILS, sorted(failed ^ KNOWN_RECON_FAILS)


def test_the_reconstructions_are_headed_as_such_in_the_report(rep):
    recon_rows(rep)
    text = rep.report.read_text()
    for label in (RC, RF):
        # one line in each scenario's table of every scheme run (rows name it in column 2)
        lines = [x for x in text.splitlines() if x.startswith(f"| {label} |")]
        assert len(lines) == len(sieve.SCENARIOS), label
    # they run without ndnSieve's controller and with their own three parts
    ov = sieve.overrides("multipath 1", sieve.variants()[RF], quick=True)
    assert ov["sdn"] is None and ov["defaults.node.schemes.sieve"] is None
    assert ov["defaults.node.schemes.flecom-recon"] == {}
    assert ov["defaults.node.strategy"] == "flecom-recon"
    assert ov["apps[c1].controller"] == "flecom-recon"
