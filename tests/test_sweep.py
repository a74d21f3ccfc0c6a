"""`ndncc sweep`: the spec, the result store, failures, commits, --until-ci, the formulas."""

from __future__ import annotations

import json
import math
from pathlib import Path

import ndncc
import pandas as pd
import pytest
from ndncc import campaign, stats
from ndncc.campaign import eta_seconds, longest_first, next_seed_count, run_sweep
from ndncc.cli import main
from ndncc.store import Store, StoreError, run_key
from ndncc.sweepspec import CiTarget, SweepSpec, SweepSpecError, parse_ci_target

ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = ROOT / "scenarios" / "sf-clock" / "dumbbell-2.toml"


def spec_text(seeds="[1, 2]", grid='"defaults.node.schemes.sf.depth" = [50, 500]', extra=""):
    """A small sweep of the seed-002 dumbbell: 1 s runs, 1 % loss so the seed matters."""
    return f"""
[sweep]
name = "mini"
scenario = "{DUMBBELL}"
seeds = {seeds}
{extra}

[overrides]
"scenario.duration" = "1s"
"apps[c1].stop" = "0.8s"
"apps[c2].stop" = "0.8s"
"defaults.link.loss" = 0.01

[grid]
{grid}
"""


def write_spec(tmp_path: Path, text: str, name: str = "mini.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ---- formulas ---------------------------------------------------------------------------------


def test_student_t_quantiles_match_the_tables():
    for df, t in [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452), (120, 1.9799)]:
        assert stats.t_quantile(0.975, df) == pytest.approx(t, abs=1e-4)
    assert stats.t_quantile(0.025, 9) == pytest.approx(-2.2622, abs=1e-4)


def test_ci_half_width_is_the_student_t_half_width():
    xs = [10.0, 12.0, 11.0, 13.0, 9.0]
    n, m, h = stats.mean_ci(xs)
    s = math.sqrt(sum((x - 11.0) ** 2 for x in xs) / 4)
    assert (n, m) == (5, 11.0)
    assert h == pytest.approx(2.7764451 * s / math.sqrt(5), rel=1e-6)
    assert math.isnan(stats.mean_ci([3.0])[2]) and stats.mean_ci([])[0] == 0
    assert stats.mean_ci([1.0, float("nan"), 1.0]) == (2, 1.0, 0.0)


def test_ci_targets_absolute_and_relative():
    t = parse_ci_target("throughput_mbps=5%")
    assert t == CiTarget("throughput_mbps", 0.05, True)
    assert t.met(100.0, 4.9) and not t.met(100.0, 5.1) and not t.met(100.0, float("nan"))
    a = parse_ci_target("apps.c1.delay_ms_mean = 0.5")
    assert a.metric == "apps.c1.delay_ms_mean" and not a.relative
    assert a.met(1000.0, 0.5) and not a.met(1000.0, 0.51)
    for bad in ("throughput", "=5%", "x=-1", "x=0", "x=abc", "x=5%%"):
        with pytest.raises(ValueError):
            parse_ci_target(bad)


def test_next_seed_count_predicts_from_the_spread():
    t = CiTarget("m", 1.0, False)
    # h = 2 with n = 4: h falls as 1/sqrt(n), so 16 would do; capped at 2n = 8
    assert next_seed_count(4, 10.0, 2.0, t, 50) == 8
    assert next_seed_count(10, 10.0, 1.2, t, 50) == 15  # ceil(10 * 1.44)
    assert next_seed_count(10, 10.0, 1.01, t, 50) == 11  # at least one more
    assert next_seed_count(30, 10.0, 5.0, t, 40) == 40  # the limit
    assert next_seed_count(1, 10.0, float("nan"), t, 50) == 2


def test_eta_divides_the_work_left_by_the_measured_parallelism():
    # 30 s of runs done in 10 s of wall time: 3 runs at once; 60 s left: 20 s
    assert eta_seconds(60.0, 30.0, 10.0, 2) == pytest.approx(20.0)
    assert eta_seconds(60.0, 0.0, 0.0, 4) == pytest.approx(15.0)  # nothing done: the workers
    assert eta_seconds(None, 1.0, 1.0, 2) is None
    assert eta_seconds(0.0, 5.0, 1.0, 2) == 0.0


def test_run_key_hashes_scenario_seed_run_and_outputs():
    spec = {"name": "x", "seed": 1, "run": 0, "apps": []}
    out = {"parquet": True, "figures": False}
    k = run_key(spec, out, 1, 0)
    assert len(k) == 20 and k == run_key(dict(spec), dict(out), 1, 0)
    assert run_key(spec, out, 2, 0) != k
    assert run_key(spec, out, 1, 1) != k
    assert run_key({**spec, "name": "y"}, out, 1, 0) != k
    assert run_key(spec, {**out, "figures": True}, 1, 0) != k


