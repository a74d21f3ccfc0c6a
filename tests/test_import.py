from pathlib import Path

import pytest
from ndncc.importers import (
    TopologyError,
    infer_format,
    read_minindn_conf,
    read_ndnsim_topology,
    read_topology,
)
from ndncc.scenario import Scenario

DATA = Path(__file__).parent / "data"

SIX_NODES = ["c1", "c2", "r1", "r2", "p1", "p2"]


def graph(spec):
    """Nodes and links by name with every resolved link parameter."""
    nodes = [n["name"] for n in spec["nodes"]]
    links = {
        (nodes[link["a"]], nodes[link["b"]]): (
            link["bandwidth_bps"],
            link["delay_ns"],
            link["queue_ab"],
            link["queue_ba"],
            link["loss"],
        )
        for link in spec["links"]
    }
    return nodes, links


def test_read_ndnsim():
    topo = read_ndnsim_topology(DATA / "six.txt")
    assert topo.format == "ndnsim"
    assert topo.nodes == SIX_NODES
    assert topo.node_lines == [7, 8, 9, 10, 11, 12]
    assert topo.links[2] == {
        "between": ["r1", "r2"],
        "bandwidth": "1Mbps",
        "delay": "50ms",
        "queue": "20p",
        "loss": 0.01,
        "cost": 1,
    }
    assert len(topo.links) == 5  # the reverse duplicate r1 c1 is skipped
    assert topo.link_lines == [17, 18, 19, 20, 21]
    assert topo.warnings == []


def test_read_minindn():
    topo = read_minindn_conf(DATA / "six.conf")
    assert topo.format == "minindn"
    assert topo.nodes == SIX_NODES
    assert topo.links[2] == {
        "between": ["r1", "r2"],
        "delay": "50ms",
        "bandwidth": "1Mbps",
        "loss": 0.01,
        "queue": "20p",
    }
    assert topo.links[4]["cost"] == 2
    assert topo.warnings == [
        (15, "link parameter 'jitter' ignored (ndncc simulates bw, delay, loss, max_queue_size)")
    ]


def test_infer_format():
    assert infer_format("a/b.txt") == "ndnsim"
    assert infer_format("x.CONF") == "minindn"
    assert infer_format("x.json") is None
    assert read_topology(DATA / "six.conf").format == "minindn"


def test_three_sources_resolve_identically():
    inline = Scenario.load(DATA / "six_inline.toml").resolve()
    ndnsim = Scenario.load(DATA / "six_ndnsim.toml").resolve()
    minindn = Scenario.load(DATA / "six_minindn.toml").resolve()
    assert graph(inline)[0] == SIX_NODES
    assert graph(inline)[1][("r1", "r2")] == (
        1_000_000,
        50_000_000,
        {"packets": 20},
        {"packets": 20},
        0.01,
    )
    assert graph(inline)[1][("r2", "p2")] == (
        10_000_000,
        5_000_000,
        {"packets": 100},
        {"packets": 100},
        0.0,
    )
    assert graph(ndnsim) == graph(inline)
    assert graph(minindn) == graph(inline)
    assert ndnsim["routes"] == inline["routes"]
    assert minindn["routes"] == inline["routes"]
    assert ndnsim["routing"] == inline["routing"] == minindn["routing"]
    assert ndnsim == inline
    assert minindn == inline


def test_routes_of_the_six_node_file():
    scenario = Scenario.load(DATA / "six_ndnsim.toml")
    spec = scenario.resolve()
    nodes = [n["name"] for n in spec["nodes"]]
    hops = {}
    for r in scenario.routes():
        link = spec["links"][r["link"]]
        other = link["b"] if link["a"] == r["node"] else link["a"]
        hops[(nodes[r["node"]], r["prefix"])] = (nodes[other], r["cost"])
    assert hops[("c1", "/p1")] == ("r1", 3)
    assert hops[("c2", "/p2")] == ("r1", 4)  # metric = "cost": r2-p2 costs 2
    assert hops[("r2", "/p2")] == ("p2", 2)
    assert ("p1", "/p1") not in hops


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def lines_of(err):
    return [(p.line, p.problem) for p in err.value.problems]


def test_ndnsim_errors_with_line_numbers(tmp_path):
    path = write(
        tmp_path,
        "bad.txt",
        "router\n"
        "a NA 1 1\n"
        "b NA x 1\n"
        "a NA 2 2\n"
        "  # indented comment\n"
        "link\n"
        "a b 10Mbps 1 10ms 100 # trailing\n"
        "a c 10Mbps 1 10ms 100\n"
        "a a 10Mbps 1 10ms 100\n"
        "a b 10mbit 1 10 100\n"
        "a b 10Mbps 1 10ms 100 2\n",
    )
    with pytest.raises(TopologyError) as err:
        read_ndnsim_topology(path)
    assert lines_of(err) == [
        (3, "yPos 'x' is not a number"),
        (4, "node 'a' is declared twice (first on line 2)"),
        (5, "'#' starts a comment only in column 0"),
        (7, "'#' starts a comment only in column 0"),
        (8, "link to unknown node 'c'"),
        (9, "link from 'a' to itself"),
        (
            10,
            "bandwidth: unknown unit 'mbit' in '10mbit'; "
            "a rate takes bps, Kbps, Mbps, Gbps; Bps etc. for bytes",
        ),
        (10, "delay: a time '10' has no unit"),
        (11, "loss: loss rate '2' must be a probability in [0, 1)"),
    ]
    assert (
        str(err.value).splitlines()[0]
        == f"{path}: line 3: yPos 'x' is not a number (fix: write a coordinate such as 0 or 1.5)"
    )


