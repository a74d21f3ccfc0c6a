"""One test per user mistake: each must be reported with its key, a clear problem and a fix."""

import copy
import json
from pathlib import Path

import pytest
from ndncc.scenario import Problem, Scenario, ScenarioError, read_clock_profile

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
    from ndncc.scenario.schemes import routers

    known = ", ".join(routers())  # every registered router part, in registry order
    assert known.startswith("sf, mircc")
    data = scenario(nodes={"R": {"schemes": {"ecp": {}}}})
    expect(
        data,
        "nodes.R.schemes.ecp",
        f"unknown scheme 'ecp' (known: {known})",
        f"use one of: {known}",
    )


def test_unknown_scheme_did_you_mean():
    data = scenario(nodes={"R": {"schemes": {"SF": {}}}})
    expect(data, "nodes.R.schemes.SF", "unknown scheme 'SF'", "did you mean 'sf'?")


def sf(values: dict, node: str = "R") -> dict:
    """BASE with [nodes.<node>.schemes.sf] = values."""
    return scenario(nodes={node: {"schemes": {"sf": values}}})


def test_sf_unknown_key():
    expect(sf({"dept": 10}), "nodes.R.schemes.sf.dept", "unknown key 'dept'", "'depth'")


def test_sf_depth_below_one():
    expect(sf({"depth": 0}), "nodes.R.schemes.sf.depth", "must be at least 1", "50")
    expect(sf({"depth": 0.5}), "nodes.R.schemes.sf.depth", "must be at least 1")


def test_sf_depth_with_a_unit():
    expect(sf({"depth": "50p"}), "nodes.R.schemes.sf.depth", "expected a number", "a plain number")


def test_sf_per_face_and_per_fib_both_false():
    expect(
        sf({"per_face": False}),
        "nodes.R.schemes.sf.per_face",
        "per_face and per_fib are both false",
        "per_fib = true",
    )


def test_sf_decrease_out_of_range():
    expect(sf({"decrease": 1.0}), "nodes.R.schemes.sf.decrease", "must be in (0, 1)", "0.5")
    expect(sf({"decrease": 0}), "nodes.R.schemes.sf.decrease", "must be in (0, 1)")


def test_sf_increase_negative():
    expect(sf({"increase": -1}), "nodes.R.schemes.sf.increase", "must be at least 0")


def test_sf_leak_slack_below_one():
    expect(sf({"leak_slack": 0.9}), "nodes.R.schemes.sf.leak_slack", "must be at least 1")


def test_sf_leak_randomize_without_unit():
    expect(sf({"leak_randomize": 1}), "nodes.R.schemes.sf.leak_randomize", "has no unit", "'1ms'")


def test_sf_data_size_in_bits():
    expect(sf({"data_size": "1250b"}), "nodes.R.schemes.sf.data_size", "means bits", "'1250B'")


def test_sf_initial_rate_typo():
    expect(
        sf({"initial_rate": "lin"}),
        "nodes.R.schemes.sf.initial_rate",
        'expected a number of Interests/s or "line"',
        'did you mean "line"?',
    )


def test_sf_initial_rate_below_min_rate():
    expect(
        sf({"initial_rate": 5, "min_rate": 10}),
        "nodes.R.schemes.sf.initial_rate",
        "initial_rate (5) is below min_rate (10)",
    )


def test_sf_wrong_type():
    expect(sf({"per_fib": "yes"}), "nodes.R.schemes.sf.per_fib", "expected true or false")


def test_sf_true_instead_of_a_table():
    expect(
        scenario(nodes={"R": {"schemes": {"sf": True}}}),
        "nodes.R.schemes.sf",
        "expected a table or false, got true",
        "an empty table takes the defaults",
    )


def test_sf_false_opts_a_node_out():
    data = scenario(
        defaults={"node": {"schemes": {"sf": {"depth": 20}}}},
        nodes={"R": {"schemes": {"sf": False}}},
    )
    nodes = {n["name"]: n["schemes"] for n in Scenario.from_dict(data).resolve()["nodes"]}
    assert nodes["R"] == {}
    assert nodes["C"]["sf"]["depth"] == nodes["P"]["sf"]["depth"] == 20.0


def test_defaults_node_sf_applies_to_all_nodes():
    data = scenario(defaults={"node": {"schemes": {"sf": {"decrease": 0.7}}}})
    spec = Scenario.from_dict(data).resolve()
    assert [n["schemes"]["sf"]["decrease"] for n in spec["nodes"]] == [0.7, 0.7, 0.7]


def test_sf_mistake_in_defaults_is_reported_once():
    data = scenario(defaults={"node": {"schemes": {"sf": {"depth": -1}}}})
    expect(data, "defaults.node.schemes.sf.depth", "must be at least 1")


def test_sf_node_override_conflicts_with_default():
    data = scenario(
        defaults={"node": {"schemes": {"sf": {"per_face": False, "per_fib": True}}}},
        nodes={"R": {"schemes": {"sf": {"per_fib": False}}}},
    )
    expect(data, "nodes.R.schemes.sf.per_fib", "per_face and per_fib are both false")


def mircc(values: dict, node: str = "R") -> dict:
    """BASE with [nodes.<node>.schemes.mircc] = values."""
    return scenario(nodes={node: {"schemes": {"mircc": values}}})


