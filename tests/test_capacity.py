"""The capacity in the summary and on the throughput figure is the bottleneck the run's Data
crossed (a maximum flow over the links that carried Data), not the slowest link anywhere: an
unused 1 Mbit/s dead end used to become the capacity of a 4.9 Mbit/s flow, and two 10 Mbit/s
paths carrying ~19 Mbit/s showed a 10 Mbit/s line."""

from __future__ import annotations

import ndncc
import pytest
from ndncc import Scenario

TWO_PATHS = """
[scenario]
name = "two-paths"
duration = "3s"
seed = 1

[defaults.link]
bandwidth = "10Mbps"
delay = "5ms"
queue = "100p"

[nodes.R]
strategy = "weighted-multipath"

[[links]]
between = ["C", "R"]
bandwidth = "100Mbps"

[[links]]
between = ["R", "A"]

[[links]]
between = ["R", "B"]

[[links]]
between = ["A", "P"]
bandwidth = "100Mbps"

[[links]]
between = ["B", "P"]
bandwidth = "100Mbps"

[[routes]]
node = "R"
prefix = "/p"
next_hop = "A"
cost = 1

[[routes]]
node = "R"
prefix = "/p"
next_hop = "B"
cost = 1

[[apps]]
name = "c"
node = "C"
kind = "consumer"
prefix = "/p"
controller = "constant-rate"
rate = 1900

[[apps]]
name = "p"
node = "P"
kind = "producer"
prefix = "/p"
payload = "1250B"

[trace]
figures = false
parquet = false
"""


def test_an_unused_dead_end_link_is_not_the_capacity():
    sc = (
        Scenario(name="dead-end", duration="2s", seed=1)
        .link("C", "R", bandwidth="10Mbps", delay="5ms")
        .link("R", "P", bandwidth="10Mbps", delay="5ms")
        .link("R", "D", bandwidth="1Mbps", delay="5ms")  # nothing ever goes to D
        .producer("P", "/p", payload="1250B")
        .consumer("C", "/p", rate=470, name="c")
        .trace(figures=False, parquet=False)
    )
    s = ndncc.run(sc).summary
    assert 4.5 < s["apps"][0]["throughput_mbps"] < 5.5
    assert s["capacity_mbps"] == 10.0 and s["capacity_link"] in ("C–R", "R–P")


def test_a_path_the_data_did_not_take_does_not_add():
    # best-route takes R–P (10 ms); the 100 Mbit/s detour through X (100 ms) stays unused:
    # R–P is the bottleneck, not R–P and the detour together
    sc = (
        Scenario(name="detour", duration="2s", seed=1)
        .link("C", "R", bandwidth="100Mbps", delay="5ms")
        .link("R", "P", bandwidth="10Mbps", delay="5ms")
        .link("R", "X", bandwidth="100Mbps", delay="50ms")
        .link("X", "P", bandwidth="100Mbps", delay="50ms")
        .producer("P", "/p", payload="1250B")
        .consumer("C", "/p", rate=470, name="c")
        .trace(figures=False, parquet=False)
    )
    s = ndncc.run(sc).summary
    assert all(f["out_data"] == 0 for f in s["faces"] if f["peer"] == "X" or f["node"] == "X")
    assert s["capacity_mbps"] == 10.0 and s["capacity_link"] == "R–P"


def test_a_cache_is_a_source():
    """R answers C from its cache (it sent 1 000 Data, got 10 from P over a 1 Mbit/s link): the
    bottleneck is R–C's 100 Mbit/s, not the producer's link."""
    from ndncc.capacity import bottleneck

    spec = {
        "nodes": [{"name": "C"}, {"name": "R"}, {"name": "P"}],
        "links": [
            {"a": 0, "b": 1, "bandwidth_bps": 100e6},
            {"a": 1, "b": 2, "bandwidth_bps": 1e6},
        ],
    }
    faces = [  # (node, peer, link, out_data, in_data)
        (0, 1, 0, 0, 1000),
        (1, 0, 0, 1000, 0),
        (1, 2, 1, 0, 10),
        (2, 1, 1, 10, 0),
    ]
    summary = {
        "faces": [{"out_data": o, "in_data": i} for *_, o, i in faces],
        "producers": [{"node": "P"}],
        "apps": [{"node": "C", "data_received": 1000}],
    }
    meta = {"faces": [{"node": n, "peer": p, "link": ln} for n, p, ln, *_ in faces]}
    assert bottleneck(spec, summary, meta) == {"capacity_mbps": 100.0, "capacity_link": "C–R"}


