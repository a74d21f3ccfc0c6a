"""ndncc emulate: the resolved scenario → per-node ndnccd configurations (faces per link with
each direction's emulation, routes, the node's scheme) and what emulation refuses."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from ndncc.emulate.plan import (
    EmulateError,
    Endpoint,
    link_addresses,
    node_config_toml,
    plan_nodes,
    unsupported,
)
from ndncc.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
LINEAR = ROOT / "scenarios" / "sf-clock" / "linear.toml"


def linear(**over):
    sc = Scenario.load(LINEAR)
    if over:
        sc = sc.with_overrides(overrides=over)
    return sc


def loopback(n):
    return [Endpoint("127.0.0.1", 7000 + i) for i in range(n)]


def test_linear_faces_routes_and_modules(tmp_path):
    sc = linear(**{"links[1].bandwidth": "20Mbps", "links[1].queue": "30p"})
    spec = sc.resolve()
    nodes = plan_nodes(spec, sc.routes(), loopback(4), tmp_path)
    assert [n.name for n in nodes] == ["C", "R1", "R2", "P"]
    cfg = {n.name: tomllib.loads(node_config_toml(n)) for n in nodes}
    # C: one face to R1 (port 7001), the link's emulation, /p routed on it
    assert [f["uri"] for f in cfg["C"]["face"]] == ["udp4://127.0.0.1:7001"]
    assert cfg["C"]["face"][0]["link"] == {
        "bandwidth_mbps": 10.0,
        "delay_ms": 50.0,
        "queue": "100p",
    }
    assert [(r["prefix"], r["face"]) for r in cfg["C"]["route"]] == [("/p", 0)]
    # R1: faces to C then R2 (link order); /p goes to R2, the 20 Mbps / 30 p link
    assert [f["uri"] for f in cfg["R1"]["face"]] == [
        "udp4://127.0.0.1:7000",
        "udp4://127.0.0.1:7002",
    ]
    assert cfg["R1"]["face"][1]["link"]["bandwidth_mbps"] == 20.0
    assert cfg["R1"]["face"][1]["link"]["queue"] == "30p"
    assert [(r["prefix"], r["face"]) for r in cfg["R1"]["route"]] == [("/p", 1)]
    assert [(r["prefix"], r["face"]) for r in cfg["R2"]["route"]] == [("/p", 1)]
    # the producer's node has no route: the producer registers /p itself
    assert cfg["P"].get("route", []) == []
    for c in cfg.values():
        assert c["forwarder"]["module"]["sf"]["depth"] == 50.0
        # ndnccd reads the module in a scenario's units (docs/realtime.md)
        assert c["forwarder"]["module"]["sf"]["leak_randomize"] == "1000000ns"
        assert c["forwarder"]["strategy"] == "best-route"
    assert cfg["R2"]["listen"]["udp"] == "127.0.0.1:7002"
    assert cfg["R2"]["listen"]["unix"] == str(tmp_path / "2.sock")


def test_each_direction_gets_its_own_queue(tmp_path):
    sc = linear(**{"links[0].queue_ab": "7p", "links[0].queue_ba": "9p"})
    nodes = plan_nodes(sc.resolve(), sc.routes(), loopback(4), tmp_path)
    assert nodes[0].faces[0][3]["queue"] == "7p"  # C -> R1
    assert nodes[1].faces[0][3]["queue"] == "9p"  # R1 -> C


def test_namespace_mode_addresses_each_link(tmp_path):
    sc = linear()
    spec = sc.resolve()
    eps = [Endpoint("0.0.0.0", 6363)] * 4
    nodes = plan_nodes(spec, sc.routes(), eps, tmp_path)
    # R1's face on link 0 goes to C's address on link 0, its face on link 1 to R2's
    assert [f[2].uri() for f in nodes[1].faces] == [
        f"udp4://{link_addresses(0)[0]}:6363",
        f"udp4://{link_addresses(1)[1]}:6363",
    ]
    assert link_addresses(0) == ("10.0.0.1", "10.0.0.2")
    assert link_addresses(64) == ("10.0.1.1", "10.0.1.2")
    assert len({a for i in range(300) for a in link_addresses(i)}) == 600


@pytest.mark.parametrize(
    "over, words",
    [
        ({"links[0].loss": 0.01}, "loss"),
        ({"apps[consumer].clock": "granular"}, "clock 'granular'"),
    ],
)
def test_what_emulation_cannot_do_is_named(tmp_path, over, words):
    spec = linear(**over).resolve()
    problems = unsupported(spec)
    assert any(words in p for p in problems), problems
    with pytest.raises(EmulateError, match="cannot emulate"):
        plan_nodes(spec, [], loopback(4), tmp_path)


def test_the_seed_scenario_is_emulable():
    assert unsupported(linear().resolve()) == []


def test_a_byte_queue_is_planned_in_bytes(tmp_path):
    """ndnccd's queues drop by bytes as well as by packets: a scenario's byte queue reaches the
    daemon's config as its byte count (it was refused: "ndnccd's queues count packets")."""
    sc = linear(**{"links[0].queue_ab": "20000B", "links[0].queue_ba": "64KiB"})
    assert unsupported(sc.resolve()) == []
    nodes = plan_nodes(sc.resolve(), sc.routes(), loopback(4), tmp_path)
    assert nodes[0].faces[0][3]["queue"] == "20000B"  # C -> R1
    assert nodes[1].faces[0][3]["queue"] == "65536B"  # R1 -> C
    cfg = tomllib.loads(node_config_toml(nodes[0]))
    assert cfg["face"][0]["link"]["queue"] == "20000B"


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios" / "chopcop").glob("*.toml")))
def test_every_chopcop_scenario_plans_with_its_byte_queues(tmp_path, path):
    sc = Scenario.load(path)
    spec = sc.resolve()
    # producers' `share` (multi-source placement) is simulator-only; nothing else is refused
    problems = unsupported(spec)
    assert all("share (multi-source" in p for p in problems), problems
    spec["apps"] = [{**a, "app": {**a["app"], "share": None}} for a in spec["apps"]]
    nodes = plan_nodes(spec, sc.routes(), loopback(len(spec["nodes"])), tmp_path)
    queues = [f[3]["queue"] for n in nodes for f in n.faces]
    byte_queues = [
        q for ln in spec["links"] for q in (ln["queue_ab"], ln["queue_ba"]) if "bytes" in q
    ]
    assert byte_queues, "the CHoPCoP scenarios' queues are in bytes"
    assert sum(q.endswith("B") for q in queues) == len(byte_queues)
    assert f"{byte_queues[0]['bytes']}B" in queues
    modules = [set(n.forwarder["module"]) for n in nodes if n.forwarder.get("module")]
    assert modules and all(m == {"chopcop"} for m in modules)


