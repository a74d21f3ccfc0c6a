"""Output folders: a new run replaces the earlier run's files and only them, a folder holding
files ndncc did not write is refused unless forced, figures are never drawn from another run's
tables, and a signal during a save leaves no staging folder (ndncc.files)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import ndncc
import pytest
from ndncc.cli import main
from ndncc.files import MANIFEST, FolderInUseError, read_manifest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenarios" / "demo" / "dumbbell.toml"
LINEAR = ROOT / "scenarios" / "sf-clock" / "linear.toml"


def run(scenario: Path, out: Path, *extra: str) -> int:
    return main(["run", str(scenario), "--out", str(out), "--duration", "1s", "-q", *extra])


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_a_reused_out_keeps_none_of_the_earlier_runs_figures(tmp_path):
    out = tmp_path / "x"
    assert run(DEMO, out) == 0
    assert "throughput.png" in names(out)
    assert run(LINEAR, out, "--no-figures") == 0
    assert not [n for n in names(out) if n.endswith(".png")], names(out)
    assert json.loads((out / "summary.json").read_text())["scenario"] == "sf-clock-linear"
    assert not [n for n in names(out) if n.startswith(".ndncc-save-")]


def test_plot_never_draws_tables_another_run_left(tmp_path, capsys):
    out = tmp_path / "x"
    assert run(DEMO, out) == 0
    # the second run keeps no tables: the demo's must not stay to be drawn under its name
    assert run(LINEAR, out, "--no-figures", "--set", "trace.parquet=false") == 0
    assert main(["plot", str(out)]) == 3
    assert "app_series.parquet" in capsys.readouterr().err
    assert not [n for n in names(out) if n.endswith(".png")]
    # a table copied in by hand from another run is named, not drawn
    other = tmp_path / "other"
    assert run(DEMO, other) == 0
    assert run(LINEAR, out, "--no-figures") == 0
    (out / "app_series.parquet").write_bytes((other / "app_series.parquet").read_bytes())
    assert main(["plot", str(out)]) == 3
    err = capsys.readouterr().err
    assert "app_series.parquet" in err and "changed since ndncc wrote it" in err


def test_a_folder_ndncc_did_not_write_is_refused_and_its_files_kept(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    own = {"summary.json": b'{"my": "notes"}', "throughput.png": b"my plot", "notes.txt": b"n"}
    for name, data in own.items():
        (mine / name).write_bytes(data)

    def untouched() -> bool:
        return {p.name: p.read_bytes() for p in mine.iterdir()} == own

    assert run(DEMO, mine) == 3
    err = capsys.readouterr().err
    assert "ndncc did not write" in err and "--force" in err and "Traceback" not in err
    assert untouched()
    result = ndncc.run(DEMO, duration="1s")
    with pytest.raises(FolderInUseError, match="did not write"):
        result.save(mine)
    with pytest.raises(FolderInUseError):
        ndncc.run(DEMO, duration="1s", out=mine)
    assert untouched()
    # plot --out into it: refused too
    run_dir = tmp_path / "r"
    assert run(DEMO, run_dir) == 0
    assert main(["plot", str(run_dir), "--out", str(mine)]) == 3
    assert untouched()
    # --force writes into it: files of ndncc's names replaced, the others kept
    assert run(DEMO, mine, "--force") == 0
    assert (mine / "notes.txt").read_bytes() == b"n"
    assert json.loads((mine / "summary.json").read_text())["scenario"] != "my"
    # the folder is ndncc's now: the next run needs no --force, and still keeps notes.txt
    assert run(LINEAR, mine, "--no-figures") == 0
    assert names(mine) >= {"notes.txt", "summary.json"}
    assert "throughput.png" not in names(mine)


def test_figures_go_to_their_own_run_or_a_figures_folder_only(tmp_path, capsys):
    a, b, figs = tmp_path / "a", tmp_path / "b", tmp_path / "figs"
    assert run(DEMO, a) == 0
    assert run(LINEAR, b) == 0
    assert main(["plot", str(a), "--out", str(b)]) == 3  # another run's folder
    assert "another run's files" in capsys.readouterr().err
    assert main(["plot", str(a), "--out", str(figs)]) == 0
    assert read_manifest(figs)["kind"] == "figures"
    assert main(["plot", str(b), "--out", str(figs)]) == 0  # figures replace figures
    assert main(["plot", str(a)]) == 0  # its own folder: stays a run folder
    assert read_manifest(a)["kind"] == "run"
    assert ndncc.Result.load(a).scenario_name == "demo-dumbbell"


def test_an_interrupted_save_is_named_when_loaded(tmp_path):
    out = tmp_path / "x"
    ndncc.run(DEMO, duration="1s", out=out)
    man = json.loads((out / MANIFEST).read_text())
    man["complete"] = False
    (out / MANIFEST).write_text(json.dumps(man))
    with pytest.raises(ValueError, match="interrupted"):
        ndncc.Result.load(out)


SLOW_SAVE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import ndncc
    from ndncc import plots

    out = Path(sys.argv[1])
    ndncc.run(sys.argv[2], duration="1s", out=out)  # an earlier run, whole
    result = ndncc.run(sys.argv[2], duration="2s")

    def slow(result, folder):
        (Path(folder) / "throughput.png").write_bytes(b"half")
        print("writing", flush=True)
        time.sleep(120)

    plots.plot_result = slow
    result.save(out)
    """
)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_sigterm_during_a_save_leaves_no_staging_folder(tmp_path):
    out = tmp_path / "x"
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_SAVE, str(out), str(DEMO)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "writing"
        before = snapshot(out)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == -signal.SIGTERM  # ended by the signal, as asked
    finally:
        proc.kill()
    assert not [n for n in names(out) if n.startswith(".ndncc-save-")], names(out)
    assert snapshot(out) == before  # the earlier run is whole
    assert ndncc.Result.load(out).summary["sim_time_s"] == 1.0


