"""ndnSieve through the scenario front end: [sdn.<name>] is validated from the Rust schema, its
controller is joined to the nodes, and the scenarios' behaviour depends on it."""

from pathlib import Path

import ndncc
import pytest
from ndncc.scenario import Scenario, ScenarioError

ROOT = Path(__file__).parent.parent / "scenarios" / "sieve"
MP1 = ROOT / "multipath-1.toml"


def resolve(path: Path, **overrides) -> dict:
    return Scenario.load(path).with_overrides(overrides=overrides).resolve()


def error(path: Path, **overrides) -> str:
    with pytest.raises(ScenarioError) as info:
        resolve(path, **overrides)
    problems = info.value.problems
    assert len(problems) == 1, "\n".join(map(str, problems))
    return str(problems[0])


def test_the_controller_is_joined_to_every_node_running_the_router_part():
    spec = resolve(MP1)
    (c,) = spec["components"]
    assert c["nodes"] == list(range(len(spec["nodes"])))
    assert c["delay_ns"] == 1_000_000
    assert c["config"] == {
        "sieve": {"th2": 0.3, "poll": 500_000_000, "refresh": True, "hold": 0, "one_prefix": True}
    }
    spec = resolve(MP1, **{"sdn.sieve.nodes": ["R1", "R2"], "sdn.sieve.delay": "5ms"})
    (c,) = spec["components"]
    names = [n["name"] for n in spec["nodes"]]
    assert [names[i] for i in c["nodes"]] == ["R1", "R2"]
    assert c["delay_ns"] == 5_000_000
    # no [sdn]: no components key at all (specs of other scenarios are unchanged)
    assert "components" not in resolve(MP1, sdn=None)


def test_sdn_mistakes_are_one_line_errors():
    assert "unknown controller component 'seive'" in error(MP1, **{"sdn.seive": {}})
    assert "did you mean 'sieve'" in error(MP1, **{"sdn.seive": {}})
    assert "sdn.sieve.th3" in error(MP1, **{"sdn.sieve.th3": 0.2})
    assert "sdn.sieve.th2" in error(MP1, **{"sdn.sieve.th2": 1.5})
    assert "sdn.sieve.delay" in error(MP1, **{"sdn.sieve.delay": "-1ms"})
    assert "unknown node 'R9'" in error(MP1, **{"sdn.sieve.nodes": ["R9"]})
    assert "listed twice" in error(MP1, **{"sdn.sieve.nodes": ["R1", "R1"]})
    assert "list of node names" in error(MP1, **{"sdn.sieve.nodes": "R1"})
    msg = error(MP1, **{"defaults.node.schemes.sieve": None})
    assert "no node runs the sieve router part" in msg
    assert "sdn.sieve: expected a table" in error(MP1, **{"sdn.sieve": 3})


def test_router_and_consumer_keys_are_checked():
    assert "th1" in error(MP1, **{"defaults.node.schemes.sieve.th1": 0})
    msg = error(MP1, **{"defaults.node.schemes.sieve.report_period": "10ms"})
    assert "report_period" in msg and "window" in msg
    assert "per_window" in error(MP1, **{"apps[c1].per_window": 3})
    assert "beta_gain" in error(MP1, **{"defaults.node.schemes.sieve.beta_gain": 1.5})
    assert "beta_gain" in error(MP1, **{"defaults.node.schemes.sieve.beta_gain": 0})
    assert "beta_windows" in error(MP1, **{"defaults.node.schemes.sieve.beta_windows": 0})


def r1_from(result, peer: str) -> float:
    f = result.face_series
    f = f[(f["node_name"] == "R1") & (f["peer_name"] == peer)]
    return float(f["in_data_bytes"].sum())


def test_the_controller_moves_r1_to_its_second_path_and_nothing_else_does():
    with_sdn = ndncc.run(MP1, duration="3s")
    assert r1_from(with_sdn, "R3") > 0 and r1_from(with_sdn, "R2") > 0
    # without the controller R1 never leaves its cheapest next hop
    alone = ndncc.run(MP1, duration="3s", overrides={"sdn": None})
    assert r1_from(alone, "R3") == 0
    # the routers' gauges: β, ε and the state of every net face
    cols = [c for c in with_sdn.face_series.columns if c.startswith("scheme_")]
    assert cols == ["scheme_beta", "scheme_eps", "scheme_state"]
    assert with_sdn.face_series["scheme_state"].max() >= 1


def test_consumers_slow_down_only_on_marks():
    # the routers never mark: the consumers' windows never shrink
    r = ndncc.run(
        ROOT / "dumbbell.toml",
        duration="2s",
        overrides={"defaults.node.schemes.sieve.mark": False},
    )
    for _, g in r.series.groupby("app_name"):
        w = g["window"].to_numpy()
        assert (w[1:] >= w[:-1]).all()
    marked = ndncc.run(ROOT / "dumbbell.toml", duration="2s")
    assert sum(f["marks"] for f in marked.summary["faces"]) > 0
    assert any((g["window"].diff() < 0).any() for _, g in marked.series.groupby("app_name"))


def test_same_seed_same_run():
    a = ndncc.run(ROOT / "multipath-2.toml", duration="3s").summary
    b = ndncc.run(ROOT / "multipath-2.toml", duration="3s").summary
    for s in (a, b):
        for k in ("wall_time_s", "git_commit"):
            s.pop(k, None)
    assert a == b


def test_on_1000_packet_queues_the_per_window_consumers_reach_neither_th2_in_the_dumbbell():
    """docs/schemes/sieve.md, "th2 on 1 000-packet queues": th2 · Q is 300 or 700 packets, and
    the +1/window consumers' dumbbell queue never reaches 300 — no Data marked, the same run at
    th2 = 0.3 and 0.7 — while the printed consumer at 0.7 overflows the 1 000 packets."""
    from ndncc.experiments import sieve

    v = sieve.variants()

    def run(label):
        ov = sieve.overrides("dumbbell", v[label], False)
        return ndncc.run(Scenario.load(ROOT / "dumbbell.toml").with_overrides(overrides=ov))

    low, high = (run(f"ndnSieve +1/window, th2 = {th2}") for th2 in (0.3, 0.7))
    for r in (low, high):
        assert [a["marks"] for a in r.summary["apps"]] == [0, 0]
        assert max(f["max_queue_pkts"] for f in r.summary["faces"]) < 300
    assert low.summary["apps"] == high.summary["apps"]
    printed = run("ndnSieve, th2 = 0.7").summary
    assert max(f["max_queue_pkts"] for f in printed["faces"]) == 1000
    assert sum(f["drops"] for f in printed["faces"]) > 0
    assert all(a["marks"] > 0 for a in printed["apps"])
