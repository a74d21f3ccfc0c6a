"""One test per user mistake: each must be reported with its key, a clear problem and a fix."""

import copy
from pathlib import Path

import pytest
from ndncc.scenario import Problem, Scenario, ScenarioError

DATA = Path(__file__).parent / "data"

BASE = {
    "scenario": {"name": "t", "duration": "10s"},
    "links": [
        {"between": ["C", "R"], "bandwidth": "10Mbps", "delay": "10ms"},
        {"between": ["R", "P"], "bandwidth": "10Mbps", "delay": "10ms"},
    ],
    "apps": [
        {"node": "P", "kind": "producer", "prefix": "/p"},
        {"node": "C", "kind": "consumer", "prefix": "/p"},
    ],
}


def scenario(**changes) -> dict:
    """BASE with top-level tables replaced; use edit() for deeper changes."""
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def edit(path: str, value) -> dict:
    """BASE with one value changed: edit("links[0].bandwidth", "0Mbps")."""
    return Scenario.from_dict(BASE).with_overrides(overrides={path: value}).data


def problems(data: dict | str, **kw) -> list[Problem]:
    with pytest.raises(ScenarioError) as info:
        if isinstance(data, str):
            Scenario.from_toml_str(data, source="s.toml", **kw).resolve()
        else:
            Scenario.from_dict(data, source="s.toml", **kw).resolve()
    return info.value.problems


def expect(data: dict | str, key: str, problem: str, fix: str = "", **kw) -> Problem:
    """Asserts that exactly one problem is reported, at `key`, with these fragments."""
    found = problems(data, **kw)
    assert len(found) == 1, "\n".join(map(str, found))
    (p,) = found
    assert p.key == key, str(p)
    assert problem in p.problem, str(p)
    assert fix in p.fix, str(p)
    return p


def test_base_is_valid():
    Scenario.from_dict(BASE).validate()


def test_toml_syntax_error_has_line_number():
    p = expect(
        '[scenario]\nname = "x"\nduration = 10ms\n', "line 3", "TOML syntax error", 'delay = "50ms"'
    )
    assert str(p).startswith("s.toml: line 3: TOML syntax error: ")
    expect("[scenario]\nduration = ms10\n", "line 2", "Invalid value", "double quotes")


def test_toml_table_defined_twice():
    expect(
        '[scenario]\nduration = "1s"\n[scenario]\nseed = 2\n',
        "line 3",
        "TOML syntax error",
        "defined twice",
    )


def test_unknown_top_level_table():
    expect(scenario(link=[]), "link", "unknown table [link]", "did you mean [links]?")


def test_unknown_key_did_you_mean():
    expect(
        edit("links[0].bandwith", "1Mbps"),
        "links[0].bandwith",
        "unknown key 'bandwith'",
        "'bandwidth'",
    )


def test_unknown_key_from_other_tools():
    expect(
        edit("links[0].bw", "1Mbps"), "links[0].bw", "unknown key 'bw'", "did you mean 'bandwidth'?"
    )


def test_wrong_type_integer():
    expect(
        edit("scenario.seed", "3"),
        "scenario.seed",
        "expected an integer, got the string '3'",
        "without quotes",
    )


def test_wrong_type_bool():
    expect(edit("trace.delays", "yes"), "trace.delays", "expected true or false", "true or false")


def test_scenario_not_a_table():
    expect(scenario(scenario="x"), "scenario", "scenario must be a table", "write [scenario]")


def test_links_written_as_a_table():
    data = scenario(links={"between": ["C", "P"]})
    found = problems(data)
    assert found[0].key == "links"
    assert "array of tables" in found[0].problem
    assert "[[links]]" in found[0].fix


def test_unknown_node_in_app():
    expect(edit("apps[1].node", "c"), "apps[1].node", "unknown node 'c'", "did you mean 'C'?")


def test_unknown_node_in_route():
    data = scenario(routes=[{"node": "Q", "prefix": "/p", "next_hop": "R"}])
    expect(data, "routes[0].node", "unknown node 'Q'")


def test_unknown_node_in_link_with_topology_file():
    data = {
        "scenario": {"duration": "1s"},
        "topology": {"file": "six.txt"},
        "links": [{"between": ["c1", "r9"], "bandwidth": "1Mbps", "delay": "1ms"}],
    }
    expect(
        data,
        "links[0].between",
        "unknown node 'r9'",
        "known nodes: c1, c2, r1, r2, p1, p2",
        base_dir=DATA,
    )


def test_duplicate_link():
    data = scenario(
        links=[*BASE["links"], {"between": ["R", "C"], "bandwidth": "1Mbps", "delay": "1ms"}]
    )
    expect(data, "links[2].between", "duplicate link between R and C (also links[0])", "remove one")


def test_link_also_in_topology_file():
    data = {
        "scenario": {"duration": "1s"},
        "topology": {"file": "six.txt"},
        "links": [{"between": ["r1", "c1"], "bandwidth": "1Mbps", "delay": "1ms"}],
    }
    p = expect(data, "links[0].between", "duplicate link between r1 and c1", base_dir=DATA)
    assert "six.txt line 17" in p.problem