def test_unknown_scheme_did_you_mean_mircc():
    data = scenario(nodes={"R": {"schemes": {"mirc": {}}}})
    expect(data, "nodes.R.schemes.mirc", "unknown scheme 'mirc'", "did you mean 'mircc'?")


def test_mircc_unknown_key():
    expect(mircc({"intervall": "1s"}), "nodes.R.schemes.mircc.intervall", "", "'interval'")
    expect(mircc({"T": "1s"}), "nodes.R.schemes.mircc.T", "unknown key 'T'", "'interval'")


def test_mircc_key_of_sf():
    p = expect(
        mircc({"per_fib": True}),
        "nodes.R.schemes.mircc.per_fib",
        "'per_fib' is a key of [schemes.sf], not of [schemes.mircc]",
        "remove it",
    )
    assert "interval, alpha, beta, eta, ewma" in p.fix


def test_sf_key_of_mircc():
    expect(
        sf({"interval": "100ms"}),
        "nodes.R.schemes.sf.interval",
        "'interval' is a key of [schemes.mircc], not of [schemes.sf]",
    )


def test_mircc_interval_not_positive_or_without_unit():
    expect(mircc({"interval": "0s"}), "nodes.R.schemes.mircc.interval", "must be positive")
    expect(mircc({"interval": 100}), "nodes.R.schemes.mircc.interval", "has no unit", "'100ms'")


def test_mircc_ewma_out_of_range():
    expect(mircc({"ewma": 1}), "nodes.R.schemes.mircc.ewma", "must be in [0, 1), got 1", "0.5")
    expect(mircc({"ewma": -0.1}), "nodes.R.schemes.mircc.ewma", "must be in [0, 1)")


def test_mircc_eta_not_positive():
    expect(mircc({"eta": 0}), "nodes.R.schemes.mircc.eta", "must be a positive number", "1")


def test_mircc_negative_gain():
    expect(mircc({"alpha": -0.5}), "nodes.R.schemes.mircc.alpha", "must be at least 0")
    expect(mircc({"beta": -1}), "nodes.R.schemes.mircc.beta", "must be at least 0")


def test_mircc_depth_below_one():
    expect(mircc({"depth": 0.5}), "nodes.R.schemes.mircc.depth", "must be at least 1", "200")


def test_mircc_initial_rate_typo():
    expect(
        mircc({"initial_rate": "capacty"}),
        "nodes.R.schemes.mircc.initial_rate",
        'expected a number of Interests/s or "capacity"',
        'did you mean "capacity"?',
    )
    expect(
        mircc({"initial_rate": 0}),
        "nodes.R.schemes.mircc.initial_rate",
        "must be a positive number",
        '"capacity"',
    )


def test_mircc_initial_rtt_zero():
    expect(mircc({"initial_rtt": "0ms"}), "nodes.R.schemes.mircc.initial_rtt", "must be positive")


def test_mircc_police_wrong_type():
    expect(
        mircc({"police": "true"}),
        "nodes.R.schemes.mircc.police",
        "expected true or false",
        "quotes",
    )


def test_mircc_leak_slack_below_one():
    expect(mircc({"leak_slack": 0.5}), "nodes.R.schemes.mircc.leak_slack", "must be at least 1")


def test_sf_and_mircc_on_one_node():
    data = scenario(nodes={"R": {"schemes": {"sf": {}, "mircc": {}}}})
    expect(
        data,
        "nodes.R.schemes",
        "a node runs at most one scheme, got sf and mircc",
        "remove one of them",
    )


def test_node_scheme_and_another_default_scheme():
    data = scenario(
        defaults={"node": {"schemes": {"sf": {}}}},
        nodes={"R": {"schemes": {"mircc": {"interval": "250ms"}}}},
    )
    p = expect(
        data,
        "nodes.R.schemes.mircc",
        "a node runs at most one scheme, got mircc here and sf from [defaults.node.schemes.sf]",
        "remove one of them",
    )
    assert "sf = false under [nodes.R.schemes]" in p.fix


def test_two_default_schemes_are_reported_once():
    data = scenario(
        defaults={"node": {"schemes": {"sf": {}, "mircc": {}}}},
        nodes={"R": {"schemes": {"sf": {"depth": 10}}}},
    )
    expect(data, "defaults.node.schemes", "got sf and mircc", "remove one of them")


def test_default_scheme_replaced_at_a_node():
    data = scenario(
        defaults={"node": {"schemes": {"sf": {}}}},
        nodes={"R": {"schemes": {"sf": False, "mircc": {}}}},
    )
    nodes = {n["name"]: n["schemes"] for n in Scenario.from_dict(data).resolve()["nodes"]}
    assert list(nodes["R"]) == ["mircc"]
    assert list(nodes["C"]) == list(nodes["P"]) == ["sf"]


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


def test_unknown_engine_did_you_mean():
    expect(edit("apps[1].engine", "tik"), "apps[1].engine", "unknown engine 'tik'", '"tick"?')


def consumer(**keys) -> dict:
    """BASE with keys set on the consumer (apps[1])."""
    data = copy.deepcopy(BASE)
    data["apps"][1].update(keys)
    return data


