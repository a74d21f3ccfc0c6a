"""ndnSieve off seed 004's setups (issue 27 item 5): two paths of unequal capacity or delay,
more consumers, other speeds and queues. The controller must move a prefix off the busy path
to the one with the lower Formula-3 metric; the consumer's window must not starve anyone
where the mechanism promises a share. Scenarios: tests/off_paper_helpers.py; the measured
grid: docs/schemes/sieve.md, "Off the paper's setups"."""

import ndncc
from off_paper_helpers import dumbbell, figures, twopath


def per_window(s, n):
    return s.with_overrides(overrides={f"apps[c{k}].per_window": True for k in range(1, n + 1)})


def test_the_controller_moves_the_prefix_to_the_stronger_path():
    # R1 starts on A (5 Mbit/s); B has 15. The controller moves /prefix to B, which then
    # carries more than A could at all
    f = figures(ndncc.run(twopath("sieve", 1, bw=("5Mbps", "15Mbps"), queue="200p")))
    assert f["B"] > 1.5 * f["A"] and f["B"] > 5.0, f


def test_the_stronger_first_path_keeps_most_of_the_traffic():
    f = figures(ndncc.run(twopath("sieve", 1, bw=("15Mbps", "5Mbps"), queue="200p")))
    assert f["A"] > 1.5 * f["B"] and f["A"] > 5.0, f
    assert f["B"] > 0.0, f  # mild congestion on A moved the prefix at least once


def test_without_the_controller_the_prefix_never_leaves_its_first_path():
    s = twopath("sieve", 1, bw=("5Mbps", "15Mbps"), queue="200p", duration="3s")
    f = figures(ndncc.run(s.with_overrides(overrides={"sdn": None})))
    assert f["B"] == 0.0 and f["A"] > 0.8 * 5.0, f


def test_per_window_consumers_share_two_paths_and_a_dumbbell():
    # +1 per window of Data, −1 per marked Data: additive increase against a decrease that
    # grows with the rate, so the windows converge (four on two 10 Mbit/s paths: Jain 0.99)
    f = figures(ndncc.run(per_window(twopath("sieve", 4, queue="200p"), 4)))
    assert f["jain"] > 0.95 and min(f["A"], f["B"]) > 2.0, f
    # eight on one 10 Mbit/s link converge more slowly (+1 per round trip each): after 6 s
    # the smallest has two thirds of its share, none less than half
    f = figures(ndncc.run(per_window(dumbbell("sieve", 8, "10Mbps", "200p", "6s"), 8)))
    assert min(f["throughput"]) > 0.5 * f["total"] / 8 and f["total"] > 0.8 * 10.0, f


def test_as_printed_the_window_does_not_restore_a_share():
    # equation 4 as printed (+1 per unmarked Data) against equation 5 (−1 per marked Data):
    # every window grows or shrinks in proportion to its own rate, so the ratio between
    # consumers is kept, not evened out — with four or eight consumers one is left with a
    # fraction of its share (docs/schemes/sieve.md, "Off the paper's setups")
    for n in (4, 8):
        f = figures(ndncc.run(dumbbell("sieve", n, "10Mbps", "200p", "6s")))
        assert min(f["throughput"]) < 0.5 * f["total"] / n and f["jain"] < 0.9, (n, f)


def test_formula_3_does_not_keep_the_stronger_path_full():
    # B (15 Mbit/s) above th1 is mild congestion, and an idle A (β = 0) has the lower metric:
    # the prefix goes back to A every time, so B never runs near its capacity
    s = per_window(twopath("sieve", 1, bw=("5Mbps", "15Mbps"), queue="200p"), 1)
    f = figures(ndncc.run(s))
    assert 5.0 < f["B"] < 0.8 * 15.0 and f["A"] > 0.5, f


def test_delay_is_not_in_the_metric_and_the_longer_path_keeps_the_prefix():
    # the same window fills the longer path less: β stays under th1 there, so the prefix stays
    for delay, longer in ((("5ms", "20ms"), "B"), (("20ms", "5ms"), "A")):
        s = per_window(twopath("sieve", 1, delay=delay, queue="200p"), 1)
        f = figures(ndncc.run(s))
        shorter = "A" if longer == "B" else "B"
        assert f[longer] > 3 * f[shorter], (delay, f)