def test_longest_first_uses_history():
    def task(key, point):
        return campaign.RunTask(key, point, None, {}, None, "s.toml", 1, 0, {}, "", "")

    est = campaign._Estimates(
        {"a": 5.0, "b": 1.0},
        {"a": {"point": "P", "scenario": "s.toml"}, "b": {"point": "Q", "scenario": "s.toml"}},
    )
    tasks = [task("new-q", "Q"), task("x", "R"), task("new-p", "P")]
    order = [t.key for t in longest_first(tasks, est)]
    assert order == ["new-p", "x", "new-q"]  # P ~ 5 s, R unknown: the file's mean 3 s, Q ~ 1 s


# ---- the spec -----------------------------------------------------------------------------------


def test_spec_expands_grid_axes_and_seeds(tmp_path):
    text = spec_text(
        seeds="3",
        grid='"defaults.node.schemes.sf.depth" = [50, 500]\n'
        '[grid.engine]\nideal = { "apps[c1].engine" = "ideal" }\n'
        'tick = { "apps[c1].engine" = "tick", "apps[c1].tick" = "5ms" }',
    )
    spec = SweepSpec.load(write_spec(tmp_path, text))
    points = spec.points()
    assert spec.seeds == [1, 2, 3] and spec.size() == 12 and len(points) == 4
    assert points[1].params == {"defaults.node.schemes.sf.depth": 50, "engine": "tick"}
    assert points[1].overrides["apps[c1].tick"] == "5ms"
    assert points[1].overrides["scenario.duration"] == "1s"
    assert len({p.id for p in points}) == 4


@pytest.mark.parametrize(
    "text, expect",
    [
        (
            '[sweep]\nscenario = "{s}"\nsedes = 3',
            "sweep.sedes: unknown key (fix: did you mean 'seeds'?)",
        ),
        (
            '[sweep]\nscenario = "{s}"\n[gird]\nx = [1]',
            "gird: unknown table (fix: did you mean 'grid'?)",
        ),
        ("[sweep]\nseeds = 2", "sweep.scenario: missing"),
        ('[sweep]\nscenario = "nope.toml"', "scenario file 'nope.toml' not found"),
        ('[sweep]\nscenario = "{s}"\nseeds = [1, "2"]', "sweep.seeds: must be a count"),
        (
            '[sweep]\nscenario = "{s}"\n[grid]\n"trace.bin" = []',
            "grid.trace.bin: must be a non-empty",
        ),
        ('[sweep]\nscenario = "{s}"\n[grid]\nseed = [1, 2]', "grid.seed: 'seed' is a column"),
        ('[sweep]\nscenario = "{s}"\n[until_ci]\nmetric = "x"\nwidth = "-1"', "until_ci.width"),
        ('[sweep]\nscenario = "{s}"\n[report]\nx = "depth"', "report.x: no axis named 'depth'"),
        (
            '[sweep]\nscenario = "{s}"\n[report]\nmetrics = ["throughput_mbps", "thruput"]',
            "report.metrics[1]: unknown metric 'thruput' (fix: did you mean 'throughput_mbps'?",
        ),
        (
            '[sweep]\nscenario = "{s}"\n[report]\nmetrics = ["apps.c1.delay_ms_p999"]',
            "report.metrics[0]: unknown metric 'apps.c1.delay_ms_p999' (fix: a consumer's "
            "metric is apps.NAME.delay_ms_p99)",
        ),
        (
            '[sweep]\nscenario = "{s}"\n[until_ci]\nmetric = "thruput"\nwidth = 0.5',
            "mini.toml: until_ci.metric: unknown metric 'thruput'",
        ),
        ("[sweep\n", "not valid TOML"),
    ],
)
def test_bad_specs_give_one_line_errors(tmp_path, capsys, text, expect):
    path = write_spec(tmp_path, text.replace("{s}", str(DUMBBELL)))
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "-q"]) == 3
    err = capsys.readouterr().err
    assert expect in err, err
    assert "Traceback" not in err


def test_report_metrics_take_every_index_metric(tmp_path):
    metrics = ["throughput_mbps", "drops", "apps.c1.delay_ms_p99", "apps.a.b.loss_rate"]
    text = f'[sweep]\nscenario = "{DUMBBELL}"\n[report]\nmetrics = {metrics + ["wall_time_s"]}'
    spec = SweepSpec.load(write_spec(tmp_path, text.replace("'", '"')))
    assert spec.report_metrics == [*metrics, "wall_time_s"]