def test_tick_missing_for_tick_engine():
    expect(consumer(engine="tick"), "apps[1].tick", "missing tick", 'tick = "10ms"')
    expect(consumer(engine="tick+smoothing"), "apps[1].tick", "missing tick")


def test_tick_with_ideal_engine():
    p = expect(
        consumer(tick="50ms"),
        "apps[1].tick",
        'applies to engine = "tick" or "tick+smoothing", this consumer uses "ideal"',
    )
    assert p.fix == 'remove tick, or set engine = "tick"'


def test_smoothing_with_ideal_engine():
    expect(consumer(engine="ideal", smoothing=True), "apps[1].smoothing", "applies to engine = ")


def test_tick_not_positive_or_without_unit():
    expect(consumer(engine="tick", tick="0ms"), "apps[1].tick", "must be positive", "10ms")
    expect(consumer(engine="tick", tick=50), "apps[1].tick", "has no unit", "'50ms'")


def test_smoothing_false_with_tick_smoothing():
    expect(
        consumer(engine="tick+smoothing", tick="50ms", smoothing=False),
        "apps[1].smoothing",
        'engine = "tick+smoothing" means smoothing = true',
        'set engine = "tick"',
    )


def test_unknown_engine_did_you_mean_seed_003():
    expect(consumer(engine="rfc3449"), "apps[1].engine", "unknown engine 'rfc3449'", '"rfc3448"?')
    expect(consumer(engine="rfc-burst"), "apps[1].engine", "", 'did you mean "rfc3448-burst"?')
    p = expect(consumer(engine="RMC"), "apps[1].engine", "unknown engine 'RMC'", '"rmc"?')
    assert '"rfc3448", "rfc3448-burst", "rmc"' in p.problem


def test_rmc_kr_out_of_range():
    for kr in (2, 2.5, 0, -1):
        p = expect(consumer(engine="rmc", kr=kr), "apps[1].kr", f"kr must be in (0, 2), got {kr}")
        assert "unstable for kr >= 2" in p.fix
        assert "kr = 1 (seed 003's recommended value)" in p.fix


def test_rmc_kr_not_a_number():
    expect(consumer(engine="rmc", kr="1"), "apps[1].kr", "expected a number", "1 without quotes")


def test_rmc_period_not_positive_or_without_unit():
    expect(consumer(engine="rmc", period="0ms"), "apps[1].period", "must be positive", "'1ms'")
    expect(consumer(engine="rmc", period=1), "apps[1].period", "has no unit", "'1ms'")


def test_period_with_rfc3448():
    p = expect(
        consumer(engine="rfc3448", period="1ms"),
        "apps[1].period",
        '\'period\' applies to engine = "rmc", this consumer uses "rfc3448"',
    )
    assert p.fix == 'remove period, or set engine = "rmc"'


def test_kr_with_ideal_engine():
    expect(consumer(kr=1), "apps[1].kr", 'applies to engine = "rmc", this consumer uses "ideal"')


def test_granularity_with_rmc():
    p = expect(
        consumer(engine="rmc", granularity="1ms"),
        "apps[1].granularity",
        'applies to engine = "rfc3448" or "rfc3448-burst", this consumer uses "rmc"',
    )
    assert p.fix == 'remove granularity, or set engine = "rfc3448"'


def test_max_owed_with_tick_engine():
    expect(
        consumer(engine="tick", tick="1ms", max_owed=10),
        "apps[1].max_owed",
        'applies to engine = "rfc3448" or "rfc3448-burst", this consumer uses "tick"',
        'remove max_owed, or set engine = "rfc3448"',
    )


def test_randomize_unknown_value():
    expect(
        consumer(randomize="unifrom"),
        "apps[1].randomize",
        "unknown randomize 'unifrom'",
        'did you mean "uniform"?',
    )


def test_randomize_with_tick_engine():
    expect(
        consumer(engine="tick", tick="1ms", randomize="uniform"),
        "apps[1].randomize",
        'applies to engine = "ideal", this consumer uses "tick"',
        'remove randomize, or set engine = "ideal"',
    )


def test_randomize_with_a_window_controller():
    expect(
        consumer(controller="fixed-window", window=4, randomize="exponential"),
        "apps[1].randomize",
        'applies to controller = "constant-rate" or "ndnsim-cbr" or "sf-aimd" or "mircc"',
    )


def test_rfc3448_max_owed_not_positive():
    expect(consumer(engine="rfc3448", max_owed=0), "apps[1].max_owed", "must be at least 1")
    expect(consumer(engine="rfc3448", max_owed=2.0), "apps[1].max_owed", "", "write 2")


def test_rfc3448_granularity_not_positive_or_without_unit():
    data = consumer(engine="rfc3448-burst", granularity="0ns")
    expect(data, "apps[1].granularity", "must be positive", "'1ms'")
    data = consumer(engine="rfc3448", granularity=4)
    expect(data, "apps[1].granularity", "has no unit", "'4ms'")


def test_seed_003_key_names_from_the_paper():
    expect(consumer(engine="rmc", Ts="1ms"), "apps[1].Ts", "unknown key 'Ts'", "'period'")
    expect(consumer(engine="rmc", k_r=1), "apps[1].k_r", "unknown key", "'kr'")
    expect(consumer(clock="granular", t_g="4ms"), "apps[1].t_g", "", "'clock_granularity'")


# ---- the consumer's clock (seed 003)


