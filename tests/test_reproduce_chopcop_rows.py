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