def test_an_until_ci_metric_from_the_spec_is_blamed_on_the_spec(tmp_path):
    """run_sweep checks the metric against the store's runs too: one from the spec's
    [until_ci] is blamed on the spec file's key, not on the command line."""
    spec = SweepSpec.from_dict({"sweep": {"scenario": str(DUMBBELL)}}, source="s.toml")
    spec.until_ci = [CiTarget("nope", 1.0, False)]  # past the reader's own check
    with pytest.raises(SweepSpecError) as e:
        run_sweep(spec, tmp_path / "o", jobs=1)
    assert str(e.value).startswith("s.toml: until_ci.metric: unknown metric 'nope'")
    with pytest.raises(SweepSpecError) as e:
        run_sweep(spec, tmp_path / "o", jobs=1, until_ci=spec.until_ci)
    assert str(e.value).startswith("<command line>: --until-ci nope=1")


def test_bad_override_path_names_the_grid_point(tmp_path, capsys):
    grid = '"apps[c9].rate" = [100, 200]'
    path = write_spec(tmp_path, spec_text(grid=grid))
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "-q"]) == 3
    err = capsys.readouterr().err
    assert "grid point apps[c9].rate=100" in err and "c9" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args, expect",
    [
        (["--dask", "nohost"], "--dask 'nohost': expected 'local', a scheduler address"),
        (["--dask", "http://h:1"], "unknown protocol 'http'"),
        (["--dask", "tcp://h:99999"], "expected 'local'"),
        (["--dask", "missing.json"], "scheduler file not found"),
        (["--dask", "tcp://127.0.0.1:8786", "--jobs", "2"], "--jobs applies to the local pool"),
        (["--until-ci", "throughput_mbps"], "--until-ci 'throughput_mbps': expected METRIC=WIDTH"),
        (["--until-ci", "thruput=5%"], "unknown metric 'thruput' (fix: did you mean"),
        (["--jobs", "0"], "--jobs must be between 1 and 1024"),
        (["--max-seeds", "1"], "--max-seeds must be between 2"),
    ],
)
def test_bad_flags_give_one_line_errors(tmp_path, capsys, args, expect):
    path = write_spec(tmp_path, spec_text())
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "-q", *args]) == 3
    err = capsys.readouterr().err
    assert expect in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_unreachable_dask_scheduler_is_an_input_error(tmp_path, capsys, monkeypatch):
    import socket

    with socket.socket() as s:  # a free port on loopback: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("NDNCC_DASK_TIMEOUT", "1")
    path = write_spec(tmp_path, spec_text())
    rc = main(
        ["sweep", str(path), "--out", str(tmp_path / "o"), "-q", "--dask", f"127.0.0.1:{port}"]
    )
    err = capsys.readouterr().err
    assert rc == 3 and "no Dask scheduler answered" in err and "Traceback" not in err


def test_missing_spec_file(tmp_path, capsys):
    assert main(["sweep", str(tmp_path / "nope.toml"), "-q"]) == 3
    assert "sweep spec not found" in capsys.readouterr().err


# ---- the store ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A 4-run sweep done in this process (--jobs 1)."""
    tmp = tmp_path_factory.mktemp("small")
    spec = SweepSpec.load(write_spec(tmp, spec_text()))
    res = run_sweep(spec, tmp / "out", jobs=1)
    return spec, tmp / "out", res


def test_store_layout_index_and_load_sweep(small):
    spec, out, res = small
    assert res.progress.done == 4 and not res.failures
    assert (out / "campaign.json").is_file() and (out / "index.parquet").is_file()
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert len(runs) == 4 and all((out / "runs" / k / "run.json").is_file() for k in runs)
    assert not list((out / ".staging").iterdir())
    df = ndncc.load_sweep(out)
    assert isinstance(df, pd.DataFrame) and sorted(df["key"]) == runs
    assert set(df["seed"]) == {1, 2} and set(df["defaults.node.schemes.sf.depth"]) == {50, 500}
    for col in ("throughput_mbps", "apps.c1.throughput_mbps", "fairness_jain", "wall_time_s"):
        assert df[col].notna().all(), col
    info = json.loads((out / "campaign.json").read_text())
    assert info["ndncc_version"] == ndncc.__version__ and "git_commit" in info
    assert set(df["git_commit"]) == {info["git_commit"]}
    # the seed matters (1 % loss): different seeds, different results at one point
    for _, g in df.groupby("point"):
        assert g["throughput_mbps"].nunique() == 2
    # each row says how to make it again
    row = df.iloc[0]
    assert row["command"].startswith("ndncc run ") and f"--seed {row['seed']}" in row["command"]