def test_unknown_clock_did_you_mean():
    p = expect(consumer(clock="granluar"), "apps[1].clock", "unknown clock 'granluar'")
    assert p.problem.endswith('(known: "ideal", "granular", "os")')
    assert p.fix == 'did you mean "granular"?'
    expect(consumer(clock="OS"), "apps[1].clock", "unknown clock 'OS'", 'did you mean "os"?')


def test_clock_written_as_a_time():
    expect(
        consumer(clock="1ms"),
        "apps[1].clock",
        "unknown clock '1ms'",
        'write clock = "granular" and clock_granularity = "1ms"',
    )


def test_clock_granularity_with_ideal_clock():
    p = expect(
        consumer(clock_granularity="1ms"),
        "apps[1].clock_granularity",
        '\'clock_granularity\' applies to clock = "granular" or "os", this consumer uses "ideal"',
    )
    assert p.fix == 'remove clock_granularity, or set clock = "granular"'


def test_clock_wait_mean_with_granular_clock():
    p = expect(
        consumer(clock="granular", clock_wait_mean="50us"),
        "apps[1].clock_wait_mean",
        'applies to clock = "os", this consumer uses "granular"',
    )
    assert p.fix == 'remove clock_wait_mean, or set clock = "os"'


def test_clock_profile_with_ideal_clock():
    expect(
        consumer(clock_profile="clock.json"),
        "apps[1].clock_profile",
        'applies to clock = "os", this consumer uses "ideal"',
    )


def test_every_foreign_clock_key_is_reported():
    found = problems(consumer(clock_granularity="1ms", clock_wait_mean="1us", kr=1))
    assert [p.key for p in found] == [
        "apps[1].kr",
        "apps[1].clock_granularity",
        "apps[1].clock_wait_mean",
    ]


def test_clock_key_on_a_producer():
    expect(edit("apps[0].clock", "os"), "apps[0].clock", "'clock' is a consumer key")


def test_os_clock_without_wait():
    expect(
        consumer(clock="os"),
        "apps[1].clock",
        'clock = "os" needs the distribution of its waiting times',
        'add clock_wait_mean = "50us" (exponential), or clock_profile = "clock.json"',
    )


def test_os_clock_with_both_wait_keys():
    expect(
        consumer(clock="os", clock_wait_mean="50us", clock_profile="clock.json"),
        "apps[1].clock_profile",
        "clock_wait_mean and clock_profile are both given",
        "not both",
    )


def test_clock_profile_state_without_profile():
    expect(
        consumer(clock="os", clock_wait_mean="50us", clock_profile_state="load"),
        "apps[1].clock_profile_state",
        "clock_profile, which is not given",
        "use clock_profile instead of clock_wait_mean",
    )


def test_clock_wait_mean_not_positive_or_without_unit():
    data = consumer(clock="os", clock_wait_mean="0us")
    expect(data, "apps[1].clock_wait_mean", "must be positive", "'50us'")
    data = consumer(clock="os", clock_wait_mean=50)
    expect(data, "apps[1].clock_wait_mean", "has no unit", "'50us'")


def test_clock_granularity_not_positive():
    data = consumer(clock="granular", clock_granularity="0ms")
    expect(data, "apps[1].clock_granularity", "must be positive", "'1ms'")


def write_profile(tmp_path: Path, content, name: str = "clock.json") -> Path:
    """A clock-probe file in tmp_path: `content` as JSON (a str is written as is)."""
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


PROFILE = {
    "version": 1,
    "granularity_ns": 1_000_000,
    "profiles": {"idle": {"samples_ns": [20_000, 55_000], "mean_ns": 37_500}},
}


def profile_consumer(**keys) -> dict:
    return consumer(clock="os", clock_profile="clock.json", **keys)


def test_unknown_clock_profile_state(tmp_path):
    write_profile(tmp_path, PROFILE)
    expect(
        profile_consumer(clock_profile_state="busy"),
        "apps[1].clock_profile_state",
        "unknown clock profile state 'busy'",
        'use one of "idle", "load"',
        base_dir=tmp_path,
    )


def test_clock_profile_missing_file(tmp_path):
    expect(
        profile_consumer(),
        "apps[1].clock_profile",
        f"clock profile '{tmp_path / 'clock.json'}' not found",
        "it is relative to the scenario file",
        base_dir=tmp_path,
    )


def test_clock_profile_bad_json(tmp_path):
    path = write_profile(tmp_path, '{"version": 1,\n"granularity_ns": 1000000\n"profiles": {}}')
    p = expect(
        profile_consumer(), "line 3", "invalid JSON: Expecting ',' delimiter", base_dir=tmp_path
    )
    assert p.file == str(path)
    assert "ndncc clock-probe" in p.fix


def test_clock_profile_not_an_object(tmp_path):
    write_profile(tmp_path, [1, 2])
    expect(profile_consumer(), "", "expected a JSON object, got an array", base_dir=tmp_path)


def test_clock_profile_missing_state(tmp_path):
    path = write_profile(tmp_path, PROFILE)
    p = expect(
        profile_consumer(clock_profile_state="load"),
        "profiles.load",
        "no 'load' profile in the file (it has: idle)",
        'set clock_profile_state = "idle" in the scenario',
        base_dir=tmp_path,
    )
    assert p.file == str(path)