def test_emulate_accepts_exactly_what_ndnccd_loads(tmp_path):
    """One list: the strategies and router modules the daemon loads (ndnccd's own
    ``modules.rs``, through the native module) are what the planner accepts; the PCON
    dumbbell (strategy and marking module pcon) plans."""
    from ndncc import _core
    from ndncc.emulate.plan import daemon_modules

    listed = json.loads(_core.ndnccd_modules())
    loads = daemon_modules()
    assert list(loads.strategies) == listed["strategies"]
    assert list(loads.modules) == listed["modules"]
    assert "pcon" in loads.strategies and "pcon" in loads.modules
    for strategy in loads.strategies:
        assert unsupported(linear(**{"nodes.R1.strategy": strategy}).resolve()) == [], strategy
    sc = Scenario.load(ROOT / "scenarios" / "pcon" / "dumbbell.toml")
    nodes = plan_nodes(sc.resolve(), sc.routes(), loopback(6), tmp_path)
    for n in nodes:
        fw = tomllib.loads(node_config_toml(n))["forwarder"]
        assert fw["strategy"] == "pcon" and set(fw["module"]) == {"pcon"}


def test_app_spec_files_are_checked(tmp_path, capsys):
    from ndncc.cli import main

    bad = tmp_path / "bad.json"
    bad.write_text('{"app": {"kind": "producer", "prefix": "/p"}}')
    cases = [
        (["consumer", "--spec", str(tmp_path / "none.json")], "No such file"),
        (["consumer", "--spec", str(bad)], "not a resolved app spec"),
        (["consumer", "--spec", str(bad), "--prefix", "/p"], "replaces --prefix"),
        (["consumer"], "--prefix is required"),
        (["producer", "--prefix", "/p", "--data-wire-size", "-5"], "--data-wire-size -5: a Data"),
        (["producer", "--prefix", "/p", "--data-wire-size", str(2**32)], "from 1 to"),
    ]
    for argv, words in cases:
        assert main([*argv, "--forwarder", "unix:///nonexistent.sock"]) == 3, argv
        err = capsys.readouterr().err
        assert words in err, (argv, err)
        assert len(err.strip().splitlines()) == 1, err
    good = tmp_path / "p.json"
    good.write_text('{"app": {"kind": "producer", "prefix": "/p"}, "packets": {}}')
    assert main(["consumer", "--spec", str(good), "--forwarder", "unix:///x.sock"]) == 3
    assert "not a consumer" in capsys.readouterr().err


