"""The summary fields Python computes over the Rust ones: fairness over the consumers that ran,
loss over the Interests whose outcome is known (docs/internals.md); and each consumer's count
of marked Data (docs/simulator.md, "Counting")."""

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


def test_delivery_and_loss_count_the_same_outcomes_in_the_table_and_the_summary(tmp_path, capsys):
    """Interests still in flight at the end are neither delivered nor lost: the CLI's
    "delivery" column, summary.json's delivery_ratio and loss_rate, and the store index all
    say so (the table and delivery_ratio used to count them as not delivered: 0.8 here)."""
    import json

    from ndncc import cli
    from ndncc.store import summary_row

    path = tmp_path / "line.toml"
    path.write_text(line().consumer("C", "/p", rate=500, name="c").to_toml())
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out"), "--no-figures"]) == 0
    table = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("│ c "))
    a = json.loads((tmp_path / "out" / "summary.json").read_text())["apps"][0]
    assert a["in_flight_at_end"] >= 90 and a["timeouts"] == a["nacks_received"] == 0
    assert a["delivery_ratio"] == 1.0 and a["loss_rate"] == 0.0
    cells = [c.strip() for c in table.split("│")[1:-1]]
    assert cells[-3] == "1.0000", table  # delivery, then the two delays
    assert str(a["in_flight_at_end"]) in cells, table
    assert summary_row({"apps": [a]})["delivery_ratio"] == 1.0


def test_delivery_and_loss_add_up_over_known_outcomes():
    # chunked fetch: 10 chunks asked, 7 complete, 2 given up (3 timeouts, 1 re-ask), 1 in
    # flight; segments (300 Data) do not enter the ratios
    from ndncc.outcomes import Outcomes, delivery_ratio, loss_rate, outcomes

    a = dict(interests_sent=11, data_received=300, requested=10, completed=7, timeouts=3)
    a["retransmissions"] = 1
    o = outcomes(a)
    assert o == Outcomes(delivered=7, lost=2, in_flight=1)
    assert delivery_ratio(o) == 7 / 9 and loss_rate(o) == 2 / 9
    # summaries without requested / completed count Interests and Data
    old = dict(interests_sent=12, data_received=8, nacks_received=1, timeouts=2, retransmissions=2)
    assert outcomes(old) == Outcomes(delivered=8, lost=1, in_flight=1)
    assert delivery_ratio(outcomes({})) is None


def test_each_consumer_counts_the_marked_data_it_received(tmp_path):
    """``apps[].marks``: the Data a consumer received that carried a congestion mark. In
    CHoPCoP's baseline only REM on B's queue towards C marks, and no Data is lost after it, so
    the receiver gets every Data marked there once the run has drained (its sending stopped a
    second before the end), and no more than those while Data are still on their way. A run
    without a marking scheme counts none. The key reaches summary.json."""
    import json
    from pathlib import Path

    baseline = Path(__file__).parent.parent / "scenarios" / "chopcop" / "baseline.toml"

    def run(**overrides):
        s = Scenario.load(baseline)
        r = ndncc.run(s.with_overrides(overrides={"scenario.duration": "12s", **overrides}))
        marks = {(f["node"], f["peer"]): f["marks"] for f in r.summary["faces"]}
        return r, r.summary["apps"][0], marks

    r, a, faces = run()
    assert a["name"] == "receiver" and a["in_flight_at_end"] > 0
    assert 0 < a["marks"] <= faces[("B", "C")], (a["marks"], faces)
    assert sum(faces.values()) == faces[("B", "C")]  # REM marks nowhere else
    r.save(tmp_path / "out")
    saved = json.loads((tmp_path / "out" / "summary.json").read_text())["apps"][0]
    assert saved["marks"] == a["marks"]

    _, drained, faces = run(**{"apps[receiver].stop": "11s"})
    assert drained["in_flight_at_end"] == 0 and drained["timeouts"] == 0
    assert drained["marks"] == faces[("B", "C")] > 0, (drained["marks"], faces)

    plain = ndncc.run(line().consumer("C", "/p", rate=500, name="c")).summary["apps"][0]
    assert plain["data_received"] > 0 and plain["marks"] == 0