def test_clock_profile_empty_samples(tmp_path):
    write_profile(tmp_path, PROFILE | {"profiles": {"idle": {"samples_ns": []}}})
    expect(profile_consumer(), "profiles.idle.samples_ns", "no samples", base_dir=tmp_path)


def test_clock_profile_negative_sample(tmp_path):
    write_profile(tmp_path, PROFILE | {"profiles": {"idle": {"samples_ns": [10, -5, -6]}}})
    expect(
        profile_consumer(),
        "profiles.idle.samples_ns[1]",
        "a waiting time must be a whole number of ns >= 0, got the number -5",
        base_dir=tmp_path,
    )


def test_clock_profile_samples_missing_or_not_an_array(tmp_path):
    write_profile(tmp_path, PROFILE | {"profiles": {"idle": {"mean_ns": 10}}})
    expect(profile_consumer(), "profiles.idle.samples_ns", "missing samples_ns", base_dir=tmp_path)
    write_profile(tmp_path, PROFILE | {"profiles": {"idle": {"samples_ns": 10}}})
    expect(profile_consumer(), "profiles.idle.samples_ns", "expected an array", base_dir=tmp_path)


def test_clock_profile_every_mistake_in_the_file_is_collected(tmp_path):
    write_profile(tmp_path, {"version": 2, "profiles": {"idle": {"samples_ns": []}}})
    found = problems(profile_consumer(), base_dir=tmp_path)
    assert [(p.key, p.problem) for p in found] == [
        ("version", "unsupported version 2"),
        ("granularity_ns", "missing granularity_ns"),
        ("profiles.idle.samples_ns", "no samples: the profile has no waiting times"),
    ]
    write_profile(tmp_path, PROFILE | {"granularity_ns": 0})
    expect(
        profile_consumer(), "granularity_ns", "must be a whole number of ns > 0", base_dir=tmp_path
    )


def test_clock_profile_mistake_is_reported_once_for_two_consumers(tmp_path):
    write_profile(tmp_path, PROFILE | {"profiles": {}})
    data = profile_consumer()
    data["apps"].append(copy.deepcopy(data["apps"][1]) | {"name": "c2"})
    found = problems(data, base_dir=tmp_path)
    assert [(p.key, p.problem) for p in found] == [
        ("profiles.idle", "no 'idle' profile in the file (it has none)")
    ]


def test_read_clock_profile(tmp_path):
    path = write_profile(tmp_path, PROFILE)
    assert read_clock_profile(path) == (1_000_000, [20_000, 55_000])
    with pytest.raises(ScenarioError) as info:
        read_clock_profile(tmp_path / "none.json", "idle")
    (p,) = info.value.problems
    assert (p.file, p.key, p.problem) == (
        str(tmp_path / "none.json"),
        "",
        "clock profile file not found",
    )
    assert "ndncc clock-probe" in p.fix


def test_sf_aimd_needs_rate():
    expect(consumer(controller="sf-aimd"), "apps[1].rate", "missing rate", "the initial rate")


def test_max_rate_below_rate():
    expect(
        consumer(controller="sf-aimd", rate=500, max_rate=100),
        "apps[1].max_rate",
        "max_rate (100) is below the initial rate (500)",
        "at least 500",
    )


def test_max_rate_with_constant_rate():
    p = expect(
        consumer(max_rate=100),
        "apps[1].max_rate",
        'applies to controller = "sf-aimd", this consumer uses "constant-rate"',
    )
    assert p.fix == 'remove max_rate, or set controller = "sf-aimd"'


def test_nack_suppression_with_fixed_window():
    expect(
        consumer(controller="fixed-window", nack_suppression=True),
        "apps[1].nack_suppression",
        'applies to controller = "sf-aimd"',
    )


def test_rate_with_fixed_window():
    expect(
        consumer(controller="fixed-window", rate=10),
        "apps[1].rate",
        'applies to controller = "constant-rate" or "sf-aimd"',
    )


def test_every_foreign_key_is_reported():
    found = problems(consumer(max_rate=100, nack_suppression=True, tick="1ms"))
    assert [p.key for p in found] == [
        "apps[1].max_rate",
        "apps[1].nack_suppression",
        "apps[1].tick",
    ]


def test_rate_above_default_max_rate():
    # 10 Mbps links, 1024-byte Data (the default payload): line rate 10e6 / 8192 = 1220.7/s
    expect(
        consumer(controller="sf-aimd", rate=2000),
        "apps[1].rate",
        "below the initial rate (2000): max_rate defaults to C's line rate (1220.7",
        "set max_rate",
    )


def test_default_max_rate_needs_one_data_size():
    data = consumer(controller="sf-aimd", rate=100)
    data["packets"] = {"data_overhead": "40B"}
    data["apps"].append({"node": "R", "kind": "producer", "prefix": "/p", "payload": "100B"})
    expect(
        data,
        "apps[1].max_rate",
        "producers of '/p' send Data of different sizes (140B, 1064B)",
        "set max_rate",
    )


def test_min_rate_with_constant_rate():
    p = expect(
        consumer(min_rate=5),
        "apps[1].min_rate",
        'applies to controller = "mircc", this consumer uses "constant-rate"',
    )
    assert p.fix == 'remove min_rate, or set controller = "mircc"'


