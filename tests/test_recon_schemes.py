"""Our reconstructions of CoopCon and FleCom (docs/schemes/coopcon-recon.md, flecom-recon.md)
in seed 004's scenarios, 3 s runs: each does what its reconstructed mechanism promises.

* CoopCon: routers divert traffic only under severe congestion (a congestion the consumers'
  rate adaptation does not clear: here a consumer deaf to marks), and the optimal path keeps
  most of it; with its own consumers nothing moves.
* FleCom: with no alternative next hop (the dumbbell) a router shapes Interests; with one
  (multipath 1) it moves traffic to it."""

from __future__ import annotations

import pytest
from ndncc.experiments import sieve, sieve_recon_rows
from ndncc.sweep import Job, run_job

pytestmark = pytest.mark.skipif(
    not sieve_recon_rows.available(), reason="the reconstructions are not in the registry"
)
KEEP = ("series", "face_series", "delays")


def run(scen: str, name: str, deaf: bool = False):
    """Reconstruction `name` in scenario `scen` for 3 s; `deaf`: the consumers send a constant
    1 800 Interests/s (≈ 15 Mbit/s of Data), deaf to marks."""
    ov = sieve.overrides(scen, {"recon": name}, quick=True)
    ov["scenario.duration"] = "3s"
    if deaf:
        for a in sieve.CONSUMERS[scen]:
            ov[f"apps[{a}].controller"] = "constant-rate"
            ov[f"apps[{a}].rate"] = 1800
    path = sieve.scenario_root() / sieve.PAPER / sieve.SCENARIOS[scen]
    return run_job(Job(f"{scen}/{name}", str(path), ov, keep=KEEP))


def test_coopcon_recon_diverts_only_under_severe_congestion_keeping_the_optimal_path():
    own = run("multipath 1", "coopcon-recon")
    assert sieve.r3_share(own, 0.0) == 0.0, "its consumers keep the congestion mild"
    assert sieve.drops(own) == 0
    deaf = run("multipath 1", "coopcon-recon", deaf=True)
    share = sieve.r3_share(deaf, 0.0)
    # d ≤ d_max = 0.5: the optimal path (R2) keeps at least half
    assert 0.1 < share < 0.5, share


def test_flecom_recon_shapes_without_an_alternative_and_moves_traffic_with_one():
    db = run("dumbbell", "flecom-recon")
    f = db.frames["face_series"]
    r1 = f[(f["node_name"] == "R1") & (f["peer_name"] == "R2")]
    rates = r1["scheme_shaping_rate"].dropna()
    assert len(rates) > 0 and (rates > 0).all(), "R1 shaped its Interests towards R2"
    assert sieve.drops(db) == 0
    # R1 in the dumbbell has one next hop: it never had a ratio to move
    assert r1["scheme_ratio"].dropna().eq(1.0).all()
    m1 = run("multipath 1", "flecom-recon", deaf=True)
    assert sieve.r3_share(m1, 0.0) > 0.1
