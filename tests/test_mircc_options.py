"""Issue 11, items 8 and 9: MIRCC's two readings that the seed leaves to its implementation,
each measured through whole runs — y with or without the refused Interests (`count_refused`),
and d measured from the router to the producer or carried end to end (`path_rtt`)."""

from __future__ import annotations

from pathlib import Path

import ndncc

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "mircc-clock"

WHERE = """
[scenario]
name = "mircc-bottleneck-{where}"
duration = "8s"
seed = 1

[defaults.link]
bandwidth = "100Mbps"
delay = "1ms"
queue = "1000p"

[defaults.node.schemes.mircc]
interval = "100ms"
standing_queue = false
path_rtt = {path_rtt}

[[links]]
between = ["C", "R1"]

[[links]]
between = ["R1", "R2"]
bandwidth = "{bw1}"
delay = "{d1}"

[[links]]
between = ["R2", "P"]
bandwidth = "{bw2}"
delay = "{d2}"

[[apps]]
name = "c"
node = "C"
kind = "consumer"
prefix = "/p"
controller = "mircc"
engine = "tick"
tick = "100ms"
start = "50ms"

[[apps]]
name = "p"
node = "P"
kind = "producer"
prefix = "/p"
payload = "1250B"
"""


def rates(r: ndncc.results.Result, lo: float, hi: float) -> dict[str, tuple[float, float]]:
    """(Interests/s, Data/s) per consumer over the bins ending in (lo, hi]."""
    s = r.series
    s = s[(s["time_s"] > lo + 1e-9) & (s["time_s"] <= hi + 1e-9)]
    g = s.groupby("app_name")[["interests", "data"]].sum() / (hi - lo)
    return {app: (row["interests"], row["data"]) for app, row in g.iterrows()}


def where(bottleneck: str, path_rtt: bool) -> float:
    """The consumer's Data rate on C — R1 — R2 — P with the 10 Mbps bottleneck (1 000 Data/s)
    next to the consumer (R1 — R2, 5 ms, with R2 — P 100 ms: R1 measures ≈ 210 ms to P) or
    next to the producer (R2 — P, 5 ms, after 100 ms of R1 — R2: R2 measures ≈ 10 ms); the
    end-to-end RTT is ≈ 214 ms either way. Ticks at 50 ms + k·100 ms, updates at k·100 ms:
    each update sees half a tick's burst in the bucket (`standing_queue = false`), a queue
    term β·g/d that depends on d."""
    slow, fast = ("10Mbps", "5ms"), ("100Mbps", "100ms")
    (bw1, d1), (bw2, d2) = (slow, fast) if bottleneck == "consumer" else (fast, slow)
    text = WHERE.format(
        where=bottleneck,
        path_rtt=str(path_rtt).lower(),
        bw1=bw1,
        d1=d1,
        bw2=bw2,
        d2=d2,
    )
    return rates(ndncc.run(ndncc.Scenario.from_toml_str(text)), 4, 8)["c"][1]


def test_with_the_measured_rtt_the_rate_depends_on_where_the_bottleneck_sits():
    # seed 000's reading: d is the RTT from the bottleneck's router to the producer
    near_consumer, near_producer = where("consumer", False), where("producer", False)
    assert near_consumer > 700
    assert near_producer < 0.75 * near_consumer


def test_with_the_path_rtt_it_does_not():
    near_consumer, near_producer = where("consumer", True), where("producer", True)
    assert abs(near_consumer - near_producer) <= 0.03 * near_consumer
    assert near_producer > where("producer", False) * 1.3


def flows(n: int, count_refused: bool) -> dict[str, tuple[float, float]]:
    s = ndncc.Scenario.load(SCENARIOS / f"{n}-flows.toml")
    s = s.with_overrides(overrides={"defaults.node.schemes.mircc.count_refused": count_refused})
    return rates(ndncc.run(s), 6, 10)


def test_aligned_ticks_settle_at_c_over_n_interests_of_which_a_third_are_refused():
    # 3 flows at 1 000/s, aligned 100 ms ticks: 300 Interests reach R1's 200-deep bucket at
    # once, so at most D per T = 2 000/s get through: 667 Data/s per flow, not C/n = 1 000.
    fair, through = 3000 / 3, 200 / 0.1 / 3
    for interests, data in flows(3, True).values():
        assert abs(interests - fair) <= 0.05 * fair
        assert abs(data - through) <= 0.05 * through


def test_y_without_the_refused_interests_drives_the_rates_to_the_line_rate():
    # y counts only what the bucket admits (≤ D/T = 2 000/s < C): the law sees spare capacity
    # and raises R every interval; the Data rate stays at D/T/n, the Interest rate climbs
    for interests, data in flows(3, False).values():
        assert interests > 2 * 1000
        assert abs(data - 667) <= 0.05 * 667
