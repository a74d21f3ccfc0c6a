"""Issue 11, item 7: the routers' Data size (sf's and mircc's `data_size`, which turns a
link's bandwidth into its capacity in Data packets/s) follows what the producers send unless
the scenario sets it, and a size the producers do not send is flagged."""

from __future__ import annotations

import ndncc
import pytest

LINE = """
[scenario]
name = "data-size"
duration = "3s"
seed = 1

[packets]
data_overhead = "{overhead}"

[defaults.link]
bandwidth = "10Mbps"
delay = "10ms"
queue = "100p"

[defaults.node.schemes.{scheme}]
{router}
[[links]]
between = ["C", "R"]

[[links]]
between = ["R", "P"]

[[apps]]
name = "c"
node = "C"
kind = "consumer"
prefix = "/p"
controller = "{controller}"
{consumer}
[[apps]]
name = "p"
node = "P"
kind = "producer"
prefix = "/p"
payload = "{payload}"
"""


def line(
    scheme: str, payload: str, router: str = "", overhead: str = "0B", rate: int = 2000
) -> ndncc.Scenario:
    controller, consumer = {
        "mircc": ("mircc", ""),
        # sf's consumer starts at 2 000/s, below its line rate (2 500/s of 500 B): any
        # refusal on the idle path is the routers'
        "sf": ("sf-aimd", f"rate = {rate}\n"),
    }[scheme]
    text = LINE.format(
        scheme=scheme,
        router=router,
        controller=controller,
        consumer=consumer,
        payload=payload,
        overhead=overhead,
    )
    return ndncc.Scenario.from_toml_str(text)


def data_sizes(s: ndncc.Scenario, scheme: str) -> set:
    return {n["schemes"][scheme]["data_size"] for n in s.resolve()["nodes"]}


def test_the_default_data_size_is_what_the_producers_send():
    # payload + [packets] data_overhead, at every node running the scheme
    assert data_sizes(line("mircc", "500B"), "mircc") == {500}
    assert data_sizes(line("sf", "1000B", overhead="54B", rate=1000), "sf") == {1054}
    assert not line("mircc", "500B").warnings


def test_mircc_fills_a_link_whatever_the_payload():
    # 500-byte Data on 10 Mbps: C = 2 500 Data/s. With the old fixed 1250 B, MIRCC counted
    # C = 1 000/s and filled 40 % of the link.
    r = ndncc.run(line("mircc", "500B"))
    assert r.summary["apps"][0]["throughput_mbps"] > 9.0
    fixed = ndncc.run(line("mircc", "500B", 'data_size = "1250B"'))
    assert fixed.summary["apps"][0]["throughput_mbps"] < 4.5


def test_sf_does_not_nack_on_an_idle_path_whatever_the_payload():
    r = ndncc.run(line("sf", "500B"))
    app = r.summary["apps"][0]
    assert app["nacks_received"] == 0
    assert app["throughput_mbps"] > 9.0


def test_an_explicit_size_wins_and_is_flagged_when_no_producer_sends_it():
    s = line("mircc", "500B", 'data_size = "1250B"')
    assert data_sizes(s, "mircc") == {1250}
    (w,) = s.warnings
    assert w.key == "defaults.node.schemes.mircc.data_size"
    assert "1250B" in w.problem and "500B" in w.problem and "under-used" in w.problem
    assert not line("mircc", "500B", 'data_size = "500B"').warnings


def test_producers_of_different_sizes_give_the_largest_with_a_warning():
    s = line("sf", "500B")
    data = s.data
    data["apps"].append({"name": "p2", "node": "P", "kind": "producer", "prefix": "/q"})
    data["apps"][-1]["payload"] = "800B"
    s = ndncc.Scenario.from_dict(data)
    assert data_sizes(s, "sf") == {800}
    (w,) = s.warnings
    assert "500B, 800B" in w.problem and "the largest" in w.problem


def test_a_node_table_size_is_reported_where_it_is_written():
    s = line("mircc", "500B")
    data = s.data
    data["nodes"] = {"R": {"schemes": {"mircc": {"data_size": "400B"}}}}
    s = ndncc.Scenario.from_dict(data)
    keys = [w.key for w in s.warnings]
    assert keys == ["nodes.R.schemes.mircc.data_size"]
    assert "over-filled" in s.warnings[0].problem


@pytest.mark.parametrize("value", ["producer", "big", -5])
def test_a_wrong_data_size_is_refused_with_the_word(value):
    s = line("mircc", "500B", f"data_size = {value!r}".replace("'", '"'))
    with pytest.raises(ndncc.ScenarioError) as err:
        s.resolve()
    text = str(err.value)
    assert "data_size" in text and '"producers"' in text