def test_self_loop_link():
    data = scenario(
        links=[*BASE["links"], {"between": ["R", "R"], "bandwidth": "1Mbps", "delay": "1ms"}]
    )
    expect(data, "links[2].between", "link from 'R' to itself", "two different nodes")


def test_zero_bandwidth():
    expect(edit("links[0].bandwidth", "0Mbps"), "links[0].bandwidth", "must be positive", "100Mbps")


def test_missing_unit():
    expect(edit("links[0].bandwidth", 100), "links[0].bandwidth", "has no unit", "write '100Mbps'")


def test_time_without_unit():
    expect(edit("scenario.duration", 10), "scenario.duration", "has no unit", "write '10s'")


def test_wrong_kind_of_unit():
    expect(edit("links[0].delay", "10Mbps"), "links[0].delay", "is a rate, but a time is needed")


def test_bits_instead_of_bytes():
    expect(edit("apps[0].payload", "1250b"), "apps[0].payload", "means bits", "write '1250B'")


def test_ambiguous_upper_case_rate():
    expect(
        edit("links[0].bandwidth", "10MBPS"), "links[0].bandwidth", "ambiguous", "'10Mbps' for bits"
    )


def test_negative_delay():
    expect(edit("links[0].delay", "-5ms"), "links[0].delay", "must not be negative")


def test_zero_queue():
    expect(edit("links[1].queue", "0p"), "links[1].queue", "must be positive", "100p")


def test_queue_without_unit():
    expect(edit("links[1].queue_ab", 50), "links[1].queue_ab", "has no unit", "'50p'")


def test_loss_outside_unit_interval():
    expect(edit("links[0].loss", 5), "links[0].loss", "probability in [0, 1)", '"5%"')


def test_loss_of_one():
    expect(edit("links[0].loss", 1.0), "links[0].loss", "probability in [0, 1)")


def test_missing_bandwidth_without_default():
    data = edit("links[0].bandwidth", None)
    expect(data, "links[0].bandwidth", "link has no bandwidth", "[defaults.link]")


def test_unknown_strategy():
    data = scenario(nodes={"R": {"strategy": "bestroute"}})
    expect(data, "nodes.R.strategy", "unknown strategy 'bestroute'", 'did you mean "best-route"?')


def test_unknown_scheme():
    data = scenario(nodes={"R": {"schemes": {"pcon": {}}}})
    expect(data, "nodes.R.schemes.pcon", "unknown scheme 'pcon'", "no congestion-control scheme")


def test_bad_node_name():
    data = scenario(nodes={"my router": {}})
    expect(data, "nodes.my router", "may contain only letters", "'my_router'")


def test_unknown_app_kind():
    expect(
        edit("apps[1].kind", "consumr"), "apps[1].kind", "unknown app kind 'consumr'", '"consumer"'
    )


def test_missing_app_kind():
    expect(edit("apps[1].kind", None), "apps[1].kind", "missing kind", 'kind = "consumer"')


def test_unknown_controller():
    expect(
        edit("apps[1].controller", "cbr"),
        "apps[1].controller",
        "unknown controller 'cbr'",
        "constant-rate",
    )


def test_unknown_engine():
    expect(
        edit("apps[1].engine", "ideally"), "apps[1].engine", "unknown engine 'ideally'", '"ideal"'
    )


def test_unknown_retransmit_mode():
    expect(
        edit("apps[1].retransmit", "always"),
        "apps[1].retransmit",
        "unknown retransmit mode 'always'",
    )


def test_rate_not_positive():
    expect(edit("apps[1].rate", 0), "apps[1].rate", "must be a positive number", "1000")


def test_window_not_positive():
    data = edit("apps[1].controller", "fixed-window")
    data["apps"][1]["window"] = 0
    expect(data, "apps[1].window", "must be at least 1")


def test_key_of_the_other_controller():
    expect(edit("apps[1].window", 5), "apps[1].window", 'applies to controller = "fixed-window"')


def test_key_of_the_other_app_kind():
    p = expect(edit("apps[1].payload", "100B"), "apps[1].payload", "'payload' is a producer key")
    assert 'kind = "producer"' in p.fix


def test_consumer_without_producer():
    expect(edit("apps[1].prefix", "/q"), "apps[1].prefix", "no producer serves '/q'")


def test_consumer_prefix_typo():
    data = edit("apps[0].prefix", "/video")
    data["apps"][1]["prefix"] = "/vidoe"
    expect(data, "apps[1].prefix", "no producer serves '/vidoe'", "did you mean '/video'?")


def test_unreachable_producer():
    data = scenario(
        links=[
            {"between": ["C", "R"], "bandwidth": "10Mbps", "delay": "10ms"},
            {"between": ["Q", "P"], "bandwidth": "10Mbps", "delay": "10ms"},
        ]
    )
    expect(data, "apps[1].node", "no path from C to a producer of '/p' (on P)", "add links")


def test_stop_before_start():
    data = edit("apps[1].start", "5s")
    data["apps"][1]["stop"] = "2s"
    expect(data, "apps[1].stop", "stops (2s) before it starts (5s)")


