"""The generated benchmark workloads (ndncc.workloads) and the bench worker."""

import json
import subprocess
import sys

from ndncc import bench, workloads
from ndncc.importers import read_ndnsim_topology


def test_dumbbell_is_deterministic_and_shaped():
    a, b = workloads.dumbbell(25), workloads.dumbbell(25)
    assert a.hash() == b.hash()
    spec = a.resolve()
    assert len(spec["nodes"]) == 2 * 25 + 2 and len(spec["links"]) == 2 * 25 + 1
    rates = [x["app"]["controller"]["rate"] for x in spec["apps"] if x["app"]["kind"] == "consumer"]
    assert rates == [9000 / 25] * 25
    assert spec["apps"][0]["app"]["engine"] == {"type": "randomized", "dist": "uniform"}


def test_isp_map_is_a_rocketfuel_style_ndnsim_file(tmp_path):
    scenario = workloads.isp(30, directory=tmp_path)
    topo = read_ndnsim_topology(tmp_path / "isp-rocketfuel.txt")
    assert len(topo.nodes) == 400 and len(topo.links) > 400
    assert workloads.rocketfuel_text(seed=3) == workloads.rocketfuel_text(seed=3)
    assert workloads.rocketfuel_text(seed=3) != workloads.rocketfuel_text(seed=4)
    spec = scenario.resolve()
    consumers = [a for a in spec["apps"] if a["app"]["kind"] == "consumer"]
    assert len(consumers) == 30
    assert all(spec["nodes"][a["node"]]["name"].startswith("leaf") for a in spec["apps"])


def test_bench_knows_the_generated_workloads(tmp_path):
    assert {"scale-10", "scale-1000", "scale-10000", "isp-2000"} <= set(bench.WORKLOADS)
    assert len(bench.scenario("scale-7", tmp_path).resolve()["apps"]) == 14
    assert len(bench.scenario("isp-5", tmp_path).resolve()["apps"]) == 10


def test_bench_worker_reports_resolve_and_simulation():
    out = subprocess.run(
        [sys.executable, "-m", "ndncc.bench", "scale-10"],
        capture_output=True,
        text=True,
        check=True,
    )
    r = json.loads(out.stdout)
    for key in ("resolve_s", "wall_s", "cpu_s", "events", "events_per_s", "peak_rss_mb"):
        assert r[key] > 0, key
    assert r["sim_time_s"] == 5.0
