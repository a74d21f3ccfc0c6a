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


def test_staggered_dumbbell_starts_each_consumer_within_its_first_gap():
    pairs = 40
    gap_ns = 1e9 * pairs / 9000
    plain = workloads.dumbbell(pairs).resolve()
    a = workloads.dumbbell(pairs, stagger=True).resolve()
    assert a == workloads.dumbbell(pairs, stagger=True).resolve(), "deterministic"
    starts = [x["start_ns"] for x in a["apps"] if x["app"]["kind"] == "consumer"]
    assert len(set(starts)) == pairs and all(0 <= s < gap_ns for s in starts)
    # spread over the gap, not bunched at one end (40 uniform draws: mean within 0.3–0.7)
    assert 0.3 * gap_ns < sum(starts) / pairs < 0.7 * gap_ns
    assert {x["start_ns"] for x in plain["apps"]} == {0}, "unstaggered: all at t = 0"
    other = workloads.dumbbell(pairs, stagger=True, seed=2).resolve()
    assert [x["start_ns"] for x in other["apps"] if x["app"]["kind"] == "consumer"] != starts
    producers = [x["start_ns"] for x in a["apps"] if x["app"]["kind"] == "producer"]
    assert set(producers) == {0}, "producers are up from the start"


def test_bench_accepts_generated_names_and_refuses_others(tmp_path):
    for name in ("scale-7", "scale-7-staggered", "isp-5", "scale-10000-staggered"):
        assert bench.known(name), name
        assert bench.describe(name)
    for name in ("scale-0", "scale-x", "scale-7-stagger", "isp-", "nothing"):
        assert not bench.known(name), name
    # sizes up to MAX_GENERATED; staggered starts only for the dumbbell
    assert bench.generated(f"scale-{bench.MAX_GENERATED}") == ("scale", bench.MAX_GENERATED, False)
    for name in (f"scale-{bench.MAX_GENERATED + 1}", "isp-5-staggered"):
        assert not bench.known(name), name
    spec = bench.scenario("scale-7-staggered", tmp_path).resolve()
    assert len({a["start_ns"] for a in spec["apps"]}) > 2
    assert "random offset" in bench.describe("scale-7-staggered")
    out = subprocess.run(
        [sys.executable, "-m", "ndncc", "bench", "--workload", "scale-x"],
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0 and "unknown workload 'scale-x'" in out.stderr
    assert "Traceback" not in out.stderr


def bench_row(events_per_s, loop_events_per_s):
    """One workload's figures as `ndncc bench --json` gives them (the rest made up)."""
    return {
        "resolve_s": 0.1,
        "wall_s": 0.2,
        "events": 1000,
        "events_per_s": events_per_s,
        "loop_s": 0.1,
        "loop_events_per_s": loop_events_per_s,
        "packet_hops_per_s": 1.0,
        "process_s": 0.3,
        "peak_rss_mb": 30.0,
    }


def test_bench_markdown_tables_order_sizes_and_divide_by_scale_10(tmp_path):
    """`benches/markdown.py` (the README's tables): a family's sizes in numeric order, and each
    scale-N's share of scale-10's events/s, whole call and loop alone."""
    from pathlib import Path

    data = {
        "scale-1000": bench_row(3e6, 2e6),
        "scale-10": bench_row(4e6, 5e6),
        "scale-100": bench_row(2e6, 4e6),
    }
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(data))
    script = Path(__file__).resolve().parent.parent / "benches" / "markdown.py"
    out = subprocess.run(
        [sys.executable, str(script), str(path)], capture_output=True, text=True, check=True
    ).stdout
    names = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| scale")]
    assert names[:3] == ["scale-10", "scale-100", "scale-1000"]
    assert "| scale-100 | 50 % | 80 % |" in out
    assert "| scale-1000 | 75 % | 40 % |" in out
    bad = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "cannot read" in bad.stderr and not bad.stdout


def test_cachesim_picks_ways_that_give_a_power_of_two_of_sets():
    """`benches/cachesim.py`: valgrind's LL needs a power-of-two number of sets."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benches" / "cachesim.py"
    spec = importlib.util.spec_from_file_location("cachesim", path)
    cachesim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cachesim)
    for mib, ways in [(16, 16), (32, 16), (40, 20), (48, 24), (64, 16), (96, 24)]:
        size = mib << 20
        assert cachesim.associativity(size) == ways, mib
        sets = size // 64 // ways
        assert sets & (sets - 1) == 0
    # and its table gives each count per event
    row = {"mib": 32, "ways": 16, "events": 200, "Ir": 400_000, "D1mr": 3000, "DLmr": 50}
    lines = cachesim.table("scale-7", [{**row, "DLmw": 20}])
    assert lines[0] == "scale-7: the loop, 200 events (400,000 instructions)"
    assert lines[-1] == "| 32 | 16 | 2000 | 15.00 | 0.250 | 0.100 |"


def test_bench_table_shows_each_scale_against_scale_10():
    """`ndncc bench`'s table ends with each scale-N's events/s as a share of scale-10's (whole
    call, and the loop alone); without scale-10 there is nothing to divide by."""
    import io

    from rich.console import Console

    results = {
        "scale-10": bench_row(4e6, 5e6),
        "scale-10000": bench_row(1e6, 2.5e6),
        "isp-2000": bench_row(1, 1),
    }
    assert bench.shares(results) == {"scale-10000": (0.25, 0.5)}
    assert bench.shares({"scale-10000": bench_row(1e6, 2.5e6)}) == {}
    out = io.StringIO()
    bench.print_table(Console(file=out, width=200), results)
    text = out.getvalue()
    assert "scale-10000 against scale-10: 25% of its events/s (50% in the loop alone)" in text
    assert "isp-2000 against" not in text
