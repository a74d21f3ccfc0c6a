"""Claim-map workloads of ``ndncc bench`` (map-PAPER-N): the names, the errors, one real run."""

import json
import subprocess
import sys

import pytest
from ndncc import bench
from ndncc.cli import main


def test_map_names_parse():
    assert bench.map_workload("map-toy-4") == ("toy", 4)
    assert bench.map_workload("map-sieve-64") == ("sieve", 64)
    assert bench.map_workload("map-mircc-clock-8") == ("mircc-clock", 8)
    assert bench.map_workload("scale-10") is None
    assert bench.known("map-sf-clock-1") and bench.known("map-chopcop-64")
    assert set(bench.map_papers()) == {"toy", "sieve", "chopcop", "mircc-clock", "sf-clock"}
    # claim maps are not simulator workloads: never in the default list
    assert not any(n.startswith("map-") for n in bench.WORKLOADS)


@pytest.mark.parametrize(
    "name, problem",
    [
        ("map-nosuch-4", "no claim map for paper 'nosuch'"),
        ("map-toy-0", "N (design points) must be a whole number from 1 to"),
        ("map-toy-100001", "N (design points) must be a whole number from 1 to"),
        ("map-toy-x", "N (design points) must be a whole number"),
        ("map-toy-", "N (design points) must be a whole number"),
        ("map-toy", "map-PAPER-N"),
        ("map-", "map-PAPER-N"),
    ],
)
def test_bad_map_names_are_refused_in_one_line(name, problem, capsys):
    with pytest.raises(ValueError, match="^'?" + name):
        bench.map_workload(name)
    assert not bench.known(name)
    assert main(["bench", "--workload", name]) == 3
    err = capsys.readouterr().err.strip()
    assert problem in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_jobs_is_for_claim_maps_only(capsys):
    assert main(["bench", "--workload", "scale-10", "--jobs", "2"]) == 3
    assert "--jobs applies to claim-map workloads" in capsys.readouterr().err
    assert main(["bench", "--workload", "map-toy-4", "--jobs", "0"]) == 3
    assert "--jobs must be between 1 and 1024" in capsys.readouterr().err


def test_a_toy_map_bench_reports_its_figures():
    out = subprocess.run(
        [sys.executable, "-m", "ndncc.cli", "bench", "--json", "--workload", "map-toy-4"]
        + ["--jobs", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    r = json.loads(out.stdout)["map-toy-4"]
    assert (r["paper"], r["points"], r["seeds"], r["jobs"], r["repeats"]) == ("toy", 4, 1, 1, 1)
    # the toy's one job at the default point and 4 design points: 5 distinct runs, all run
    # now (a fresh store), 5 (point, seed) pairs evaluated, none failed
    assert (r["runs"], r["runs_done"], r["evaluations"], r["failed_runs"]) == (5, 5, 5, 0)
    assert r["claims"] >= 1
    for key in ("wall_s", "plan_s", "runs_s", "evaluation_s", "figures_s", "process_s"):
        assert r[key] >= 0
    # the stages tile the map; runs/s is runs over the whole map
    parts = r["plan_s"] + r["runs_s"] + r["evaluation_s"] + r["figures_s"]
    assert parts == pytest.approx(r["wall_s"])
    assert r["runs_per_s"] == pytest.approx(r["runs"] / r["wall_s"])
    assert r["peak_rss_mb"] > 0 and r["workers_peak_rss_mb"] >= 0


def test_the_bench_table_prints_a_map(capsys):
    from rich.console import Console

    r = {
        "paper": "toy", "points": 4, "seeds": 1, "jobs": None, "runs": 5, "runs_done": 5,
        "failed_runs": 1, "evaluations": 5, "claims": 1, "wall_s": 2.0, "plan_s": 0.1,
        "runs_s": 1.0, "evaluation_s": 0.4, "figures_s": 0.5, "runs_per_s": 2.5,
        "process_s": 3.0, "peak_rss_mb": 150.0, "workers_peak_rss_mb": 100.0,
    }  # fmt: skip
    bench.print_table(Console(width=200), {"map-toy-4": r})
    out = capsys.readouterr().out
    assert "claim maps" in out and "map-toy-4" in out and "runs/s" in out
    assert "2.50" in out and "1 runs FAILED" in out and "one per core" in out
