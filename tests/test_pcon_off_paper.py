"""PCON off seed 004's setups (issue 27 item 5): other link speeds and queue sizes, more
consumers, two paths of unequal capacity or delay. The forwarding strategy must move traffic
off the path that returns marked Data and keep the better path busy; no consumer may starve
where marks, not losses, drive the windows. Scenarios: tests/off_paper_helpers.py; the measured
grid: docs/schemes/pcon.md, "Off the paper's setups"."""

import ndncc
from off_paper_helpers import dumbbell, figures, twopath

CAP = "defaults.node.schemes.pcon.cap_half_queue"


def test_the_ratio_moves_off_the_weaker_marked_path():
    # R1 starts on path A (5 Mbit/s); B has 15. Marked Data from A move the ratio to B, which
    # ends up carrying more than A and more than A alone could
    f = figures(ndncc.run(twopath("pcon", 4, bw=("5Mbps", "15Mbps"), queue="200p")))
    assert f["marks"] > 0
    assert f["B"] > 1.5 * f["A"], f
    assert f["A"] + f["B"] > 1.5 * 5.0, f
    assert f["A"] > 0.8 * 5.0, f  # the first path stays full as well


def test_the_stronger_first_path_keeps_most_of_the_traffic():
    # A has 15 Mbit/s, B 5: the ratio moves only as far as A keeps marking
    f = figures(ndncc.run(twopath("pcon", 4, bw=("15Mbps", "5Mbps"), queue="200p")))
    assert f["A"] > 1.5 * f["B"] and f["A"] > 0.6 * 15.0, f
    assert f["B"] > 0.5, f  # B takes part of the load


def test_a_four_times_longer_second_path_is_used_too():
    # equal capacities, B's first link 20 ms against A's 5 ms: both paths carry Data
    f = figures(ndncc.run(twopath("pcon", 4, delay=("5ms", "20ms"), queue="200p")))
    assert min(f["A"], f["B"]) > 0.5 * 10.0, f
    assert f["total"] > 1.3 * 10.0, f


def test_no_consumer_starves_with_eight_consumers():
    f = figures(ndncc.run(dumbbell("pcon", 8, "10Mbps", "200p", "6s")))
    share = f["total"] / 8
    assert min(f["throughput"]) > 0.5 * share, f
    assert f["jain"] > 0.95 and f["total"] > 0.9 * 10.0, f


def test_a_queue_that_cannot_hold_the_threshold_never_marks_unless_capped():
    # 50 places of ≈ 1.1 KB never hold 65 536 B: NFD's rule as ndnSIM 2.8 runs it never marks
    # and the strategy never leaves path A; capped at half the queue (37 500 B, NFD 0.6.x) the
    # link marks and the ratio moves to B
    s = twopath("pcon", 4, queue="50p", duration="4s")
    plain = figures(ndncc.run(s))
    assert plain["marks"] == 0 and plain["B"] < 0.1, plain
    capped = figures(ndncc.run(s.with_overrides(overrides={CAP: True})))
    assert capped["marks"] > 0 and capped["B"] > 1.0, capped
    assert capped["total"] > plain["total"], (plain, capped)
