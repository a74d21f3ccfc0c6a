"""`ndncc report`: one self-contained HTML page, checked in headless Chromium; reproductions
through the result store (`reproduce --all`, resumption, outcomes equal to in-memory ones)."""

from __future__ import annotations

import re
import struct
import types
from pathlib import Path

import pandas as pd
import pytest
from headless import Page, find_chromium
from ndncc import experiments
from ndncc.campaign import run_jobs_stored
from ndncc.cli import main
from ndncc.experiments.common import Row, save_figure
from ndncc.sweep import Job, run_jobs

ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = ROOT / "scenarios" / "sf-clock" / "dumbbell-2.toml"
LINEAR = str(ROOT / "scenarios" / "sf-clock" / "linear.toml")
SHORT = {"scenario.duration": "1s", "apps[consumer].stop": "0.8s"}

SPEC = f"""
[sweep]
name = "report-test"
description = "bucket depth × engine over 3 seeds"
scenario = "{DUMBBELL}"
seeds = 3

[overrides]
"scenario.duration" = "1s"
"apps[c1].stop" = "0.8s"
"apps[c2].stop" = "0.8s"
"defaults.link.loss" = 0.01

[grid]
"defaults.node.schemes.sf.depth" = [50, 500]

[grid.engine]
ideal = {{ "apps[c1].engine" = "ideal", "apps[c2].engine" = "ideal" }}

[grid.engine."tick 5 ms"]
"apps[c1].engine" = "tick"
"apps[c1].tick" = "5ms"
"apps[c2].engine" = "tick"
"apps[c2].tick" = "5ms"
"""


def mini_paper() -> types.ModuleType:
    """A paper module of two short linear runs: what `reproduce` needs of one."""
    mod = types.ModuleType("mini")
    mod.PAPER, mod.TITLE = "mini", "A miniature paper (test)"
    mod.jobs = lambda quick: [
        Job("ideal", LINEAR, dict(SHORT), keep=("series",)),
        Job(
            "tick",
            LINEAR,
            {**SHORT, "apps[consumer].engine": "tick", "apps[consumer].tick": "100ms"},
        ),
    ]

    def compare(res, quick):
        t = {k: sum(a["throughput_mbps"] for a in o.summary["apps"]) for k, o in res.items()}
        return [
            Row("linear", "throughput", k, 1.0, v, "Mbps", "±100 %", 0 <= v <= 2)
            for k, v in t.items()
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
def sweep_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    spec = tmp / "spec.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--out", str(tmp / "out"), "--jobs", "2", "-q"]) == 0
    return tmp / "out"


@pytest.fixture(scope="module")
def all_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("all")
    mp = pytest.MonkeyPatch()
    mp.setattr(experiments, "PAPERS", {"mini": mini_paper()})
    try:
        assert main(["reproduce", "--all", "--quick", "--out", str(tmp), "--jobs", "1", "-q"]) == 0
    finally:
        mp.undo()
    return tmp


def images(text: str) -> list[bytes]:
    import base64

    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]+)"', text)]


def test_report_is_self_contained_with_figures_and_tables(sweep_dir):
    assert main(["report", str(sweep_dir)]) == 0
    text = (sweep_dir / "report.html").read_text()
    # nothing outside the file: no http(s), no script, no file reference
    assert not re.search(r"(src|href)=\"(?!data:|#)", text)
    assert "<script" not in text and "http://" not in text and "https://" not in text
    pngs = images(text)
    assert len(pngs) >= 5  # a figure per metric and the time series
    for png in pngs:
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        w, h = struct.unpack(">II", png[16:24])
        assert w > 300 and h > 200
    assert "95 % Student-t" in text and "bucket depth × engine" in text
    assert text.count("<tr>") >= 5  # header + one row per point


def test_reproduce_all_writes_one_report_with_the_paper_tables(all_dir):
    assert (all_dir / "mini" / "comparison.csv").is_file()
    text = (all_dir / "report.html").read_text()
    assert "A miniature paper (test)" in text and "2 of 2 comparisons within tolerance" in text
    assert "fig_mini" in text and len(images(text)) == 1


def test_report_of_nothing_is_an_input_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 3
    assert "nothing to report" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nope")]) == 3


