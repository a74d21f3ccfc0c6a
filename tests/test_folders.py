"""Output folders never mix kinds of results: a run's files into a sweep's store, a sweep or a
reproduction into a run's folder (ndncc.folders), from the command line and the Python API."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_native import make_result
from ndncc.cli import main
from ndncc.folders import FolderKindError, check_kind, folder_kind

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenarios" / "demo" / "dumbbell.toml"


def folder(tmp_path: Path, kind: str | None) -> Path:
    """A folder holding what `kind` writes at its top (nothing for None)."""
    d = tmp_path / f"holds-{kind}"
    d.mkdir()
    files = {
        "run": ["summary.json", "meta.json"],
        "sweep": ["campaign.json", "sweep.json", "index.parquet"],
        "reproduction": ["campaign.json", "comparison.csv", "report.md"],
        "store": ["campaign.json"],
        None: ["notes.txt"],
    }[kind]
    for f in files:
        (d / f).write_text("{}")
    if kind in ("sweep", "reproduction", "store"):
        (d / "runs").mkdir()
    return d


@pytest.mark.parametrize("kind", ["run", "sweep", "reproduction", "store", None])
def test_folder_kind_is_told_by_the_files_each_command_writes(tmp_path, kind):
    assert folder_kind(folder(tmp_path, kind)) == kind
    assert folder_kind(tmp_path / "absent") is None


@pytest.mark.parametrize(
    "found, writing, refused",
    [
        ("run", "run", False),
        ("run", "sweep", True),
        ("run", "reproduction", True),
        ("sweep", "run", True),
        ("sweep", "sweep", False),
        ("sweep", "reproduction", True),
        ("reproduction", "run", True),
        ("reproduction", "sweep", True),
        ("reproduction", "reproduction", False),
        ("store", "sweep", False),
        ("store", "reproduction", False),
        ("store", "run", True),
        (None, "run", False),
        ("run", "reproductions", True),
    ],
)
def test_one_kind_is_never_written_into_another(tmp_path, found, writing, refused):
    d = folder(tmp_path, found)
    if not refused:
        check_kind(d, writing)
        return
    with pytest.raises(FolderKindError) as e:
        check_kind(d, writing)
    assert str(e.value).startswith(f"--out {d}: holds ")
    assert "would mix with them (choose another folder)" in str(e.value)


def test_result_save_refuses_a_sweep_store_and_writes_nothing(tmp_path):
    d = folder(tmp_path, "sweep")
    before = sorted(p.name for p in d.iterdir())
    with pytest.raises(FolderKindError, match="holds a sweep's result store"):
        make_result().save(d)
    assert sorted(p.name for p in d.iterdir()) == before


def test_run_sweep_and_reproduce_refuse_a_run_folder(tmp_path):
    from ndncc import experiments
    from ndncc.campaign import run_sweep
    from ndncc.sweepspec import SweepSpec

    d = folder(tmp_path, "run")
    spec = SweepSpec.from_dict({"sweep": {"scenario": str(DEMO)}})
    with pytest.raises(FolderKindError, match="holds a run's results"):
        run_sweep(spec, d, jobs=1)
    with pytest.raises(FolderKindError, match="the files of a reproduction would mix"):
        experiments.reproduce("sieve", d, quick=True)
    assert sorted(p.name for p in d.iterdir()) == ["meta.json", "summary.json"]


@pytest.mark.parametrize(
    "found, command",
    [
        ("sweep", ["run", str(DEMO), "--duration", "10s"]),
        ("reproduction", ["run", str(DEMO), "--duration", "10s"]),
        ("run", ["reproduce", "sieve", "--quick"]),
        ("sweep", ["reproduce", "sieve", "--quick"]),
        ("run", ["reproduce", "--all", "--quick"]),
        ("run", ["sweep", "SPEC"]),
        ("reproduction", ["sweep", "SPEC"]),
    ],
)
def test_cli_refuses_mixing_before_any_work(tmp_path, capsys, found, command):
    d = folder(tmp_path, found)
    before = sorted(p.name for p in d.iterdir())
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[sweep]\nscenario = "{DEMO}"\n')
    command = [str(spec) if c == "SPEC" else c for c in command]
    assert main([*command, "--out", str(d), "-q"]) == 3
    err = capsys.readouterr().err
    assert err.startswith(f"error: --out {d}: holds "), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in d.iterdir()) == before


def test_the_manifest_tells_the_kind_when_the_marker_file_is_gone(tmp_path):
    """One source of truth: a folder whose manifest (ndncc.files) says it holds a run is a run's
    folder even after its summary.json was deleted — a sweep is still refused there."""
    from ndncc.files import record

    d = tmp_path / "run"
    d.mkdir()
    (d / "throughput.csv").write_text("t,x\n")
    record(d, "run", [d / "throughput.csv"])
    assert folder_kind(d) == "run"
    with pytest.raises(FolderKindError, match="a run's results"):
        check_kind(d, "sweep")
