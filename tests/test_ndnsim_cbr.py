"""ndnSIM's ConsumerCbr as `controller = "ndnsim-cbr"`: its keys and defaults as the scenario
reads them, clear errors for ndnSIM's spellings and for its keys under another controller, and
a congested run in which timed-out numbers are re-sent (docs/schemes/ndnsim-consumers.md)."""

import copy

import ndncc
import pytest
from ndncc.scenario import Scenario, ScenarioError

# ndn-congestion-topo-plugin's shape, shortened: a 1 Mbit/s bottleneck, 20-packet queues
BASE = {
    "scenario": {"name": "cbr", "duration": "4s"},
    "packets": {"interest_size": "31B", "data_overhead": "41B"},
    "defaults": {"link": {"bandwidth": "10Mbps", "delay": "10ms", "queue": "20p"}},
    "links": [
        {"between": ["Src1", "Rtr1"]},
        {"between": ["Src2", "Rtr1"]},
        {"between": ["Rtr1", "Rtr2"], "bandwidth": "1Mbps"},
        {"between": ["Rtr2", "Dst1"]},
        {"between": ["Rtr2", "Dst2"]},
    ],
    "apps": [
        {"name": "c1", "node": "Src1", "kind": "consumer", "prefix": "/dst1",
         "controller": "ndnsim-cbr", "frequency": 100},
        {"name": "c2", "node": "Src2", "kind": "consumer", "prefix": "/dst2",
         "controller": "ndnsim-cbr", "frequency": 100},
        {"name": "p1", "node": "Dst1", "kind": "producer", "prefix": "/dst1", "payload": "1024B"},
        {"name": "p2", "node": "Dst2", "kind": "producer", "prefix": "/dst2", "payload": "1024B"},
    ],
}  # fmt: skip


def with_app(i: int, **keys) -> dict:
    data = copy.deepcopy(BASE)
    data["apps"][i].update(keys)
    for k in [k for k, v in keys.items() if v is None]:
        del data["apps"][i][k]
    return data


def consumer(data: dict, i: int = 0) -> dict:
    return Scenario.from_dict(data).resolve()["apps"][i]["app"]


def test_keys_and_ndnsim_defaults():
    app = consumer(BASE)
    assert app["controller"] == {"type": "ndnsim_cbr", "frequency": 100.0, "retx_timer": 50_000_000}
    assert app["lifetime_ns"] == 2_000_000_000, "ndnSIM's LifeTime"
    app = consumer(with_app(0, frequency=None, lifetime="3s", retx_timer="20ms"))
    assert app["controller"]["frequency"] == 1.0, "ndnSIM's Frequency"
    assert app["controller"]["retx_timer"] == 20_000_000
    assert app["lifetime_ns"] == 3_000_000_000
    rate = consumer(with_app(0, controller="constant-rate", frequency=None, rate=100))
    assert rate["lifetime_ns"] == 4_000_000_000, "other controllers keep 4 s"
    uniform = consumer(with_app(0, randomize="uniform", max_seq=50))
    assert uniform["engine"] == {"type": "randomized", "dist": "uniform"}
    assert uniform["max_seq"] == 50


def problems(data: dict) -> list:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data, source="s.toml").resolve()
    return info.value.problems


def test_ndnsim_spellings_and_foreign_keys_are_clear_errors():
    (p,) = problems(with_app(0, frequency=None, Frequency=100))
    assert "unknown key 'Frequency'" in p.problem and "'frequency'" in p.fix, str(p)
    (p,) = problems(with_app(0, retx_timer=None, RetxTimer="50ms"))
    assert "'retx_timer'" in p.fix, str(p)
    (p,) = problems(with_app(0, controller="constant-rate"))
    assert 'applies to controller = "ndnsim-cbr"' in p.problem, str(p)
    (p,) = problems(with_app(0, retx_timer="0s"))
    assert p.key.endswith("retx_timer"), str(p)


def test_congested_cbr_resends_timed_out_numbers_at_its_rate():
    r = ndncc.run(Scenario.from_dict(BASE))
    apps = r.summary["apps"][:2]
    assert sum(a["timeouts"] for a in apps) > 50, apps  # 200 Interests/s, 117 Data/s
    for a in apps:
        # the rate counts every Interest, re-sends included; every timed-out number is re-sent
        # (but those still waiting at the end)
        assert a["interests_sent"] == 400, a
        assert 0 <= a["timeouts"] - a["retransmissions"] <= 10, a
        assert a["requested"] + a["retransmissions"] == a["interests_sent"], a
    plain = copy.deepcopy(BASE)
    for app in plain["apps"][:2]:
        app.update(controller="constant-rate", rate=100)
        del app["frequency"]
    r = ndncc.run(Scenario.from_dict(plain))
    assert all(a["retransmissions"] == 0 for a in r.summary["apps"][:2])
