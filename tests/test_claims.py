"""Claim maps (docs/unknowns.md): declaring and sampling unknowns, the map's resumption, the
statistics of claims.csv on a toy reproduction whose answer is known in closed form."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from ndncc.claims import toy
from ndncc.claims.claimmap import CLAIM_COLUMNS, wilson, write_claim_map
from ndncc.claims.declared import declaration, paper_module
from ndncc.claims.runmap import run_map
from ndncc.claims.unknowns import (
    Declaration,
    DeclarationError,
    Unknown,
    design,
    latin_hypercube,
)
from ndncc.cli import main
from ndncc.sweep import Job

# ---- the design ------------------------------------------------------------------------------


def test_latin_hypercube_is_reproducible_and_stratified():
    a = latin_hypercube(16, 3, seed=5)
    assert np.array_equal(a, latin_hypercube(16, 3, seed=5))
    assert not np.array_equal(a, latin_hypercube(16, 3, seed=6))
    assert a.shape == (16, 3) and (a >= 0).all() and (a < 1).all()
    for j in range(3):  # one point in each of the 16 strata of every axis
        assert sorted((a[:, j] * 16).astype(int)) == list(range(16))


def test_full_grid_when_the_region_is_small():
    d = Declaration(
        "t",
        [
            Unknown("a", ("x.a",), 1, "image", levels=(1, 2)),
            Unknown("b", ("x.b",), "p", "not printed", levels=("p", "q", "r")),
        ],
    )
    grid = design(d, 8)
    assert len(grid) == 6
    assert {(p.values["a"], p.values["b"]) for p in grid} == {(a, b) for a in (1, 2) for b in "pqr"}
    assert len(design(d, 4)) <= 4  # more combinations than points: sampled, not the grid


def test_values_on_a_log_scale_and_back():
    u = Unknown("w", ("k",), 100.0, "image", lo=10.0, hi=1000.0, scale="log", unit="ms")
    assert u.value(0.5) == pytest.approx(100.0)
    assert u.coordinate(100.0) == pytest.approx(0.5)
    assert u.literal(u.value(0.0)) == "10ms"
    n = Unknown("q", ("k",), 100, "image", lo=30, hi=1000, scale="log", integer=True)
    assert isinstance(n.value(0.3), int)


@pytest.mark.parametrize(
    "kw, problem",
    [
        (dict(lo=1.0, hi=2.0, default=3.0), "outside"),
        (dict(lo=0.0, hi=2.0, default=1.0, scale="log"), "log scale needs lo > 0"),
        (dict(lo=2.0, hi=1.0, default=1.5), "lo < hi"),
        (dict(levels=(1, 2), default=3), "not a level"),
        (dict(lo=1.0, hi=2.0, default=1.5, scale="cubic"), "scale must be"),
    ],
)
def test_bad_declarations_are_refused(kw, problem):
    default = kw.pop("default")
    with pytest.raises(DeclarationError, match=problem):
        Unknown("u", ("k",), default, "image", **kw)


def test_an_unknown_leaves_alone_what_a_job_removes():
    u = Unknown("th1", ("defaults.node.schemes.sieve.th1", "x.y"), 0.9, "image", lo=0.5, hi=1.0)
    pcon = Job("pcon", "s.toml", {"defaults.node.schemes.sieve": None})
    sieve = Job("sieve", "s.toml", {"defaults.node.schemes.sieve": {"th2": 0.3}})
    assert u.overrides(pcon, 0.7) == {"x.y": 0.7}
    assert u.overrides(sieve, 0.7) == {"defaults.node.schemes.sieve.th1": 0.7, "x.y": 0.7}
    d = Declaration("t", [u])
    ov = d.overrides(sieve, d.default_point())
    # the unknown's key comes after the table that holds it, so the table cannot erase it
    assert list(ov).index("defaults.node.schemes.sieve.th1") > list(ov).index(
        "defaults.node.schemes.sieve"
    )
    # also when the job sets the key itself before that table (the unknown's value wins)
    d2 = Declaration(
        "t", [Unknown("b", ("a.b",), 1, "image", lo=0, hi=2, apply=lambda j, v: {"a.b": v})]
    )
    job = Job("j", "s.toml", {"a.b": 5, "a": {"c": 2}})
    assert list(d2.overrides(job, d2.default_point()).items()) == [("a", {"c": 2}), ("a.b", 1)]


# ---- statistics ------------------------------------------------------------------------------


def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    assert all(math.isnan(x) for x in wilson(0, 0))


# ---- the toy map -----------------------------------------------------------------------------

N = 16


def toy_map(out, **kw):
    kw.setdefault("n_jobs", 1)
    return run_map(paper_module("toy"), declaration("toy"), out, points=N, **kw)


def read_claims(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_toy_map_matches_the_closed_form(tmp_path):
    m = toy_map(tmp_path / "map", seeds=2)
    cm = write_claim_map(m)
    rows = read_claims(cm.csv)
    assert list(rows[0]) == CLAIM_COLUMNS
    # one claim: the reported row ("Interests sent", n/a) is not a claim
    assert len(rows) == 1
    r = rows[0]
    # throughput = rate × 8 000 bit/s less the Interests in flight at the end: the claim
    # "≥ 8 Mbit/s" holds for rate ≥ 1 000/s (+ < 1/s), so on (hi − 1000)/(hi − lo) of the
    # range; a Latin hypercube of N points puts one point in each 1/N of it
    exact = (toy.RATE_HI - toy.CLAIM_MBPS / 0.008) / (toy.RATE_HI - toy.RATE_LO)
    assert abs(float(r["fraction"]) - exact) <= 1 / N + 1e-3
    # exactly: the points of the strata above the boundary's, and maybe the one in it
    k = float(r["fraction"]) * N
    assert abs(k - round(k)) < 1e-6 and round(k) in (math.floor(N * exact), math.ceil(N * exact))
    assert float(r["ci_low"]) < float(r["fraction"]) < float(r["ci_high"])
    assert int(r["evaluated"]) == 2 * N
    # the default rate (1 000/s) leaves the last Interests in flight: just below 8 Mbit/s
    assert r["holds_at_default"] == "false"
    # the upper half of the rate range holds, the lower half fails: +1; the queue is idle
    assert r["most_influential"] == "rate"
    assert float(r["sensitivity"]) >= 1 - 2 / N
    assert r["second"] == "queue" and abs(float(r["second_sensitivity"])) < 0.5
    assert (cm.csv.parent / r["figure"]).is_file()
    assert cm.counts == {"claims": 1, "at_default": 0, "somewhere": 1, "nowhere": 0}
    md = cm.markdown.read_text(encoding="utf-8")
    assert "Where every claim holds together" in md and "rate" in md


def test_a_map_is_reproducible_from_its_design_seed(tmp_path):
    ma, mb = toy_map(tmp_path / "a"), toy_map(tmp_path / "b")
    a = write_claim_map(ma, figures=False).csv.read_bytes()
    b = write_claim_map(mb, figures=False).csv.read_bytes()
    assert a == b and [p.values for p in ma.points] == [p.values for p in mb.points]
    other = design(declaration("toy"), N, seed=1)
    assert [p.values for p in other] != [p.values for p in ma.points[1:]]


class Stop(Exception):
    pass


def test_an_interrupted_map_recomputes_nothing_that_finished(tmp_path):
    out = tmp_path / "map"
    seen = {}

    def stop_after(stage, n):
        def cb(s, p):
            seen[s] = p.done
            if s == stage and p.done >= n:
                raise Stop

        return cb

    with pytest.raises(Stop):  # killed after 5 runs
        toy_map(out, on_progress=stop_after("runs", 5))
    with pytest.raises(Stop):  # killed again after 4 evaluations
        m = toy_map(out, on_progress=stop_after("evaluation", 4))
    m = toy_map(out)
    assert m.runs == N + 1
    assert m.runs_done_now == 0  # every run was done by the second call
    assert m.evaluated_now == N + 1 - 4
    again = toy_map(out)
    assert again.runs_done_now == 0 and again.evaluated_now == 0
    assert write_claim_map(again, figures=False).counts["claims"] == 1


def test_a_second_call_runs_only_the_new_points(tmp_path):
    out = tmp_path / "map"
    first = run_map(paper_module("toy"), declaration("toy"), out, points=4, n_jobs=1)
    more = run_map(paper_module("toy"), declaration("toy"), out, points=4, seeds=2, n_jobs=1)
    assert first.runs_done_now == 5 and more.runs_done_now == 5  # the second seed only


def test_dask_local_gives_the_same_claims_csv(tmp_path):
    pytest.importorskip("distributed")

    def small(out, **kw):  # 6 points: cheap enough for the default suite
        m = run_map(paper_module("toy"), declaration("toy"), out, points=6, n_jobs=2, **kw)
        return write_claim_map(m, figures=False)

    pool, dask = small(tmp_path / "pool"), small(tmp_path / "dask", dask="local")
    assert len(pool.stats) == 1 and pool.stats[0].evaluated == 6
    assert pool.csv.read_bytes() == dask.csv.read_bytes()


# ---- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, expect",
    [
        (["sieve", "--points", "8"], "--points applies to --unknowns only"),
        (["rmc", "--unknowns"], "'rmc' declares no unknowns"),
        (["toy", "--unknowns", "--points", "0"], "--points must be between 1"),
        (["toy", "--unknowns", "--seeds", "0"], "--seeds must be between 1"),
        (["--all", "--unknowns"], "--unknowns maps one paper at a time"),
    ],
)
def test_bad_map_flags_give_one_line_errors(tmp_path, capsys, args, expect):
    assert main(["reproduce", *args, "--out", str(tmp_path / "o"), "-q"]) == 3
    err = capsys.readouterr().err
    assert expect in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_reproduce_unknowns_writes_the_claim_map(tmp_path, capsys):
    out = tmp_path / "o"
    rc = main(["reproduce", "toy", "--unknowns", "--points", "4", "--jobs", "1", "--out", str(out)])
    assert rc == 0
    said = capsys.readouterr().out
    assert "1 claims: 0 hold at our default, 1 somewhere in the region, 0 nowhere" in said
    assert (out / "claims" / "claims.csv").is_file() and (out / "claims" / "claims.md").is_file()
    # ndncc report shows the map (not the store's runs as a sweep grid)
    assert main(["report", str(out)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Claim map: o" in html and "Data throughput" in html and "<img" in html
    assert "Sweep" not in html


# ---- the declarations ------------------------------------------------------------------------


@pytest.mark.parametrize("paper", ["sieve", "chopcop", "mircc-clock", "sf-clock"])
def test_our_default_point_is_the_reproduction(tmp_path, paper):
    """At our default every job resolves to the very run `ndncc reproduce` makes."""
    from pathlib import Path

    from ndncc.campaign import Planner
    from ndncc.sweepspec import Point

    decl = declaration(paper)
    mod = paper_module(paper)
    planner = Planner(tmp_path, False, None, paper)
    jobs = decl.jobs(False) if decl.jobs else mod.jobs(False)
    default = decl.default_point()
    changed = 0
    sample = design(decl, 2)[0]
    for job in jobs:
        keys = []
        for ov in (job.overrides, decl.overrides(job, default), decl.overrides(job, sample)):
            pt = Point(Path(job.scenario), {}, ov, None, None)
            sc, seed, run = planner.point_scenario(pt)
            keys.append(planner.task(pt, sc, seed, run, parquet=bool(job.keep)).key)
        assert keys[0] == keys[1], job.key
        changed += keys[0] != keys[2]
    assert changed > 0  # and a design point changes some runs


def _finished(out) -> dict[str, tuple[int, int]]:
    """run.json of every finished run and every rows file: (inode, mtime) — a recomputed run
    or evaluation would change both."""
    got = {}
    for d in [*(out / "runs").glob("*/run.json"), *(out / "claims" / "rows").glob("*.json")]:
        try:
            st = d.stat()
        except FileNotFoundError:
            continue
        got[str(d)] = (st.st_ino, st.st_mtime_ns)
    return got


def test_a_killed_map_resumes_without_recomputing(tmp_path):
    """SIGKILL the driver mid-way (runs and evaluations finished, others not), run the map
    again: every finished run and evaluation stays as it was."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ndncc.cli", "reproduce", "toy", "--unknowns", "--points"]
    cmd += ["40", "--jobs", "2", "--out", str(out), "--no-claim-figures", "-q"]
    driver = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300  # a guard against a hang, not a timing assertion
        while len(_finished(out)) < 10:
            assert driver.poll() is None, "the map ended before it could be killed"
            assert time.monotonic() < deadline, "no run finished"
            time.sleep(0.02)
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
        try:
            os.killpg(driver.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    before = _finished(out)
    assert 10 <= len(before)
    assert (
        main(
            [
                "reproduce",
                "toy",
                "--unknowns",
                "--points",
                "40",
                "--jobs",
                "1",
                "--out",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    after = _finished(out)
    assert all(after[k] == v for k, v in before.items())
    assert len(after) > len(before)  # and the rest was done


def test_a_comparison_that_raises_is_recorded_not_fatal(tmp_path):
    """A point where the paper's comparison raises (seed 004's rows divide by a throughput
    that can be 0) is kept as "not evaluated", with where it raised, and not evaluated again."""
    from dataclasses import replace

    decl = replace(declaration("toy"), compare="builtins:divmod")  # divmod(outcomes, quick)
    m = run_map(paper_module("toy"), decl, tmp_path / "m", points=3, n_jobs=1)
    assert len(m.errors) == 4 and m.failed_runs == 0
    assert all(e.startswith("the comparison raised TypeError") for e in m.errors.values())
    cm = write_claim_map(m)
    assert cm.counts["claims"] == 0 and "Points not evaluated (4)" in cm.markdown.read_text()
    again = run_map(paper_module("toy"), decl, tmp_path / "m", points=3, n_jobs=1)
    assert again.evaluated_now == 0 and len(again.errors) == 4


def test_a_comparison_reads_each_runs_overrides_at_every_point(tmp_path):
    """The outcomes a map's comparison gets carry the overrides their job had at that point
    (seed 001's rows read FISP's γ of the run there, not a constant)."""
    from dataclasses import replace

    decl = replace(declaration("toy"), compare="ndncc.claims.toy:compare_asked")
    m = run_map(paper_module("toy"), decl, tmp_path / "m", points=3, n_jobs=1)
    assert len(m.points) == 4 and not m.errors
    for p in m.points:
        (row,) = [r for r in m.rows[(p.id, 0)] if r[1] == "rate asked"]
        assert float(row[6]) == pytest.approx(p.values["rate"], rel=1e-3), p.values  # 4 digits


def test_seed_001_declares_gamma_icps_unit_and_fig_12(tmp_path):
    """FISP's γ reaches the runs whose routers run CHoPCoP's part and no baseline's; ICP's unit
    reaches the ICP and HR-ICP receivers at the default τ, not the 7-node unit runs (they keep
    theirs); Fig. 12's A–C delay reaches the 7-node runs only."""
    from ndncc.experiments import chopcop as C

    decl = declaration("chopcop")
    jobs = {j.key: j for j in C.jobs(False)}
    gamma, unit, fig12 = (decl.by_name(n) for n in ("FISP γ", "ICP unit", "Fig. 12 A–C delay"))
    assert gamma.lo == 0 and gamma.hi == 1 and gamma.default == 0.5
    assert unit.levels == tuple(C.ICP_UNITS) and unit.default == "chunk"
    key = C.GAMMA_KEY
    assert gamma.overrides(jobs["baseline/chopcop"], 0.25) == {key: 0.25}
    assert gamma.overrides(jobs[C.cir_key(200, True)], 0.25) == {key: 0.25}
    assert gamma.overrides(jobs["baseline/chopcop"], 0.5) == {}  # our default: the part's own
    for k in ("baseline/icp", "baseline/hr-icp", "seven-node/ictp", C.hbh_key(40, "hbh")):
        assert gamma.overrides(jobs[k], 0.25) == {}, k
    seg = {"apps[f].chunk_segments": 1, "apps[f].max_seq": 320_000}
    assert unit.overrides(jobs["seven-node/icp"], "segment Interests") == {
        **seg,
        "apps[g].chunk_segments": 1,
        "apps[g].max_seq": 320_000,
    }
    assert unit.overrides(jobs["baseline/hr-icp"], "segment window") == {
        "apps[receiver].window_segments": 32
    }
    assert unit.overrides(jobs["seven-node/icp"], "chunk") == {}
    for k in ("baseline/chopcop", C.icp_tau_key("baseline", 100), C.icp_unit_key("chunk", 100)):
        assert unit.overrides(jobs[k], "segment Interests") == {}, k
    assert unit.overrides(jobs[C.icp_unit_key("segment window", 300)], "segment Interests") == {}
    assert fig12.overrides(jobs["seven-node/chopcop"], 12.0) == {"links[0].delay": "12ms"}
    assert fig12.overrides(jobs["multi-source/chopcop"], 12.0) == {}


def test_seed_001_declares_the_data_overhead_and_the_cir_jitter():
    """The Data's wire bytes beyond 1 KB reach every run; the jitter reaches the constant-rate
    receivers only (Table I's and Fig. 11's), not RIC's; our defaults (0 B, 0 µs) set nothing
    (docs/schemes/chopcop.md, "Table I without FISP: the queue's filling")."""
    from ndncc.experiments import chopcop as C

    decl = declaration("chopcop")
    jobs = {j.key: j for j in C.jobs(False)}
    overhead, jitter = (decl.by_name(n) for n in ("Data wire overhead", "CIR receiver jitter"))
    assert (overhead.lo, overhead.hi, overhead.default) == (0, 100, 0)
    assert (jitter.lo, jitter.hi, jitter.default) == (0, 1000, 0)
    for k in ("baseline/chopcop", "seven-node/icp", C.cir_key(160, False), C.hbh_key(40, "hbh")):
        assert overhead.overrides(jobs[k], 30) == {"packets.data_overhead": "30B"}, k
        assert overhead.overrides(jobs[k], 0) == {}, k
    os_clock = {"clock": "os", "clock_granularity": "1ns", "clock_wait_mean": "50000ns"}
    assert jitter.overrides(jobs[C.cir_key(160, False)], 50.0) == {
        f"apps[receiver].{k}": v for k, v in os_clock.items()
    }
    assert jitter.overrides(jobs[C.hbh_key(40, "fisp")], 50.0) == {
        f"apps[{a}].{k}": v for a in ("d", "e") for k, v in os_clock.items()
    }
    assert jitter.overrides(jobs[C.cir_key(160, False)], 0.0) == {}
    assert jitter.overrides(jobs[C.cir_key(160, False)], 0.0004) == {}  # under ½ ns: none
    assert (
        jitter.overrides(jobs[C.cir_key(160, False)], 0.0123)["apps[receiver].clock_wait_mean"]
        == "12ns"
    )
    for k in ("baseline/chopcop", "fairness", "seven-node/icp"):
        assert jitter.overrides(jobs[k], 50.0) == {}, k


def test_fresh_discards_the_evaluations_too(tmp_path):
    out = tmp_path / "m"
    run_map(paper_module("toy"), declaration("toy"), out, points=3, n_jobs=1)
    again = run_map(paper_module("toy"), declaration("toy"), out, points=3, n_jobs=1, fresh=True)
    assert again.runs_done_now == 4 and again.evaluated_now == 4
