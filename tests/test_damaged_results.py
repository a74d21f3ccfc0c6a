"""Damaged results are named, never silently dropped or shown as whole, and what can be
recomputed is: a run's record or tables in a result store, campaign.json, a reproduction's
comparison.csv and figures; a sweep whose points do not resolve leaves no store behind."""

from __future__ import annotations

import json
import types
import warnings
from pathlib import Path

import ndncc
import pytest
from ndncc import experiments
from ndncc.campaign import run_jobs_stored, run_sweep
from ndncc.cli import main
from ndncc.experiments.common import Row, save_figure
from ndncc.files import DamagedFileWarning, png_problem
from ndncc.store import load_sweep
from ndncc.sweep import Job
from ndncc.sweepspec import SweepSpec, SweepSpecError

ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = ROOT / "scenarios" / "sf-clock" / "dumbbell-2.toml"
LINEAR = str(ROOT / "scenarios" / "sf-clock" / "linear.toml")
SHORT = {"scenario.duration": "1s", "apps[consumer].stop": "0.8s"}


def spec_file(tmp_path: Path, depths: str = "[50, 500]") -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(
        f"""
[sweep]
name = "damage"
scenario = "{DUMBBELL}"
seeds = [1]

[overrides]
"scenario.duration" = "1s"
"apps[c1].stop" = "0.8s"
"apps[c2].stop" = "0.8s"

[grid]
"defaults.node.schemes.sf.depth" = {depths}
"""
    )
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A finished two-run sweep; tests copy it before damaging it."""
    tmp = tmp_path_factory.mktemp("store")
    assert main(["sweep", str(spec_file(tmp)), "--out", str(tmp / "out"), "--jobs", "1", "-q"]) == 0
    return tmp / "out"


@pytest.fixture
def copy(store, tmp_path):
    import shutil

    shutil.copytree(store, tmp_path / "out")
    return tmp_path / "out"


def test_a_damaged_run_record_is_named_and_a_resweep_recomputes_it(copy, capsys):
    victim = sorted((copy / "runs").iterdir())[0]
    record = victim / "run.json"
    record.write_text(record.read_text()[:40])  # cut short
    with pytest.warns(DamagedFileWarning, match="run.json"):
        df = ndncc.load_sweep(copy)
    assert len(df) == 2, "the damaged run must not vanish"
    row = df[df["key"] == victim.name].iloc[0]
    assert row["status"] == "damaged" and str(record) in row["error"]
    # the report names it and says so in its exit code, but is written
    assert main(["report", str(copy)]) == 3
    err = capsys.readouterr().err
    assert str(record) in err and "internal error" not in err
    assert "Damaged runs" in (copy / "report.html").read_text()
    # a re-sweep recomputes it
    spec = SweepSpec.load(spec_file(copy.parent))
    with pytest.warns(DamagedFileWarning, match="recomputing"):
        res = run_sweep(spec, copy, jobs=1)
    assert res.progress.done == 1 and res.progress.skipped == 1
    assert json.loads(record.read_text())["status"] == "ok"
    with warnings.catch_warnings():
        warnings.simplefilter("error", DamagedFileWarning)
        assert (ndncc.load_sweep(copy)["status"] == "ok").all()
        assert main(["report", str(copy)]) == 0


def test_a_damaged_campaign_json_is_named_not_an_internal_error(copy, capsys):
    (copy / "campaign.json").write_text('{"format": 1, "na')
    assert main(["report", str(copy)]) == 3
    err = capsys.readouterr().err
    assert "campaign.json" in err and "internal error" not in err
    # the next sweep writes it anew, with the commits of the runs it holds
    assert main(["sweep", str(spec_file(copy.parent)), "--out", str(copy), "-q"]) == 0
    assert "campaign.json" in capsys.readouterr().err
    info = json.loads((copy / "campaign.json").read_text())
    assert info["git_commit"] in info["commits"]


@pytest.mark.parametrize("how", ["cut", "one byte changed"])
def test_a_damaged_table_of_a_sweep_is_named_and_a_cut_one_recomputed(copy, capsys, how):
    table = sorted((copy / "runs").glob("*/app_series.parquet"))[0]
    data = bytearray(table.read_bytes())
    if how == "cut":
        data = data[:200]
    else:  # same size: pyarrow may read it without a word; the manifest's checksum tells
        data[len(data) // 2] ^= 0x01
    table.write_bytes(bytes(data))
    assert main(["report", str(copy)]) == 3
    err = capsys.readouterr().err
    assert str(table) in err and "internal error" not in err
    if how == "cut":  # the next sweep finds it by its size, and recomputes the run
        assert main(["sweep", str(spec_file(copy.parent)), "--out", str(copy), "-q"]) == 0
        err = capsys.readouterr().err
        assert str(table) in err and "recomputing" in err
        assert main(["report", str(copy)]) == 0


@pytest.mark.parametrize("name", ["sweep.json", "timings.parquet"])
def test_damaged_store_files_beside_the_runs_are_named(copy, capsys, name):
    (copy / name).write_bytes(b"\x00garbage")
    assert main(["report", str(copy)]) == 3
    assert name in capsys.readouterr().err
    assert main(["sweep", str(spec_file(copy.parent)), "--out", str(copy), "-q"]) == 0
    capsys.readouterr()
    assert main(["report", str(copy)]) == 0  # written anew by the sweep


def test_a_rebuilt_campaign_json_lists_the_commits_of_the_runs(copy):
    """campaign.json written anew lists the commits its runs were made with, this one last."""
    from ndncc.store import Store

    records = sorted(copy.glob("runs/*/run.json"))
    first = json.loads(records[0].read_text())
    first["git_commit"] = "0123abc"
    records[0].write_text(json.dumps(first))
    others = {json.loads(r.read_text()).get("git_commit") for r in records[1:]} - {None}
    (copy / "campaign.json").write_text('{"format": 1, "na')
    with pytest.warns(DamagedFileWarning, match="campaign.json"):
        info = Store(copy).create("t", "0", "cafe")
    assert info["commits"] == sorted(others | {"0123abc"}) + ["cafe"]


@pytest.mark.parametrize(
    "name", ["campaign.json", "sweep.json", "index.parquet", "runs/*/app_series.parquet"]
)
def test_load_sweep_names_a_damaged_store_file(copy, name):
    """load_sweep builds its rows from the runs' records, but a damaged file of the store
    (its own, or a run's table cut short) is named, with what repairs it — not returned
    without a word."""
    path = next(copy.glob(name)) if "*" in name else copy / name
    path.write_bytes(path.read_bytes()[:20])
    with pytest.warns(DamagedFileWarning, match=path.name) as caught:
        df = load_sweep(copy)
    assert len(df) == 2
    assert any("the next sweep" in str(w.message) for w in caught)


def test_a_damaged_table_of_a_stored_run_is_recomputed(tmp_path, capsys):
    jobs = [Job("a", LINEAR, dict(SHORT), keep=("series",))]
    first = run_jobs_stored(jobs, tmp_path, name="t", n_jobs=1)
    (table,) = tmp_path.glob("runs/*/app_series.parquet")
    table.write_bytes(table.read_bytes()[:300])
    with pytest.warns(DamagedFileWarning, match="app_series.parquet"):
        again = run_jobs_stored(jobs, tmp_path, name="t", n_jobs=1)
    assert again["a"].frames["series"].equals(first["a"].frames["series"])
    # damaged between the check and the read: a clear error naming the file
    from ndncc import store as store_mod
    from ndncc.campaign import load_outcome

    (key,) = [p.name for p in (tmp_path / "runs").iterdir()]
    table.write_bytes(b"PAR1 not really")
    with pytest.raises(store_mod.StoreError, match="app_series.parquet"):
        load_outcome(store_mod.Store(tmp_path), key, ["series"], "a")


def mini_paper() -> types.ModuleType:
    """A paper of one short run, six comparison rows and a figure."""
    mod = types.ModuleType("mini")
    mod.PAPER, mod.TITLE = "mini", "A miniature paper (damage test)"
    mod.jobs = lambda quick: [Job("ideal", LINEAR, dict(SHORT), keep=("series",))]

    def compare(res, quick):
        v = sum(a["throughput_mbps"] for a in res["ideal"].summary["apps"])
        return [
            Row("linear", f"throughput {i}", "c", 1.0, v, "Mbps", "±100 %", True) for i in range(6)
        ]

    def figures(res, out, quick):
        from matplotlib.figure import Figure

        fig = Figure(figsize=(4, 3))
        s = res["ideal"].frames["series"]
        fig.add_subplot().plot(s["time_s"], s["throughput_mbps"])
        return [save_figure(fig, out / "fig_mini.png")]

    mod.compare, mod.figures = compare, figures
    mod.report_sections = lambda res, quick: []
    return mod


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repro")
    mp = pytest.MonkeyPatch()
    mp.setattr(experiments, "PAPERS", {"mini": mini_paper()})
    try:
        experiments.reproduce("mini", tmp / "out", quick=True, n_jobs=1)
    finally:
        mp.undo()
    return tmp / "out"


@pytest.fixture
def repro(reproduction, tmp_path):
    import shutil

    shutil.copytree(reproduction, tmp_path / "r")
    return tmp_path / "r"


def test_a_whole_reproduction_reports_cleanly(repro):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DamagedFileWarning)
        assert main(["report", str(repro)]) == 0
    assert "6 of 6" in (repro / "report.html").read_text()


@pytest.mark.parametrize(
    ("manifest", "cut"),
    [
        (True, "inside a row"),
        (False, "inside a row"),
        (False, "before a newline"),
        (False, "a field lost"),
    ],
)
def test_a_truncated_comparison_is_named_not_counted(repro, capsys, manifest, cut):
    if not manifest:  # a reproduction written before manifests: the CSV's own shape tells
        (repro / "ndncc-manifest.json").unlink(missing_ok=True)
    path = repro / "comparison.csv"
    text = path.read_text()
    at = text.index("throughput 4")
    # cut inside the fifth row, or right after its verdict (every row whole, two missing)
    if cut == "a field lost":  # a row of one column fewer mid-file: the file ends whole
        comma = text.index(",", text.index("throughput 2"))
        path.write_text(text[:comma] + text[comma + 1 :])
    else:
        end = at + 20 if cut == "inside a row" else text.index("\n", at)
        path.write_text(text[:end])
    assert main(["report", str(repro)]) == 3
    err = capsys.readouterr().err
    assert "comparison.csv" in err and "ndncc reproduce mini --quick --out" in err
    page = (repro / "report.html").read_text()
    assert " of 4 " not in page and " of 5 " not in page and "Damaged" in page


def test_rows_cut_at_a_line_end_are_caught_by_the_manifest(repro, capsys):
    path = repro / "comparison.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-2]))  # whole rows missing: the CSV's shape is fine
    assert main(["report", str(repro)]) == 3
    assert "comparison.csv: cut short or changed since ndncc wrote it" in capsys.readouterr().err


def test_a_corrupt_figure_is_named_and_not_embedded(repro, capsys):
    png = repro / "fig_mini.png"
    data = bytearray(png.read_bytes())
    data[len(data) // 2] ^= 0xFF
    png.write_bytes(bytes(data))
    (repro / "ndncc-manifest.json").unlink(
        missing_ok=True
    )  # even without the manifest: by the PNG's CRCs
    assert main(["report", str(repro)]) == 3
    err = capsys.readouterr().err
    assert "fig_mini.png" in err and "checksum" in err
    page = (repro / "report.html").read_text()
    assert "data:image/png" not in page and "Figure not shown" in page


def test_png_problem_finds_cut_and_altered_files(tmp_path):
    from matplotlib.figure import Figure

    path = save_figure(Figure(figsize=(2, 2)), tmp_path / "f.png")
    assert png_problem(path) is None
    data = path.read_bytes()
    for bad, why in [
        (data[:-5], "truncated"),
        (data[:20], "truncated"),
        (data[:-40] + bytes([data[-40] ^ 1]) + data[-39:], "checksum"),
        (b"GIF89a" + data[6:], "not a PNG"),
        (data + b"junk", "after the end"),
    ]:
        path.write_bytes(bad)
        assert why in png_problem(path)


def test_a_sweep_whose_points_do_not_resolve_leaves_no_store(tmp_path, capsys):
    out = tmp_path / "out"
    bad = spec_file(tmp_path, depths='[50, "deep"]')
    assert main(["sweep", str(bad), "--out", str(out), "-q"]) == 3
    assert "deep" in capsys.readouterr().err
    assert not out.exists() or list(out.iterdir()) == []
    with pytest.raises(SweepSpecError, match="deep"):
        run_sweep(SweepSpec.load(bad), tmp_path / "api", jobs=1)
    assert not (tmp_path / "api").exists()
    # two points that are one run: found while the runs are listed, before the store is made
    same = spec_file(tmp_path, depths="[50, 50.0]")
    with pytest.raises(SweepSpecError, match="give the same run"):
        run_sweep(SweepSpec.load(same), tmp_path / "same", jobs=1)
    assert not (tmp_path / "same").exists()
    with pytest.raises(SweepSpecError):
        run_jobs_stored(
            [Job("x", LINEAR, {"scenario.duration": "-1s"})], tmp_path / "jobs", name="j"
        )
    assert not (tmp_path / "jobs").exists()


@pytest.mark.parametrize("manifest", [True, False])
def test_a_damaged_report_md_is_named(repro, capsys, manifest):
    if not manifest:
        (repro / "ndncc-manifest.json").unlink()
    (repro / "report.md").write_bytes(b"# A mini\xff paper")
    assert main(["report", str(repro)]) == 3
    err = capsys.readouterr().err
    assert "report.md" in err and "internal error" not in err