def test_ndnsim_without_router_line(tmp_path):
    path = write(tmp_path, "t.txt", "a NA 1 1\n")
    with pytest.raises(TopologyError) as err:
        read_ndnsim_topology(path)
    assert lines_of(err) == [(None, "no line 'router' found")]


def test_ndnsim_duplicates(tmp_path):
    path = write(
        tmp_path,
        "t.txt",
        "router\na NA 1 1\nb NA 1 1\nlink\na b 10Mbps 1 10ms 100\nb a 20Mbps 1 10ms 100\n",
    )
    topo = read_ndnsim_topology(path)
    assert len(topo.links) == 1
    assert topo.warnings == [
        (6, "reverse duplicate of line 5 skipped, although its parameters differ")
    ]
    write(
        tmp_path,
        "t.txt",
        "router\na NA 1 1\nb NA 1 1\nlink\na b 10Mbps 1 10ms 100\na b 10Mbps 1 10ms 100\n",
    )
    with pytest.raises(TopologyError, match="line 6: link a b is listed twice"):
        read_ndnsim_topology(path)


def test_ndnsim_queue_spec_is_accepted_with_a_warning(tmp_path):
    path = write(tmp_path, "t.txt", "router\na NA 1 1\nb NA 1 1\nlink\na b 10Mbps 1 10ms 64KB\n")
    topo = read_ndnsim_topology(path)
    assert topo.links[0]["queue"] == "64KB"
    assert "ns-3 queue size" in topo.warnings[0][1]


def test_minindn_errors_with_line_numbers(tmp_path):
    path = write(
        tmp_path,
        "bad.conf",
        "stray line\n"
        "[nodes]\n"
        "a: _\n"
        "b: cpu\n"
        "[link]\n"
        "[links]\n"
        "a:b\n"
        "a:c bw=10\n"
        "a:b bw=fast delay=10 loss=120\n"
        "a-b bw=1\n"
        "[faces]\n"
        "a:z cost=1\n",
    )
    with pytest.raises(TopologyError) as err:
        read_minindn_conf(path)
    assert lines_of(err) == [
        (1, "line outside any section"),
        (4, "parameter 'cpu' is not key=value"),
        (5, "unknown section [link]"),
        (7, "link a:b has no parameters"),
        (8, "link to unknown node 'c'"),
        (9, "bandwidth: bw 'fast' must be a positive number of Mbit/s"),
        (9, "delay: a time '10' has no unit"),
        (9, "loss: loss '120' must be a percentage in [0, 100)"),
        (10, "link 'a-b' is not 'a:b'"),
        (12, "[faces] entry a:z has no matching link in [links]"),
    ]
    assert err.value.problems[2].fix == "did you mean [links]?"


def test_minindn_lower_cases_names_and_reads_switches(tmp_path):
    path = write(
        tmp_path,
        "t.conf",
        "[nodes]\nA: _\nB: _\n[switches]\nS1: _\n[links]\nA:S1 bw=5\nS1:b delay=1ms\n",
    )
    topo = read_minindn_conf(path)
    assert topo.nodes == ["a", "b", "s1"]
    assert topo.links == [
        {"between": ["a", "s1"], "bandwidth": "5Mbps"},
        {"between": ["s1", "b"], "delay": "1ms"},
    ]
    assert topo.warnings == [(5, "switch 's1' is simulated as an NDN forwarding node")]


def test_minindn_defaults_fill_missing_values(tmp_path):
    write(tmp_path, "t.conf", "[nodes]\na: _\nb: _\n[links]\na:b bw=5\n")
    s = Scenario.from_dict(
        {
            "scenario": {"duration": "1s"},
            "topology": {"file": "t.conf"},
            "defaults": {"link": {"delay": "2ms", "queue": "10p"}},
            "apps": [
                {"node": "b", "kind": "producer", "prefix": "/p"},
                {"node": "a", "kind": "consumer", "prefix": "/p"},
            ],
        },
        base_dir=tmp_path,
    )
    link = s.resolve()["links"][0]
    assert (link["bandwidth_bps"], link["delay_ns"], link["queue_ab"]) == (
        5_000_000,
        2_000_000,
        {"packets": 10},
    )


def test_missing_file(tmp_path):
    with pytest.raises(TopologyError, match="file not found"):
        read_minindn_conf(tmp_path / "none.conf")
    with pytest.raises(TopologyError, match="unknown topology format"):
        read_topology(tmp_path / "x.json")


def test_topology_warnings_reach_the_scenario():
    s = Scenario.load(DATA / "six_minindn.toml")
    s.validate()
    assert [(w.file.endswith("six.conf"), w.key) for w in s.warnings] == [(True, "line 15")]