def test_start_after_duration():
    expect(edit("apps[1].start", "12s"), "apps[1].start", "after the scenario ends (10s)")


def test_start_after_a_shortened_duration_only_warns():
    s = Scenario.from_dict(edit("apps[1].start", "5s")).with_overrides(duration="2s")
    s.validate()
    assert [(w.key, w.problem) for w in s.warnings] == [
        ("apps[1].start", "the app starts at 5s, after the run ends (2s)")
    ]


def test_duration_missing():
    expect(
        edit("scenario.duration", None), "scenario.duration", "missing duration", 'duration = "10s"'
    )


def test_duration_zero():
    expect(edit("scenario.duration", "0s"), "scenario.duration", "must be positive")


def test_prefix_without_slash():
    expect(edit("apps[0].prefix", "p"), "apps[0].prefix", "must start with '/'", "write '/p'")


def test_prefix_with_empty_component():
    expect(edit("apps[0].prefix", "/p/"), "apps[0].prefix", "empty name component", "write '/p'")


def test_route_next_hop_not_a_neighbour():
    data = scenario(routes=[{"node": "C", "prefix": "/p", "next_hop": "P"}])
    expect(data, "routes[0].next_hop", "'P' is not a neighbour of C", "neighbours of C: R")


def test_duplicate_static_route():
    route = {"node": "C", "prefix": "/p", "next_hop": "R"}
    expect(scenario(routes=[route, route]), "routes[1].next_hop", "duplicate route")


def test_duplicate_app_name():
    data = edit("apps[0].name", "x")
    data["apps"][1]["name"] = "x"
    expect(data, "apps[1].name", "duplicate app name 'x' (also apps[0])")


def test_default_app_name_collision():
    data = edit("apps[0].name", "consumer1")
    expect(data, "apps[1].name", "duplicate app name 'consumer1'")


def test_rate_trace_not_multiple_of_bin():
    data = edit("trace.bin", "300ms")
    data["trace"]["rate_trace"] = True
    expect(
        data, "trace.rate_trace", "500ms is not a multiple of bin (300ms)", 'rate_trace = "600ms"'
    )


def test_app_delays_trace_needs_delays():
    data = edit("trace.delays", False)
    data["trace"]["app_delays_trace"] = True
    expect(data, "trace.app_delays_trace", "needs the per-Data delay table", "delays = true")


def test_topology_file_missing():
    data = scenario(topology={"file": "nope.txt"})
    expect(data, "topology.file", "not found", "relative to the scenario file", base_dir=DATA)


def test_topology_format_unknown_extension():
    data = scenario(topology={"file": "six.topo"})
    expect(data, "topology.file", "cannot tell the format", 'format = "ndnsim"')


def test_topology_file_unparsable(tmp_path):
    (tmp_path / "t.txt").write_text("router\na NA 1 1\nb NA 1 1\nlink\na b 10Mbps 1 10ms\n")
    data = {"scenario": {"duration": "1s"}, "topology": {"file": "t.txt"}}
    p = expect(
        data,
        "line 5",
        "a link line has 6 or 7 fields",
        "'R1 R2 10Mbps 1 10ms 100'",
        base_dir=tmp_path,
    )
    assert p.file == str(tmp_path / "t.txt")


def test_topology_link_without_bandwidth(tmp_path):
    (tmp_path / "t.conf").write_text("[nodes]\na: _\nb: _\n[links]\na:b delay=10ms\n")
    data = {"scenario": {"duration": "1s"}, "topology": {"file": "t.conf"}}
    expect(
        data, "line 5 (bandwidth)", "link has no bandwidth", "[defaults.link]", base_dir=tmp_path
    )


def test_max_transmissions_without_retransmit_warns():
    s = Scenario.from_dict(edit("apps[1].max_transmissions", 3))
    s.validate()
    assert [w.key for w in s.warnings] == ["apps[1].max_transmissions"]


def test_all_problems_are_collected():
    data = edit("links[0].bandwidth", "fast")
    data["links"][1]["delay"] = 5
    data["apps"][1]["node"] = "X"
    data["trace"] = {"bin": "0ms", "colour": True}
    keys = [p.key for p in problems(data)]
    assert keys == [
        "links[0].bandwidth",
        "links[1].delay",
        "apps[1].node",
        "trace.colour",
        "trace.bin",
    ]


def test_error_text_is_one_line_per_problem():
    data = edit("links[0].bandwidth", "fast")
    data["apps"][1]["node"] = "X"
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data, source="exp.toml").resolve()
    assert str(info.value).splitlines() == [
        "exp.toml: links[0].bandwidth: cannot read 'fast' as a rate: "
        "expected a number followed by a unit (fix: write '100Mbps')",
        "exp.toml: apps[1].node: unknown node 'X' (fix: known nodes: C, R, P)",
    ]


def test_missing_scenario_file(tmp_path):
    with pytest.raises(ScenarioError, match="scenario file not found"):
        Scenario.load(tmp_path / "none.toml")


def test_from_dict_rejects_non_dict():
    with pytest.raises(ScenarioError, match="must be a dict"):
        Scenario.from_dict(["not", "a", "dict"])
