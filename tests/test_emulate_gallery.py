"""docs/emulate/README.md's tables (``ndncc.emulate.gallery``) from stored summaries: no real
run. Hand-made summaries with known figures, and the committed README against its folders."""

from __future__ import annotations

import json
from pathlib import Path

from ndncc.emulate import gallery
from ndncc.emulate.gallery import path_split, readme

ROOT = Path(__file__).resolve().parents[1]


def _face(node, fid, peer, **kw) -> dict:
    base = {"node": node, "face": fid, "peer": peer, "drops": 0, "drop_bytes": 0, "marks": 0}
    return {**base, **kw}


def _sim() -> dict:
    return {
        "apps": [
            {
                "name": "c1",
                "throughput_mbps": 8.0,
                "data_received": 8000,
                "nacks_received": 0,
                "timeouts": 2,
                "interests_sent": 8010,
            },
        ],
        "faces": [
            _face("R1", 257, "C1", marks=40, out_interests=0, in_data=0),
            _face("R1", 258, "R2", out_interests=600, in_data=590),
            _face("R1", 259, "R3", out_interests=200, in_data=200),
            _face("R2", 258, "P1", drops=10, drop_bytes=10240, out_interests=0),
        ],
    }


def _real(sdn: bool = True) -> dict:
    r1 = {"sdn": {"interests_out_by_face": {"258": 300, "259": 300}}} if sdn else {}
    return {
        "apps": [
            {
                "name": "c1",
                "throughput_model_mbps": 6.0,
                "throughput_mbps": 6.1,
                "data_received": 6000,
                "nacks_received": 3,
                "timeouts": 5,
                "interests_sent": 6100,
            },
        ],
        "faces": [
            _face("R1", 257, "C1", marks=50),
            _face("R1", 258, "R2"),
            _face("R1", 259, "R3"),
            _face("R2", 258, "P1", drops=15, drop_bytes=15360),
        ],
        "nodes": {"R1": r1},
        "mode": "netns",
        "scheduling": "SCHED_FIFO 10",
        "wall_time_s": 14.2,
        "load_average_before": [1.25, 1.0, 0.9],
        "load_average_after": [1.75, 1.1, 0.9],
        "cpu_count": 2,
        "git_commit": "abc",
    }


def _store(d: Path, sim: dict, real: dict) -> None:
    d.mkdir(parents=True)
    (d / "sim-summary.json").write_text(json.dumps(sim), encoding="utf-8")
    (d / "summary.json").write_text(json.dumps(real), encoding="utf-8")
    (d / "command.txt").write_text("ndncc emulate scenarios/x.toml --mode netns\n")


def test_scenario_tables_from_stored_summaries(tmp_path):
    _store(tmp_path / "sieve-multipath-1", _sim(), _real())
    text = readme(tmp_path)
    # per consumer: throughput, relative difference (6 − 8) / 8, Data, Nacks, timeouts
    assert "| c1 | 8.000 | 6.000 | -25.0 % | 8000 | 6000 | 0 | 3 | 2 | 5 |" in text
    # drops and marks per face and in total
    assert "| R2 → P1 | 10 | 15 | +50.0 % | 0 | 0 | — |" in text
    assert "| R1 → C1 | 0 | 0 | — | 40 | 50 | +25.0 % |" in text
    assert "| all faces | 10 | 15 | +50.0 % | 40 | 50 | +25.0 % |" in text
    # path split at R1: the simulator's 600/200, the real daemon's 300/300 (by face id)
    assert "| R1 → R2 | 600 | 300 | -50.0 % | 75.0 % | 50.0 % | 590 | — |" in text
    assert "| R1 → R3 | 200 | 300 | +50.0 % | 25.0 % | 50.0 % | 200 | — |" in text
    assert "load average before 1.25, after 1.75" in text
    assert "`ndncc emulate scenarios/x.toml --mode netns`" in text
    # the other scenarios have no folder here
    assert text.count("No stored run.") == len(gallery.SCENARIOS) - 1


def test_path_split_real_interests_not_measured_without_sdn_report():
    hops = path_split(_sim(), _real(sdn=False), "R1")
    assert [(h["next_hop"], h["sim_interests"], h["real_interests"]) for h in hops] == [
        ("R2", 600, None),
        ("R3", 200, None),
    ]


def test_path_split_from_the_daemons_face_counters():
    """ndnccd's per-face packet counts are the real path split, Interests and Data; they take
    precedence over ndnSieve's own count."""
    real = _real()
    counts = {257: (0, 0), 258: (500, 480), 259: (100, 90)}
    for f in real["faces"]:
        if f["node"] == "R1":
            f["out_interests"], f["in_data"] = counts[f["face"]]
    hops = path_split(_sim(), real, "R1")
    assert [(h["next_hop"], h["real_interests"], h["real_data"]) for h in hops] == [
        ("R2", 500, 480),
        ("R3", 100, 90),
    ]


def test_failed_run_shows_its_error(tmp_path):
    d = tmp_path / "chopcop-baseline"
    d.mkdir()
    (d / "error.txt").write_text("exit 3\ncannot emulate: something\n")
    text = readme(tmp_path)
    assert "cannot emulate: something" in text
    assert "Not run to the end" in text


def test_committed_readme_is_written_from_its_folders():
    here = ROOT / "docs" / "emulate"
    assert (here / "README.md").read_text(encoding="utf-8") == readme(here)