def test_max_rate_with_mircc():
    p = expect(
        consumer(controller="mircc", max_rate=1000),
        "apps[1].max_rate",
        'applies to controller = "sf-aimd", this consumer uses "mircc"',
    )
    assert p.fix == 'remove max_rate, or set controller = "sf-aimd"'
    expect(
        consumer(controller="mircc", nack_suppression=True),
        "apps[1].nack_suppression",
        'applies to controller = "sf-aimd"',
    )


def test_mircc_min_rate_not_positive():
    expect(
        consumer(controller="mircc", min_rate=0),
        "apps[1].min_rate",
        "must be a positive number",
        "1",
    )


def test_mircc_min_rate_above_rate():
    expect(
        consumer(controller="mircc", rate=100, min_rate=500),
        "apps[1].min_rate",
        "min_rate (500) is above the initial rate (100)",
        "at most 100, or raise rate",
    )


def test_mircc_min_rate_above_default_rate():
    # 10 Mbps links, 1024-byte Data: the rate defaults to 10e6 / 8192 = 1220.7/s
    expect(
        consumer(controller="mircc", min_rate=5000),
        "apps[1].min_rate",
        "above the initial rate (1220.7): rate defaults to C's line rate (1220.7",
        "or set rate",
    )


def test_mircc_default_rate_not_computable():
    data = consumer(controller="mircc")
    data["apps"].append({"node": "R", "kind": "producer", "prefix": "/p", "payload": "100B"})
    expect(
        data,
        "apps[1].rate",
        "no default rate: the producers of '/p' send Data of different sizes (100B, 1024B)",
        "set rate",
    )
    alone = Scenario(name="alone", duration="1s").node("C").producer("C", "/p")
    alone.consumer("C", "/p", controller="mircc")
    expect(alone.data, "apps[1].rate", "no default rate: node C has no links", "set rate")


