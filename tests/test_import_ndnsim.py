"""Issue 11, item 15: ndnSIM annotated topologies as ndnSIM 2.9 reads them — link lines of 4 to
7 fields, an ns-3 queue spec in the queue column, an ns-3 error model in the loss column — with
a warning wherever we model a value differently. The files below are written for these tests
in the shapes of ndnSIM's example topologies (abilene and grid without queues, a grid with a
RateErrorModel on one link, a grid of RED queues)."""

from __future__ import annotations

import numpy as np
import pytest
from ndncc.importers import TopologyError, read_ndnsim_topology
from ndncc.scenario import Scenario

HEAD = "# a test topology\nrouter\nA NA 1 1\nB NA 1 2\nC NA 2 1\nlink\n"


def topo(tmp_path, links: str, name: str = "t.txt"):
    path = tmp_path / name
    path.write_text(HEAD + links)
    return read_ndnsim_topology(path)


def test_link_lines_without_queue_or_delay_are_read(tmp_path):
    t = topo(tmp_path, "A B 100Mbps 71 5ms\nB C 10Mbps 3 2ms\nA C 10Mbps 1\n")
    assert t.links[0] == {"between": ["A", "B"], "bandwidth": "100Mbps", "cost": 71, "delay": "5ms"}
    assert t.links[2] == {"between": ["A", "C"], "bandwidth": "10Mbps", "cost": 1}
    # one warning per missing column, at its first line, naming the others
    assert [line for line, _ in t.warnings] == [7, 9]
    queue, delay = (m for _, m in t.warnings)
    assert "no queue column on lines 7, 8, 9" in queue and "100 packets" in queue
    assert "no delay column on line 9" in delay and "[defaults.link] delay" in delay


def test_missing_columns_come_from_the_scenario_defaults(tmp_path):
    topo(tmp_path, "A B 100Mbps 71 5ms\n")
    data = {
        "scenario": {"duration": "1s"},
        "defaults": {"link": {"queue": "30p"}},
        "topology": {"file": "t.txt"},
    }
    s = Scenario.from_dict(data, base_dir=tmp_path)
    (link,) = s.resolve()["links"]
    assert link["queue_ab"] == {"packets": 30} and link["delay_ns"] == 5_000_000
    assert any("no queue column" in w.problem for w in s.warnings)


def test_too_few_and_too_many_fields(tmp_path):
    with pytest.raises(TopologyError, match="a link line has 4 to 7 fields"):
        topo(tmp_path, "A B 10Mbps\n")
    t = topo(tmp_path, "A B 10Mbps 1 10ms 100 0 extra\n")
    assert t.links[0]["queue"] == "100p"
    assert "fields after the seventh ignored" in t.warnings[0][1]


def test_an_error_model_in_the_loss_column(tmp_path):
    spec = "ns3::RateErrorModel,ErrorUnit=ERROR_UNIT_PACKET,ErrorRate=0.9"
    t = topo(tmp_path, f"A B 1Mbps 1 10ms 10 {spec}\nB C 1Mbps 1 10ms 10\n")
    assert t.links[0]["loss"] == 0.9 and "loss" not in t.links[1]
    assert t.warnings == []  # a per-packet rate is what we model


@pytest.mark.parametrize(
    ("attrs", "per_packet"),
    [
        ("ErrorUnit=ERROR_UNIT_BYTE,ErrorRate=0.0001", 1 - (1 - 1e-4) ** 1024),
        ("ErrorRate=0.0001", 1 - (1 - 1e-4) ** 1024),  # ns-3's default unit: the byte
        ("ErrorUnit=ERROR_UNIT_BIT,ErrorRate=0.00001", 1 - (1 - 1e-5) ** 8192),
    ],
)
def test_a_per_byte_or_bit_error_rate_is_the_loss_of_a_1024_byte_packet(
    tmp_path, attrs, per_packet
):
    t = topo(tmp_path, f"A B 1Mbps 1 10ms 10 ns3::RateErrorModel,{attrs}\n")
    assert t.links[0]["loss"] == pytest.approx(per_packet, rel=1e-12)
    (w,) = t.warnings
    assert "1024-byte packet" in w[1] and f"{per_packet:.4g}" in w[1]
    assert ("default unit" in w[1]) == ("ErrorUnit" not in attrs)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("ns3::BurstErrorModel,ErrorRate=0.1", "ns3::BurstErrorModel is not modelled"),
        ("ns3::RateErrorModel,ErrorRate", "not Attribute=Value"),
        ("ns3::RateErrorModel,ErrorUnit=ERROR_UNIT_FRAME", "ErrorUnit"),
        ("ns3::RateErrorModel,ErrorUnit=ERROR_UNIT_PACKET,ErrorRate=1", "probability"),
    ],
)
def test_error_models_we_cannot_model_are_refused(tmp_path, spec, problem):
    with pytest.raises(TopologyError, match=problem) as err:
        topo(tmp_path, f"A B 1Mbps 1 10ms 10 {spec}\n")
    assert err.value.problems[0].line == 7


