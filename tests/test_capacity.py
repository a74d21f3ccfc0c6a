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
    ],
)
def test_max_flow(edges, sources, sinks, value, cut):
    from ndncc.capacity import max_flow

    assert max_flow(5, edges, sources, sinks) == (value, cut)