def test_work_folders_of_dead_drivers_are_removed_and_live_ones_kept(tmp_path):
    # a driver killed with SIGKILL leaves its temporary folder; the next run removes it
    import os
    import subprocess
    import sys

    from ndncc.emulate.run import WORK_PREFIX, remove_stale_work_dirs

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"{WORK_PREFIX}{dead.pid}-abc"
    mine = tmp_path / f"{WORK_PREFIX}{os.getpid()}-def"
    live = tmp_path / f"{WORK_PREFIX}{os.getppid()}-ghi"  # another run still going
    other = tmp_path / "ndncc-emu-notapid-x"
    for d in (stale, mine, live, other):
        d.mkdir()
        (d / "1.toml").write_text("x")
    assert remove_stale_work_dirs(tmp_path) == [stale]
    assert not stale.exists() and mine.exists() and live.exists() and other.exists()


def test_the_report_shows_the_relative_difference_in_percent():
    """(real − sim) / sim, as a signed percentage with one decimal; "—" without a simulator
    value to divide by."""
    from ndncc.emulate.compare import markdown, rows

    sim = {"apps": [{"name": "c1", "data_received": 800, "timeouts": 0}]}
    real = {
        "apps": [{"name": "c1", "data_received": 900, "timeouts": 3}],
        **_report_head(mode_reason="not root"),
    }
    table = rows(sim, real)
    by_key = {r["metric"]: r for r in table}
    text = markdown(table, sim, real)
    assert by_key["Data received"]["relative_difference"] == pytest.approx(0.125)
    assert "| Data received | count | 800 | 900 | +12.5 % |" in text
    assert by_key["timeouts"]["relative_difference"] is None
    assert "| timeouts | count | 0 | 3 | — |" in text


def test_queue_drops_are_named_per_face_as_the_simulator_names_them(tmp_path):
    """The daemons' per-face counters → summary ``faces`` (node, peer by the face's URI; an
    app's face has no peer), the report's per-face drops beside the simulator's, and the line
    ``ndncc emulate`` prints."""
    from ndncc.emulate.collect import drops_text, face_entries
    from ndncc.emulate.compare import face_rows, markdown

    sc = linear()
    spec = sc.resolve()
    nodes = plan_nodes(spec, sc.routes(), loopback(4), tmp_path)

    def face(uri, drops, after_close=0, marks=0):
        return {
            "id": 256,
            "uri": uri,
            "queue": "100p",
            "drops": drops,
            "drop_bytes": drops * 1250,
            "after_close": after_close,
            "marks": marks,
            "max_queue_packets": 100,
            "max_queue_bytes": 125000,
            "out_interests": 5,
            "in_data": 4,
        }

    counters = [
        {"faces": [face("udp4://127.0.0.1:7001", 0), face(None, 0, after_close=7)]},  # C
        None,  # R1 printed no report
        {"faces": [face("udp4://127.0.0.1:7001", 40, marks=3), face("udp4://127.0.0.1:7003", 0)]},
        {"faces": [face("udp4://127.0.0.1:7002", 2)]},  # P
    ]
    faces = face_entries(spec, nodes, counters)
    assert [(f["node"], f["peer"], f["link"], f["drops"]) for f in faces] == [
        ("C", "R1", 0, 0),
        ("C", None, None, 0),
        ("R2", "R1", 1, 40),
        ("R2", "P", 2, 0),
        ("P", "R2", 2, 2),
    ]
    assert faces[1]["after_close"] == 7 and faces[2]["drop_bytes"] == 50000
    # packets by type, as the simulator's faces name them; None where the daemon gave none
    assert (faces[2]["out_interests"], faces[2]["in_data"], faces[2]["out_nacks"]) == (5, 4, None)
    real = {"faces": faces}
    assert drops_text(real) == (
        "queue drops: R2 → R1: 40 packets (50000 B); P → R2: 2 packets (2500 B)"
    )
    assert drops_text({"faces": [faces[0]]}) == "queue drops: none"
    sim = {"faces": [{"node": "R2", "peer": "R1", "drops": 35, "drop_bytes": 1, "marks": 0}]}
    rows = face_rows(sim, real)
    assert [(r["face"], r["sim_drops"], r["real_drops"], r["real_marks"]) for r in rows] == [
        ("P → R2", None, 2, 0),
        ("R2 → R1", 35, 40, 3),
        ("all faces", 35, 42, 3),
    ]
    head = _report_head(mode_reason="asked for", consumer_start_lag_s={"c1": 0.0, "c2": 0.0123})
    text = markdown([], sim, {**real, **head})
    assert "| R2 → R1 | 35 | 40 | 0 | 3 |" in text
    assert "c1 0.0 ms, c2 12.3 ms" in text