def test_two_paths_add_up():
    s = ndncc.run(Scenario.from_toml_str(TWO_PATHS)).summary
    assert s["apps"][0]["throughput_mbps"] > 15.0  # more than either path: both carry Data
    assert s["capacity_mbps"] == 20.0 and s["capacity_link"] == "R–A + R–B"


def test_no_capacity_when_no_link_bounds_the_data(tmp_path):
    # consumer and producer on one node: no link between them, no line
    one = (
        Scenario(name="one-node", duration="1s", seed=1)
        .link("C", "X", bandwidth="1Mbps", delay="5ms")
        .producer("C", "/p", payload="1000B")
        .consumer("C", "/p", rate=100, name="c")
        .trace(figures=False, parquet=False)
    )
    s = ndncc.run(one).summary
    assert s["apps"][0]["data_received"] > 0
    assert "capacity_mbps" not in s and "capacity_link" not in s
    # no Data at all (a shortened run ends before the consumer starts): no line either
    silent = (
        Scenario(name="silent", duration="5s", seed=1)
        .link("C", "P", bandwidth="1Mbps", delay="5ms")
        .producer("P", "/p", payload="1000B")
        .consumer("C", "/p", rate=100, name="c", start="2s")
        .trace(figures=False, parquet=False)
    )
    assert "capacity_mbps" not in ndncc.run(silent, duration="1s").summary


def test_the_figure_draws_the_crossed_bottleneck():
    from ndncc import plots

    r = ndncc.run(Scenario.from_toml_str(TWO_PATHS))
    fig = plots._new_figure()
    assert plots._throughput(r, fig)
    lines = [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert [ln.get_ydata()[0] for ln in lines] == [20.0]
    assert lines[0].get_label() == "capacity, R–A + R–B"


@pytest.mark.parametrize(
    ("edges", "sources", "sinks", "value", "cut"),
    [
        # one path: its slowest link
        ([(0, 1, 100.0), (1, 2, 10.0), (2, 3, 100.0)], {0}, {3}, 10.0, [1]),
        # two disjoint paths add up
        ([(0, 1, 10.0), (1, 3, 10.0), (0, 2, 10.0), (2, 3, 10.0)], {0}, {3}, 20.0, [0, 2]),
        # the dumbbell: the shared link, whatever the access links
        ([(0, 1, 100.0), (1, 2, 10.0), (2, 3, 100.0), (2, 4, 100.0)], {0}, {3, 4}, 10.0, [1]),
        # a flow that needs a reverse arc of the residual graph to reach the maximum
        ([(0, 1, 1.0), (0, 2, 1.0), (1, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0)], {0}, {3}, 2.0, [0, 1]),
        # several sources
        ([(0, 2, 3.0), (1, 2, 4.0), (2, 3, 5.0)], {0, 1}, {3}, 5.0, [2]),
        # the first path found (0 1 3 5) blocks 0 2 3 5: the second is 0 2 3 ↩ 1 4 5, through
        # the reverse of 1 → 3
        (
            [(0, 1, 1.0), (0, 2, 1.0), (1, 3, 1.0), (1, 4, 1.0), (2, 3, 1.0)]
            + [(3, 5, 1.0), (4, 5, 1.0)],
            {0},
            {5},
            2.0,
            [0, 1],
        ),
    ],
)
def test_max_flow(edges, sources, sinks, value, cut):
    from ndncc.capacity import max_flow

    assert max_flow(6, edges, sources, sinks) == (value, cut)