@pytest.mark.parametrize("which", ["sweep", "reproductions"])
def test_report_opens_in_chromium_without_errors(which, sweep_dir, all_dir, tmp_path):
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium binary found (apt-get install -y chromium, or set $CHROMIUM)")
    src = sweep_dir if which == "sweep" else all_dir
    assert main(["report", str(src), "--out", str(tmp_path / "r.html")]) == 0
    page = Page(binary)
    try:
        page.load((tmp_path / "r.html").resolve().as_uri())
        state = page.evaluate(
            "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
        )
        errors = page.console_errors()
        shot = page.screenshot(tmp_path / "shot.png")
    finally:
        page.close()
    assert errors == []
    assert state and all(c and w > 0 and h > 0 for c, w, h in state), state
    assert len(state) == len(images((tmp_path / "r.html").read_text()))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_stored_outcomes_are_the_in_memory_ones(tmp_path):
    """What reproduce reads back from the store is what the run gave: comparison.csv is the
    same through the store as in memory."""
    jobs = mini_paper().jobs(True)
    jobs[1] = Job(
        jobs[1].key, jobs[1].scenario, jobs[1].overrides, keep=("series", "face_series", "delays")
    )
    mem = run_jobs(jobs, n_jobs=1)
    stored = run_jobs_stored(jobs, tmp_path, name="mini", n_jobs=1)
    assert list(stored) == list(mem)
    for k in mem:
        a, b = dict(mem[k].summary), dict(stored[k].summary)
        a.pop("wall_time_s"), b.pop("wall_time_s")
        assert a == b
        assert list(mem[k].frames) == list(stored[k].frames)
        for name in mem[k].frames:
            pd.testing.assert_frame_equal(mem[k].frames[name], stored[k].frames[name])


def test_reproduce_resumes_from_its_store(tmp_path):
    mp = pytest.MonkeyPatch()
    mp.setattr(experiments, "PAPERS", {"mini": mini_paper()})
    try:
        experiments.reproduce("mini", tmp_path, quick=True, n_jobs=1)
        first = {p.parent.name: p.stat().st_mtime_ns for p in tmp_path.glob("runs/*/run.json")}
        csv1 = (tmp_path / "comparison.csv").read_bytes()
        experiments.reproduce("mini", tmp_path, quick=True, n_jobs=1)
    finally:
        mp.undo()
    again = {p.parent.name: p.stat().st_mtime_ns for p in tmp_path.glob("runs/*/run.json")}
    assert len(first) == 2 and first == again
    assert (tmp_path / "comparison.csv").read_bytes() == csv1


def test_report_and_report_md_give_the_same_verdicts(tmp_path):
    """A reproduction with a row within, one outside and one only reported: `ndncc report`
    counts as report.md does (1 of 2, the reported row in neither) and marks the reported row
    with neither ✅ nor ❌ (it used to say "1 of 3" and draw it as failed)."""
    mod = mini_paper()
    three = [
        Row("linear", "within", "a", 1.0, 1.0, "Mbps", "±10 %", True),
        Row("linear", "outside", "b", 1.0, 3.0, "Mbps", "±10 %", False),
        Row("linear", "reported", "c", None, 2.0, "Mbps", "reported", None),
    ]
    mod.compare = lambda res, quick: three
    mp = pytest.MonkeyPatch()
    mp.setattr(experiments, "PAPERS", {"mini": mod})
    try:
        experiments.reproduce("mini", tmp_path, quick=True, n_jobs=1)
    finally:
        mp.undo()
    said = "1 of 2 comparisons within tolerance (1 more reported without a tolerance)"
    assert said in (tmp_path / "report.md").read_text()
    assert main(["report", str(tmp_path)]) == 0
    text = (tmp_path / "report.html").read_text()
    assert said in text
    marks = {
        m.group(1): m.group(2)
        for m in re.finditer(r'<td class="l">(\w+)</td>.*?<span class="v">(.)</span>', text)
    }
    assert marks == {"within": "✅", "outside": "❌", "reported": "—"}
    md = (tmp_path / "report.md").read_text()
    for metric, sign in marks.items():
        assert re.search(rf"\| {metric} \|.*\| {sign} \|", md), metric


def test_a_damaged_verdict_is_named(tmp_path, capsys):
    (tmp_path / "comparison.csv").write_text(
        "experiment,metric,condition,paper,expected,expected_source,ours,unit,tolerance,within\n"
        "e,m,c,1,,,1,Mbps,±1 %,maybe\n"
    )
    assert main(["report", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "comparison.csv" in err and "'maybe'" in err and "Traceback" not in err
