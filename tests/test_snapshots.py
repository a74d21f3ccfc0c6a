"""Whole-scenario snapshots: a small grid (scheme × engine × topology) whose summary figures
are kept in tests/snapshots/, so any change of behaviour is a reviewable diff.

Regenerate after an intended change with ``NDNCC_UPDATE_SNAPSHOTS=1 pytest tests/test_snapshots.py``
and review the diff of tests/snapshots/*.json. The snapshots hold simulation outputs only
(counts, throughputs, delays), never the resolved scenario, so renaming configuration keys does
not touch them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import ndncc
import pytest

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("NDNCC_UPDATE_SNAPSHOTS") == "1"

SCHEMES = {
    # controller line of every consumer, and the routers' scheme table
    "none": ('controller = "constant-rate"\nrate = 700\n', ""),
    "sf": (
        'controller = "sf-aimd"\nrate = 200\n',
        "[defaults.node.schemes.sf]\ndepth = 50\nper_face = true\nper_fib = true\n"
        'data_size = "1250B"\n',
    ),
    "mircc": (
        'controller = "mircc"\nrate = 1000\n',
        '[defaults.node.schemes.mircc]\ninterval = "100ms"\ndata_size = "1250B"\n',
    ),
}
ENGINES = {
    "ideal": 'engine = "ideal"\n',
    "tick-smoothing": 'engine = "tick"\ntick = "20ms"\nsmoothing = true\n',
}
# (consumer node, producer node) pairs and the links: every link 10 Mbps / 10 ms, but the
# dumbbell's access links (100 Mbps), so R1–R2 is the bottleneck
TOPOLOGIES = {
    "linear": ([("C", "P")], [("C", "R1"), ("R1", "R2"), ("R2", "P")]),
    "dumbbell": (
        [("C1", "P1"), ("C2", "P2")],
        [("C1", "R1"), ("C2", "R1"), ("R1", "R2"), ("R2", "P1"), ("R2", "P2")],
    ),
}
CASES = [f"{s}-{e}-{t}" for s in SCHEMES for e in ENGINES for t in TOPOLOGIES]


def scenario(case: str) -> str:
    scheme, rest = case.split("-", 1)
    engine, topology = rest.rsplit("-", 1)
    controller, routers = SCHEMES[scheme]
    pairs, links = TOPOLOGIES[topology]
    text = f'[scenario]\nname = "{case}"\nduration = "2s"\nseed = 7\n\n'
    text += '[defaults.link]\nbandwidth = "10Mbps"\ndelay = "10ms"\nqueue = "50p"\n\n' + routers
    for a, b in links:
        fast = topology == "dumbbell" and "R1" in (a, b) and "R2" not in (a, b)
        fast |= topology == "dumbbell" and "R2" in (a, b) and "R1" not in (a, b)
        text += f'\n[[links]]\nbetween = ["{a}", "{b}"]\n' + (
            'bandwidth = "100Mbps"\n' if fast else ""
        )
    for i, (c, p) in enumerate(pairs):
        text += f'\n[[apps]]\nname = "c{i}"\nnode = "{c}"\nkind = "consumer"\nprefix = "/p{i}"\n'
        text += controller + ENGINES[engine] + f'start = "{0.3 * i}s"\n'
        text += f'\n[[apps]]\nname = "p{i}"\nnode = "{p}"\nkind = "producer"\nprefix = "/p{i}"\n'
        text += 'payload = "1250B"\n'
    return text + "\n[trace]\nfigures = false\nparquet = false\n"


def rounded(x):
    if isinstance(x, float):
        return float(f"{x:.9g}")
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [rounded(v) for v in x]
    return x


def outputs(summary: dict) -> dict:
    """The simulation outputs of a run: per consumer and producer counts, throughput, delays;
    per face traffic, drops and queues; totals."""
    apps = [{k: v for k, v in a.items() if k not in ("node", "prefix")} for a in summary["apps"]]
    faces = [
        {
            k: f[k]
            for k in (
                "node",
                "peer",
                "in_interests",
                "out_interests",
                "in_data",
                "out_data",
                "in_nacks",
                "out_nacks",
                "drops",
                "max_queue_pkts",
            )
        }
        for f in summary["faces"]
        if f["peer"] is not None
    ]
    return rounded(
        {
            "events": summary["events"],
            "packet_hops": summary["packet_hops"],
            "fairness_jain": summary["fairness_jain"],
            "apps": apps,
            "producers": summary["producers"],
            "faces": faces,
        }
    )


@pytest.mark.parametrize("case", CASES)
def test_scenario_snapshot(case, tmp_path):
    path = tmp_path / f"{case}.toml"
    path.write_text(scenario(case))
    got = outputs(ndncc.run(path).summary)
    snap = SNAPSHOTS / f"{case}.json"
    text = json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if UPDATE:
        snap.write_text(text, encoding="utf-8")
        return
    assert snap.is_file(), f"{snap} missing: run with NDNCC_UPDATE_SNAPSHOTS=1 and review it"
    want = json.loads(snap.read_text(encoding="utf-8"))
    assert got == want, (
        f"{case}: the run's outputs differ from {snap.name}; if the change is intended, "
        "regenerate with NDNCC_UPDATE_SNAPSHOTS=1 and review the diff"
    )


def test_the_grid_covers_every_scheme_engine_and_topology():
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.json")) == sorted(CASES)