def test_engine_key_on_a_producer():
    expect(edit("apps[0].tick", "1ms"), "apps[0].tick", "'tick' is a consumer key")


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
    (tmp_path / "t.txt").write_text("router\na NA 1 1\nb NA 1 1\nlink\na b 10Mbps\n")
    data = {"scenario": {"duration": "1s"}, "topology": {"file": "t.txt"}}
    p = expect(
        data,
        "line 5",
        "a link line has 4 to 7 fields",
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


def test_mircc_secondary_share_out_of_range():
    errs = problems(
        '[scenario]\nduration = "1s"\n[nodes.R.schemes.mircc]\nsecondary_share = 1.5\n'
        '[[links]]\nbetween = ["C", "R"]\nbandwidth = "1Mbps"\ndelay = "1ms"\n'
    )
    assert any(p.key.endswith("secondary_share") for p in errs)


def test_multipath_only_with_mircc():
    errs = problems(
        '[scenario]\nduration = "1s"\n[[links]]\nbetween = ["C", "P"]\nbandwidth = "1Mbps"\n'
        'delay = "1ms"\n[[apps]]\nnode = "P"\nkind = "producer"\nprefix = "/p"\n'
        '[[apps]]\nnode = "C"\nkind = "consumer"\nprefix = "/p"\nrate = 10\nmultipath = true\n'
    )
    assert any(p.key.endswith("multipath") for p in errs)


def _clock_consumer(**extra) -> str:
    keys = "".join(f"{k} = {v}\n" for k, v in extra.items())
    return (
        '[scenario]\nduration = "3s"\n[[links]]\nbetween = ["C", "P"]\nbandwidth = "1Mbps"\n'
        'delay = "1ms"\n[[apps]]\nnode = "P"\nkind = "producer"\nprefix = "/p"\n'
        '[[apps]]\nnode = "C"\nkind = "consumer"\nprefix = "/p"\nrate = 10\nclock = "os"\n' + keys
    )


def test_clock_load_window_needs_a_profile():
    errs = problems(_clock_consumer(clock_wait_mean='"50us"', clock_load_window='"1s-2s"'))
    assert any(p.key.endswith("clock_load_window") and "profile" in p.fix for p in errs)


def test_clock_load_window_must_be_start_end(tmp_path):
    profile = tmp_path / "c.json"
    profile.write_text(
        '{"version": 1, "granularity_ns": 1000, "profiles": {"idle": {"samples_ns": [1]},'
        ' "load": {"samples_ns": [2]}}}'
    )
    for window in ('"2s-1s"', '"soon"', '"1s-2s-3s"'):
        text = _clock_consumer(clock_profile='"c.json"', clock_load_window=window)
        errs = problems(text, base_dir=tmp_path)
        assert any(p.key.endswith("clock_load_window") for p in errs), window


@pytest.mark.parametrize(
    "name", ["../../etc", "..", ".", "", "a/b", "a\\b", "x" * 201, "tab\there"]
)
def test_scenario_name_must_be_one_path_part(name):
    data = copy.deepcopy(BASE)
    data["scenario"]["name"] = name
    expect(data, "scenario.name", "", "use letters, digits")


@pytest.mark.parametrize(
    ("key", "value"),
    [("duration", "1e30s"), ("duration", "18446744073709551615ns"), ("duration", "1e400s")],
)
def test_times_beyond_the_simulator_are_refused(key, value):
    data = copy.deepcopy(BASE)
    data["scenario"][key] = value
    expect(data, f"scenario.{key}", "is too large")


def test_rates_beyond_one_per_nanosecond_are_refused():
    expect(consumer(rate=1e30), "apps[1].rate", "too large")


def test_a_bin_far_too_fine_for_the_duration_is_refused():
    data = copy.deepcopy(BASE)
    data["scenario"]["duration"] = "1000h"
    p = expect(data, "trace.bin", "rows", "raise bin to at least")
    assert "shorten the duration" in p.fix


def test_timer_periods_below_a_microsecond_are_refused():
    expect(consumer(engine="rmc", period="1ns"), "apps[1].period", "below the smallest period")
    expect(consumer(engine="tick", tick="10ns"), "apps[1].tick", "below the smallest period")


# ---- accepted but meaningless (issue 26, item 5) --------------------------------------------


def warnings_of(data: dict | str, **overrides) -> list[Problem]:
    sc = (
        Scenario.from_toml_str(data, source="s.toml")
        if isinstance(data, str)
        else Scenario.from_dict(data, source="s.toml")
    )
    return sc.with_overrides(**overrides).warnings if overrides else sc.warnings


def sieve_consumer(**keys) -> dict:
    return BASE | {"apps": [BASE["apps"][0], {**BASE["apps"][1], "controller": "sieve", **keys}]}


def test_sieve_start_per_data_without_per_window_is_refused():
    expect(
        sieve_consumer(start_per_data=True),
        "apps[1].start_per_data",
        "start_per_data changes nothing without per_window",
        "set per_window = true, or remove start_per_data",
    )
    Scenario.from_dict(sieve_consumer(start_per_data=True, per_window=True)).validate()


def test_sieve_min_window_above_initial_window_is_refused():
    expect(
        sieve_consumer(min_window=8),
        "apps[1].min_window",
        "initial_window (1) is below min_window (8)",
        "set initial_window to at least 8",
    )
    expect(sieve_consumer(initial_window=2, min_window=4), "apps[1].initial_window", "below")
    Scenario.from_dict(sieve_consumer(initial_window=8, min_window=8)).validate()


SIEVE_NET = BASE | {
    "defaults": {"node": {"schemes": {"sieve": {}}}},
    "sdn": {"sieve": {}},
}


def test_router_th2_unlike_the_controllers_is_warned():
    assert warnings_of(SIEVE_NET) == []
    both = {"defaults.node.schemes.sieve.th2": 0.7, "sdn.sieve.th2": 0.7}
    assert warnings_of(SIEVE_NET, overrides=both) == []
    (w,) = warnings_of(SIEVE_NET, overrides={"defaults.node.schemes.sieve.th2": 0.7})
    assert w.key == "sdn.sieve.th2", str(w)
    assert "[sdn.sieve] th2 = 0.3 (its default), but the sieve router part has th2 = 0.7 at " in (
        w.problem
    )
    assert "the same th2" in w.fix
    (w,) = warnings_of(SIEVE_NET, overrides={"sdn.sieve.th2": 0.5, "nodes.R.schemes.sieve": {}})
    assert "th2 = 0.5 (set)" in w.problem and "th2 = 0.3 at R, C, P" in w.problem, str(w)


def mircc_multipath(strategy: str | None) -> dict:
    data = copy.deepcopy(BASE)
    data["apps"][1] |= {"controller": "mircc", "rate": 100, "multipath": True}
    if strategy:
        data["nodes"] = {"R": {"strategy": strategy}}
    return data


def test_mircc_multipath_without_class_multipath_is_warned():
    (w,) = warnings_of(mircc_multipath(None))
    assert w.key == "apps[1].multipath", str(w)
    assert 'no node it can reach runs strategy = "class-multipath"' in w.problem
    assert 'give node C strategy = "class-multipath"' in w.fix
    assert warnings_of(mircc_multipath("class-multipath")) == []
    assert len(warnings_of(mircc_multipath("multicast"))) == 1


@pytest.mark.parametrize(
    "keys, key",
    [
        ({"engine": "tick", "tick": "10s"}, "tick"),
        ({"engine": "tick", "tick": "20s"}, "tick"),
        ({"engine": "rmc", "period": "12s"}, "period"),
        ({"clock": "granular", "clock_granularity": "10s"}, "clock_granularity"),
        ({"engine": "tick", "tick": "6s", "start": "5s"}, "tick"),
        ({"engine": "tick", "tick": "3s", "stop": "2s"}, "tick"),
    ],
)
def test_a_clock_period_not_shorter_than_the_run_is_refused(keys, key):
    data = copy.deepcopy(BASE)
    data["apps"][1] |= {"rate": 100, **keys}
    p = expect(data, f"apps[1].{key}", "is not shorter than the time the consumer sends")
    assert "its clock would wake it once" in p.problem and "duration longer" in p.fix
    # a run shortened by an override: said, not refused
    sc = Scenario.from_dict(data, source="s.toml").with_overrides(duration="5500ms")
    assert [w.key for w in sc.warnings] == [f"apps[1].{key}"]


def test_a_clock_period_shorter_than_the_run_is_fine():
    data = copy.deepcopy(BASE)
    data["apps"][1] |= {"rate": 100, "engine": "tick", "tick": "9s"}
    Scenario.from_dict(data).validate()


STATIC = """
[scenario]
duration = "2s"
[routing]
mode = "static"
[defaults.link]
bandwidth = "10Mbps"
delay = "5ms"
[[links]]
between = ["C", "R1"]
[[links]]
between = ["R1", "R2"]
[[links]]
between = ["R2", "P"]
[[routes]]
node = "C"
prefix = "/p"
next_hop = "R1"
[[routes]]
node = "R1"
prefix = "/p"
next_hop = "R2"
{extra}
[[routes]]
node = "R2"
prefix = "{prefix}"
next_hop = {hop}
[[apps]]
node = "C"
kind = "consumer"
prefix = "/p/q"
rate = 10
[[apps]]
node = "P"
kind = "producer"
prefix = "/p"
"""

ROUTE_R2_P = '[[routes]]\nnode = "R2"\nprefix = "/p"\nnext_hop = "P"'


@pytest.mark.parametrize(
    "prefix, hop, trail, extra",
    [
        ("/p", '"R1"', "C → R1 → R2 → R1, a loop", ""),
        ("/p/q", '"R1"', "C → R1 → R2 → R1, a loop", ""),
        ("/p/x", '"P"', "C → R1 → R2, where no route for it goes on", ""),
        ("/p", '"P"', None, ""),
        ("/p", '["R1", "P"]', None, ""),
        # the longest prefix wins at R2: /p/q back to R1, not /p on to P
        ("/p/q", '"R1"', "C → R1 → R2 → R1, a loop", ROUTE_R2_P),
        ("/p", '"R1"', None, ROUTE_R2_P.replace('"/p"', '"/p/q"')),
    ],
)
def test_a_static_loop_that_reaches_no_producer_is_warned(prefix, hop, trail, extra):
    found = warnings_of(STATIC.format(prefix=prefix, hop=hop, extra=extra))
    if trail is None:
        assert found == [], "\n".join(map(str, found))
        return
    (w,) = found
    assert w.key == "apps[0].prefix", str(w)
    assert w.problem == f"the static routes from C for '/p/q' reach no producer of it: {trail}"
    assert "lead to a producer of it (on P)" in w.fix


@pytest.mark.parametrize(
    "prefix, producer, trail",
    [
        ("/q", "/p", "R1 → R2 → R1, a loop (none serves names under it)"),
        ("/p/x", "/p", "R1 → R2 → R1, a loop"),
    ],
)
def test_static_routes_no_consumer_asks_for_that_loop_are_warned(prefix, producer, trail):
    """A loop of static routes for names no consumer asks for is meaningless too: warned at
    `routes`, once per prefix (before, only a consumer's own trail was followed)."""
    text = STATIC.format(prefix="/p", hop='"P"', extra="").replace(
        'prefix = "/p"\nnext_hop = "R2"',
        f'prefix = "/p"\nnext_hop = "R2"\n[[routes]]\nnode = "R1"\nprefix = "{prefix}"\n'
        f'next_hop = "R2"\n[[routes]]\nnode = "R2"\nprefix = "{prefix}"\nnext_hop = "R1"',
    )
    (w,) = warnings_of(text)
    assert w.key == "routes", str(w)
    loop, _, none = trail.partition(" (")
    assert w.problem.startswith(f"the static routes for '{prefix}' from R1 reach no producer")
    assert w.problem.endswith(loop), str(w)
    assert ("none serves names under it" in w.problem) == bool(none)


# ---- messages (issue 26, item 6) ---------------------------------------------------------------


def test_a_byte_order_mark_is_ignored(tmp_path):
    text = '[scenario]\nduration = "1s"\n'
    assert Scenario.from_toml_str("\ufeff" + text).data == {"scenario": {"duration": "1s"}}
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + Scenario.from_dict(BASE).to_toml().encode())
    assert Scenario.load(path).resolve()["name"] == "t"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: Scenario.from_toml_str(b"[scenario]"), "text must be the TOML text as a str, "
         "got bytes: decode it first"),
        (lambda: Scenario.from_toml_str(None), "text must be the TOML text as a str, got NoneType"),
        (lambda: Scenario.from_dict(BASE).with_overrides(overrides="x"),
         "overrides must be a dict of dotted paths to values"),
        (lambda: Scenario.from_dict(BASE).with_overrides(overrides=[("a", 1)]), "got list"),
        (lambda: Scenario.from_dict(BASE).with_overrides(overrides={1: 2}),
         "every key of overrides is a dotted path as a str"),
        (lambda: Scenario.load(7), "path must be a file name (str or pathlib.Path), got int"),
    ],
)  # fmt: skip
def test_wrong_argument_types_are_type_errors_that_say_what_to_give(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert message in str(e.value)


def test_run_with_wrong_argument_types_says_what_to_give():
    import ndncc

    with pytest.raises(TypeError, match="a scenario TOML file .* or an ndncc.Scenario, got int"):
        ndncc.run(5)
    sc = Scenario.from_dict(BASE)
    with pytest.raises(TypeError, match=r"progress must be a function progress\(sim_time_s, "):
        ndncc.run(sc, progress=5)
    with pytest.raises(TypeError, match=r"out must be a folder \(str or pathlib.Path\), got int"):
        ndncc.run(sc, out=5)