def _report_head(**fields) -> dict:
    """The real run's summary fields the comparison report's heading reads, with these set."""
    return {
        "scenario": "s",
        "mode": "loopback",
        "mode_reason": "asked for",
        "wall_time_s": 1.0,
        "load_average_before": 0.0,
        "load_average_after": 0.0,
        "cpu_count": 2,
        "source": "s.toml",
        "scenario_hash": "0" * 64,
        **fields,
    }


def test_consumer_start_lags_are_measured_against_their_schedule():
    from ndncc.emulate.collect import start_lags

    spec = {"apps": [{"name": "c1", "start_ns": 0}, {"name": "c2", "start_ns": 2_000_000_000}]}
    apps = [
        {"name": "c1", "started_unix_s": 1000.25},
        {"name": "c2", "started_unix_s": 1002.0},  # 2 s later, as scheduled, minus 0.25 s
    ]
    assert start_lags(spec, apps) == {"c1": 0.25, "c2": 0.0}
    assert start_lags(spec, [{"name": "c1", "started_unix_s": None}]) is None
    assert start_lags(spec, []) is None


SIEVE_MP1 = ROOT / "scenarios" / "sieve" / "multipath-1.toml"


def test_a_scenario_with_an_sdn_controller_plans_the_controller_and_each_nodes_link(tmp_path):
    from ndncc.emulate.plan import controller_config_toml

    sc = Scenario.load(SIEVE_MP1).with_overrides(overrides={"sdn.sieve.delay": "3ms"})
    spec = sc.resolve()
    assert unsupported(spec) == []
    nodes = plan_nodes(spec, sc.routes(), loopback(len(spec["nodes"])), tmp_path)
    cfg = {n.name: tomllib.loads(node_config_toml(n)) for n in nodes}
    names = [n.name for n in nodes]
    sock = f"unix://{tmp_path / 'sdn.sock'}"
    for i, n in enumerate(nodes):
        sdn = cfg[n.name]["sdn"]
        assert sdn["controller"] == sock and sdn["node"] == i
        assert sdn["delay_ms"] == 3.0 and sdn["joined"] is True
        # one entry per [[face]], in order: that face's link and the node at its other end
        assert [(f["link"], f["peer"]) for f in sdn["faces"]] == [
            (li, peer) for li, peer, _, _ in n.faces
        ]
        assert "sieve" in cfg[n.name]["forwarder"]["module"]
    r1 = cfg["R1"]["sdn"]["faces"]
    assert [names[f["peer"]] for f in r1] == ["C1", "R2", "R3"]
    ctl = tomllib.loads(controller_config_toml(spec, tmp_path))
    assert ctl["nodes"] == len(names)
    assert ctl["listen"]["unix"] == str(tmp_path / "sdn.sock")
    assert ctl["component"]["sieve"]["poll"] == "500000000ns"
    assert ctl["component"]["sieve"]["th2"] == 0.3


def test_a_node_the_controller_does_not_list_lends_its_topology_unjoined(tmp_path):
    sc = Scenario.load(SIEVE_MP1).with_overrides(overrides={"sdn.sieve.nodes": ["R1", "R2"]})
    spec = sc.resolve()
    nodes = plan_nodes(spec, sc.routes(), loopback(len(spec["nodes"])), tmp_path)
    joined = {n.name: n.sdn["joined"] for n in nodes}
    assert joined == {"C1": False, "R1": True, "R2": True, "R3": False, "P1": False, "P2": False}


def test_a_scenario_without_a_controller_has_no_sdn_section(tmp_path):
    from ndncc.emulate.plan import controller_config_toml

    sc = linear()
    nodes = plan_nodes(sc.resolve(), sc.routes(), loopback(4), tmp_path)
    assert all("sdn" not in tomllib.loads(node_config_toml(n)) for n in nodes)
    assert controller_config_toml(sc.resolve(), tmp_path) is None
