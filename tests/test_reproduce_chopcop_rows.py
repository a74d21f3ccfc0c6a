"""Seed 001's rows read each run's own parameters: FISP's γ of the run (its override, its
scenario file's, else the router part's default), and the data one completion delivers (a
chunk of 32 segments, or one segment when the run asks one per Interest)."""

from __future__ import annotations

import pandas as pd
import pytest
from ndncc.experiments import chopcop as C
from ndncc.sweep import Outcome


def _face(q_d: float, owed: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "time_s": [1.0, 2.0],
            "node_name": ["B", "B"],
            "peer_name": ["C", "C"],
            "queue_bytes": [q_d, q_d],
            "scheme_fisp_owed": [owed, owed],
        }
    )


def _outcome(overrides=None, source=None) -> Outcome:
    summary = {"source": source} if source else {}
    return Outcome("x", summary, {"face_series": _face(300_000, 400_000)}, overrides or {})


def test_fisp_q_reads_the_runs_gamma():
    """Q = q_d + γ·q_i with the γ of the run: 300 KB + γ × 400 KB."""
    assert C.fisp_q_kb(_outcome(), "B", "C", 0, 5) == pytest.approx(500)  # the part's ½
    o = _outcome({C.GAMMA_KEY: 0.25})
    assert C.fisp_gamma(o, "B") == 0.25
    assert C.fisp_q_kb(o, "B", "C", 0, 5) == pytest.approx(400)
    # a node's own value before the defaults'
    o = _outcome({C.GAMMA_KEY: 0.25, "nodes.B.schemes.chopcop.gamma": 1.0})
    assert C.fisp_q_kb(o, "B", "C", 0, 5) == pytest.approx(700)


def test_fisp_gamma_from_the_scenario_file(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("[defaults.node.schemes.chopcop]\ngamma = 0.1\n")
    assert C.fisp_gamma(_outcome(source=str(path)), "B") == pytest.approx(0.1)
    assert C.fisp_gamma(_outcome({C.GAMMA_KEY: 0.7}, str(path)), "B") == pytest.approx(0.7)


def test_a_completion_delivers_a_chunk_or_a_segment():
    """Throughput counts each completion's data: 32 × 1 KB, or 1 KB when the run asks one
    segment per Interest (ICP's "segment Interests")."""
    delays = pd.DataFrame({"app_name": ["f"] * 10, "time_s": [0.1 * i for i in range(1, 11)]})
    chunks = Outcome("c", {}, {"delays": delays})
    segments = Outcome("s", {}, {"delays": delays}, {"apps[f].chunk_segments": 1})
    assert C.goodput(chunks, "f", 0, 1) == pytest.approx(10 * 32 * 1024 * 8 / 1e6)
    assert C.goodput(segments, "f", 0, 1) == pytest.approx(10 * 1024 * 8 / 1e6)
    assert C.transfer_goodput(segments, "f") == pytest.approx(10 * 1024 * 8 / 1e6)


def test_chunks_before_overflow_is_the_queues_filling():
    """Table I without FISP above the link: B's 1 500 KB queue (1 464.8 Data of 1 024 B) takes
    chunks whole until it first overflows: e = 32 − r/CIR segments a chunk (r = 40 Mbit/s /
    (8 × 1 024 B) = 4 882.8 Data/s), a chunk's burst b = 32 × (1 − 40/200) = 25.6 segments
    above the level, (N − b)/e chunks; the simulator gives 971 and 190 (docs/schemes/chopcop.md),
    595 with 30 B of header (594.4 here) (Data of 1 054 B)."""
    q = {"bytes": 1_500_000}
    assert C.chunks_before_overflow(q, 1024, 40e6, 200e6, 160) == pytest.approx(970.87, abs=0.01)
    assert C.chunks_before_overflow(q, 1024, 40e6, 200e6, 200) == pytest.approx(189.73, abs=0.01)
    assert C.chunks_before_overflow(q, 1054, 40e6, 200e6, 160) == pytest.approx(594.44, abs=0.01)
    # a queue in packets counts Data, whatever their size
    assert C.chunks_before_overflow({"packets": 1500}, 1024, 40e6, 200e6, 160) == pytest.approx(
        (1500 - 25.6) / (32 - 40e6 / 8192 / 160)
    )
    # a slower upstream spreads a chunk: a smaller burst, more chunks before the overflow
    assert C.chunks_before_overflow(q, 1024, 40e6, 50e6, 160) == pytest.approx(983.8, abs=0.1)
    # below the link's chunk rate (152.6/s) the queue never overflows
    assert C.chunks_before_overflow(q, 1024, 40e6, 200e6, 140) == float("inf")


def test_chunks_before_overflow_reads_the_runs_settings(tmp_path):
    """The run's B→C queue (queue_ab before queue, the override before the file), link rates
    and the Data's wire size as B sent them to C."""
    path = tmp_path / "s.toml"
    path.write_text(
        '[[links]]\nbetween = ["A", "B"]\nbandwidth = "200Mbps"\ndelay = "1ms"\nqueue = "1MB"\n'
        '[[links]]\nbetween = ["B", "C"]\nbandwidth = "40Mbps"\ndelay = "1ms"\nqueue = "1MB"\n'
        'queue_ab = "1500KB"\n'
    )
    face = {"node": "B", "peer": "C", "out_data": 100, "out_data_bytes": 105_400}
    summary = {"source": str(path), "faces": [face]}
    want, s = C.run_chunks_before_overflow(Outcome("x", summary, {}), 160)
    assert s["queue"] == {"bytes": 1_500_000} and s["wire_bytes"] == pytest.approx(1054)
    assert (s["rate_bps"], s["upstream_bps"]) == (40_000_000, 200_000_000)
    assert want == pytest.approx(594.44, abs=0.01)
    ov = {"links[1].queue_ab": "1500p", "links[0].bandwidth": "50Mbps"}
    _, s = C.run_chunks_before_overflow(Outcome("x", summary, {}, ov), 160)
    assert s["queue"] == {"packets": 1500} and s["upstream_bps"] == 50_000_000
