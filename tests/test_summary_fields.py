"""The summary fields Python computes over the Rust ones: fairness over the consumers that ran,
loss over the Interests whose outcome is known (docs/internals.md)."""

from __future__ import annotations

import ndncc
import pytest
from ndncc import Scenario


def line(duration: str = "1s") -> Scenario:
    """C — R — P, 10 Mbps, 50 ms a link: a 200 ms RTT, no loss anywhere."""
    return (
        Scenario(name="line", duration=duration, seed=1)
        .link("C", "R", bandwidth="10Mbps", delay="50ms")
        .link("R", "P", bandwidth="10Mbps", delay="50ms")
        .producer("P", "/p", payload="1000B")
        .trace(figures=False, parquet=False)
    )


def test_interests_in_flight_at_the_end_are_not_counted_as_lost():
    # 500 Interests/s until the end: the last ~200 ms of them are still in flight
    r = ndncc.run(line().consumer("C", "/p", rate=500, name="c"))
    a = r.summary["apps"][0]
    assert a["nacks_received"] == a["timeouts"] == 0
    assert 90 <= a["in_flight_at_end"] <= 110
    assert a["in_flight_at_end"] == a["interests_sent"] - a["data_received"]
    assert a["loss_rate"] == 0.0  # nothing was lost: the rest is in flight


def test_loss_counts_only_known_outcomes():
    # 2 000 Interests/s into a 1 250 Data/s path with a short queue: drops time out
    sc = (
        Scenario(name="lossy", duration="2s", seed=1)
        .link("C", "R", bandwidth="100Mbps", delay="5ms")
        .link("R", "P", bandwidth="10Mbps", delay="5ms", queue="10p")
        .producer("P", "/p", payload="1000B")
        .consumer("C", "/p", rate=2000, timeout="100ms", name="c")
        .trace(figures=False, parquet=False)
    )
    a = ndncc.run(sc).summary["apps"][0]
    failed = a["nacks_received"] + a["timeouts"] - a["retransmissions"]
    assert failed > 0 and a["in_flight_at_end"] > 0
    assert a["loss_rate"] == pytest.approx(failed / (a["data_received"] + failed))


def test_fairness_leaves_out_consumers_that_never_ran():
    sc = (
        line("10s")
        .link("C2", "R", bandwidth="10Mbps", delay="50ms")
        .consumer("C", "/p", rate=200, name="early")
        .consumer("C2", "/p", rate=200, name="twin", start="0s")
        .consumer("C2", "/p", rate=200, name="late", start="5s")
    )
    s = ndncc.run(sc, duration="2s").summary  # a shortened run: "late" never starts
    late = next(a for a in s["apps"] if a["name"] == "late")
    assert late["interests_sent"] == 0
    assert s["fairness_consumers"] == 2
    assert s["fairness_jain"] == pytest.approx(1.0, abs=1e-3)
