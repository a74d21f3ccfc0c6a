"""Chunked fetch through the simulator: chunks of 32 segments over a lossy link all complete."""

import ndncc
import pytest
from ndncc.scenario import Scenario, ScenarioError

LOSSY = """
[scenario]
duration = "5s"
seed = 3
[[links]]
between = ["C", "R"]
bandwidth = "10Mbps"
delay = "10ms"
[[links]]
between = ["R", "P"]
bandwidth = "10Mbps"
delay = "10ms"
loss = 0.02
[[apps]]
node = "P"
kind = "producer"
prefix = "/p"
payload = "1000B"
[[apps]]
node = "C"
kind = "consumer"
prefix = "/p"
controller = "fixed-window"
window = 2
chunk_segments = 32
max_seq = 40
retransmit = "timeout"
timeout = "200ms"
"""


def test_every_chunk_completes_over_a_lossy_link():
    r = ndncc.run(Scenario.from_toml_str(LOSSY))
    app = r.summary["apps"][0]
    assert r.summary["link_losses"] > 0
    assert app["timeouts"] > 0 and app["retransmissions"] > 0
    assert app["data_received"] == 40 * 32  # every segment of every chunk, once
    assert len(r.delays) == 40  # one completion per chunk
    # re-asks fetch the missing segments only: segments sent = delivered + lost on the way
    sent = r.summary["producers"][0]["data_sent"]
    assert sent - app["data_received"] <= r.summary["link_losses"]


def test_chunk_segments_is_checked():
    bad = LOSSY.replace("chunk_segments = 32", "chunk_segments = 65")
    with pytest.raises(ScenarioError, match="chunk_segments: must be at most 64"):
        Scenario.from_toml_str(bad).resolve()