TERM_WHILE_MOVING = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import ndncc
    from ndncc import files

    out = Path(sys.argv[1])
    ndncc.run(sys.argv[2], duration="1s", out=out)
    result = ndncc.run(sys.argv[2], duration="2s")
    real = os.replace
    calls = []

    def replace(a, b):
        calls.append(b)
        if len(calls) == 3:  # the manifest, then the first file: now a signal comes
            os.kill(os.getpid(), signal.SIGTERM)
        return real(a, b)

    files.os.replace = replace
    result.save(out)
    print("saved", flush=True)
    """
)


def test_sigterm_while_files_move_waits_for_the_move(tmp_path):
    out = tmp_path / "x"
    done = subprocess.run(
        [sys.executable, "-c", TERM_WHILE_MOVING, str(out), str(DEMO)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert "saved" not in done.stdout  # the process ended right after the save
    assert not [n for n in names(out) if n.startswith(".ndncc-save-")]
    assert ndncc.Result.load(out).summary["sim_time_s"] == 2.0  # the new run, whole


def test_a_staging_folder_of_a_killed_save_is_removed_by_the_next_save(tmp_path):
    import socket

    out = tmp_path / "x"
    ndncc.run(DEMO, duration="1s", out=out)
    host = socket.gethostname()
    dead = out / f".ndncc-save-{host}-999999999-0000"  # no such process
    live = out / f".ndncc-save-{host}-1-0000"  # init: a save still running, left alone
    for d in (dead, live):
        d.mkdir()
        (d / "summary.json").write_text("{}")
    ndncc.run(DEMO, duration="1s", out=out)
    assert not dead.exists() and live.exists()


CTRL_C_WHILE_MOVING = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from ndncc import files
    from ndncc.cli import main

    out, scenario = sys.argv[1], sys.argv[2]
    assert main(["run", scenario, "--out", out, "--duration", "1s", "-q"]) == 0
    real = os.replace
    calls = []

    def replace(a, b):
        calls.append(b)
        if len(calls) == 3:  # the manifest, then the first file: now Ctrl-C
            os.kill(os.getpid(), signal.SIGINT)
        return real(a, b)

    files.os.replace = replace
    # the CLI has its own Ctrl-C handler (ndncc.interrupt): it waits for the move too
    sys.exit(main(["run", scenario, "--out", out, "--duration", "2s", "-q"]))
    """
)


def test_ctrl_c_while_files_move_waits_for_the_move_under_the_cli(tmp_path):
    out = tmp_path / "x"
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_WHILE_MOVING, str(out), str(DEMO)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 130, done.stderr
    said = [ln for ln in done.stderr.splitlines() if not ln.startswith("warning: ")]
    assert said == ["interrupted"], done.stderr  # the scenario's warnings aside (run -q)
    assert not [n for n in names(out) if n.startswith(".ndncc-save-")]
    assert ndncc.Result.load(out).summary["sim_time_s"] == 2.0  # the new run, whole