def test_rerun_runs_nothing_and_index_is_derived(small):
    spec, out, _ = small
    before = {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*/run.json")}
    (out / "index.parquet").unlink()
    res = run_sweep(spec, out, jobs=1)
    assert res.progress.done == 0 and res.progress.skipped == 4
    after = {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*/run.json")}
    assert before == after
    assert len(pd.read_parquet(out / "index.parquet")) == 4


def test_a_half_written_run_does_not_count(small, tmp_path):
    spec, out, _ = small
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(out, copy)
    victim = sorted((copy / "runs").iterdir())[0]
    (victim / "run.json").unlink()  # as if the run had been cut short (it cannot, by rename)
    from ndncc.files import DamagedFileWarning

    with pytest.warns(DamagedFileWarning, match="run.json: missing; recomputing"):
        res = run_sweep(spec, copy, jobs=1)
    assert res.progress.done == 1 and res.progress.skipped == 3
    assert (victim / "run.json").is_file()


def test_other_commits_are_refused_unless_mixing(small, tmp_path, monkeypatch, capsys):
    spec, out, _ = small
    monkeypatch.setattr(campaign, "identity", lambda: (ndncc.__version__, "0123456789ab"))
    with pytest.raises(StoreError, match="--mix-commits"):
        run_sweep(spec, out, jobs=1)
    path = write_spec(tmp_path, spec_text())
    assert main(["sweep", str(path), "--out", str(out), "-q"]) == 3
    assert "holds runs of" in capsys.readouterr().err
    res = run_sweep(spec, out, jobs=1, mix_commits=True)
    assert res.progress.skipped == 4  # runs of the other commit count as done
    assert "0123456789ab" in json.loads((out / "campaign.json").read_text())["commits"]


def test_failed_runs_are_recorded_and_retried(tmp_path, monkeypatch, capsys):
    import ndncc.runner

    real = ndncc.runner.run

    def flaky(sc, **kw):
        if sc.resolve()["seed"] == 2:
            raise RuntimeError("boom at seed 2")
        return real(sc, **kw)

    monkeypatch.setattr(ndncc.runner, "run", flaky)
    path = write_spec(tmp_path, spec_text())
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--jobs", "1", "-q"]) == 4
    err = capsys.readouterr().err
    assert "boom at seed 2" in err and "2 runs failed" in err
    df = ndncc.load_sweep(out)
    assert len(df) == 4 and df["key"].is_unique
    bad = df[df["status"] == "failed"]
    assert set(bad["seed"]) == {2} and (bad["error"] == "RuntimeError: boom at seed 2").all()
    assert len(list((out / "failed").glob("*.json"))) == 2
    monkeypatch.setattr(ndncc.runner, "run", real)
    res = run_sweep(SweepSpec.load(path), out, jobs=1)
    assert res.progress.done == 2 and res.progress.skipped == 2 and not res.failures
    assert not list((out / "failed").glob("*.json"))
    assert (ndncc.load_sweep(out)["status"] == "ok").all()


def test_two_sweeps_cannot_write_one_store(small):
    _, out, _ = small
    with Store(out).locked(), pytest.raises(StoreError, match="another ndncc sweep"):
        with Store(out).locked():
            pass


def test_dead_staging_is_cleaned(tmp_path):
    import socket

    store = Store(tmp_path)
    store.create("x", "0", None)
    dead = store.staging / f"abc.{socket.gethostname()}.999999999.0000"
    dead.mkdir()
    (dead / "summary.json").write_text("{}")
    live = store.stage_dir("def")
    assert store.clean_staging() == 1
    assert not dead.exists() and live.exists()


def test_duplicate_points_are_refused(tmp_path, capsys):
    grid = '[grid.same]\na = { "trace.delays" = true }\nb = { "trace.delays" = true }'
    path = write_spec(tmp_path, spec_text(grid=grid))
    assert main(["sweep", str(path), "--out", str(tmp_path / "o"), "-q"]) == 3
    assert "give the same run" in capsys.readouterr().err


def test_until_ci_adds_seeds_until_the_interval_is_narrow(tmp_path):
    grid = '"defaults.node.schemes.sf.depth" = [50]'
    spec = SweepSpec.load(write_spec(tmp_path, spec_text(seeds="[1, 2]", grid=grid)))
    target = parse_ci_target("throughput_mbps=1%")
    res = run_sweep(spec, tmp_path / "o", jobs=1, until_ci=[target], max_seeds=8)
    df = ndncc.load_sweep(tmp_path / "o")
    seeds = sorted(df["seed"])
    assert seeds[:2] == [1, 2] and len(seeds) > 2 and seeds == list(range(1, len(seeds) + 1))
    n, mean, half = stats.mean_ci(df["throughput_mbps"])
    assert target.met(mean, half) or len(seeds) == 8
    assert bool(res.unmet) == (not target.met(mean, half))
    # again: the seeds added before are reused, nothing runs
    again = run_sweep(spec, tmp_path / "o", jobs=1, until_ci=[target], max_seeds=8)
    assert again.progress.done == 0 and again.progress.skipped == len(seeds)