def test_a_red_queue_is_a_drop_tail_queue_of_its_limit_with_a_warning(tmp_path):
    red = "ns3::RedQueue,MeanPktSize=100"
    t = topo(tmp_path, f"A B 1Mbps 1 10ms {red}\nB C 1Mbps 1 10ms {red}\n")
    assert [link["queue"] for link in t.links] == ["25p", "25p"]  # ns-3's RED limit
    ((line, message),) = t.warnings  # said once, for both lines
    assert line == 7 and "no early, probabilistic drops" in message
    assert "ignored: MeanPktSize" in message and "also lines 8" in message
    t = topo(tmp_path, "A B 1Mbps 1 10ms ns3::RedQueueDisc,MaxSize=40p\n")
    assert t.links[0]["queue"] == "40p"


def test_a_drop_tail_queue_spec_is_read_exactly(tmp_path):
    t = topo(
        tmp_path,
        "A B 1Mbps 1 10ms ns3::DropTailQueue<Packet>,MaxSize=50p\n"
        "B C 1Mbps 1 10ms ns3::DropTailQueue,MaxPackets=70\n"
        "A C 1Mbps 1 10ms ns3::DropTailQueue\n",
    )
    assert [link["queue"] for link in t.links] == ["50p", "70p", "100p"]
    assert t.warnings == []
    with pytest.raises(TopologyError, match="ns3::CoDelQueue is not modelled"):
        topo(tmp_path, "A B 1Mbps 1 10ms ns3::CoDelQueue\n")


# ---- the smaller items ---------------------------------------------------------------------


def test_bytes_per_second_in_link_defaults_warns():
    s = Scenario(name="b", duration="1s").link("C", "P", delay="1ms")
    s.defaults(bandwidth="10MBps")
    (w,) = s.warnings
    assert w.key == "defaults.link.bandwidth" and "bytes per second" in w.problem


def test_a_directory_is_not_reported_as_not_found(tmp_path):
    (tmp_path / "t.txt").mkdir()
    data = {"scenario": {"duration": "1s"}, "topology": {"file": "t.txt"}}
    with pytest.raises(Exception) as err:
        Scenario.from_dict(data, base_dir=tmp_path).resolve()
    assert "is a directory, not a file" in str(err.value) and "not found" not in str(err.value)
    with pytest.raises(TopologyError, match="is a directory, not a file"):
        read_ndnsim_topology(tmp_path / "t.txt")


def test_numpy_integers_read_like_python_integers():
    s = Scenario(name="np", duration="1s").link("C", "P", bandwidth="10Mbps", delay="1ms")
    s.producer("P", "/p", payload="1000B")
    s.consumer("C", "/p", rate=np.int64(100), max_seq=np.int32(10))
    d = s.data
    d["scenario"]["seed"] = np.int64(3)
    d["links"][0]["cost"] = np.uint16(2)  # read by the routing only
    spec = Scenario.from_dict(d).resolve()
    assert spec["seed"] == 3
    app = next(a for a in spec["apps"] if a["app"]["kind"] == "consumer")
    assert app["app"]["controller"]["rate"] == 100.0 and app["app"]["max_seq"] == 10
    assert "seed = 3" in Scenario.from_dict(d).to_toml()
