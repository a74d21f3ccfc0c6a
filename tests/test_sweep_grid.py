"""A 200-run sweep of the seed-002 dumbbell grid on the local pool and on a Dask LocalCluster
(identical indexes), and a sweep whose driver is killed midway (SIGKILL) and restarted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import ndncc
import pytest
from ndncc.cli import main

ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = ROOT / "scenarios" / "sf-clock" / "dumbbell-2.toml"

ENGINES = {
    "ideal": {"engine": "ideal"},
    "tick 1 ms": {"engine": "tick", "tick": "1ms"},
    "tick 5 ms": {"engine": "tick", "tick": "5ms"},
    "tick 1 ms + smoothing": {"engine": "tick", "tick": "1ms", "smoothing": True},
    "tick 5 ms + smoothing": {"engine": "tick", "tick": "5ms", "smoothing": True},
}


def grid_spec(tmp: Path, depths: list[int], seeds: int, duration: float) -> Path:
    """Seed 002's dumbbell grid (bucket depth × engine, both consumers) over seeds, with 1 %
    loss on every link so that the seed matters."""
    levels = []
    for label, keys in ENGINES.items():
        ov = ", ".join(
            f'"apps[{c}].{k}" = {json.dumps(v) if not isinstance(v, bool) else "true"}'
            for c in ("c1", "c2")
            for k, v in keys.items()
        )
        levels.append(f'"{label}" = {{ {ov} }}')
    text = f"""
[sweep]
name = "grid"
scenario = "{DUMBBELL}"
seeds = {seeds}

[overrides]
"scenario.duration" = "{duration}s"
"apps[c1].stop" = "{duration - 0.1:.2f}s"
"apps[c2].stop" = "{duration - 0.1:.2f}s"
"defaults.link.loss" = 0.01

[grid]
"defaults.node.schemes.sf.depth" = {depths}

[grid.engine]
{chr(10).join(levels)}
"""
    path = tmp / "grid.toml"
    path.write_text(text)
    return path


def test_200_runs_on_the_pool_and_on_dask_give_identical_indexes(tmp_path):
    pytest.importorskip("distributed")
    spec = grid_spec(tmp_path, [50, 100, 500, 1000], seeds=10, duration=0.6)
    pool, dask = tmp_path / "pool", tmp_path / "dask"
    assert main(["sweep", str(spec), "--out", str(pool), "--jobs", "2", "-q"]) == 0
    assert (
        main(["sweep", str(spec), "--out", str(dask), "--dask", "local", "--jobs", "2", "-q"]) == 0
    )
    assert "distributed" in sys.modules
    # the index holds no wall times: the same runs give the same bytes, whoever ran them
    assert (pool / "index.parquet").read_bytes() == (dask / "index.parquet").read_bytes()
    assert sorted(os.listdir(pool / "runs")) == sorted(os.listdir(dask / "runs"))
    df = ndncc.load_sweep(pool)
    assert len(df) == 200 and df["key"].is_unique and (df["status"] == "ok").all()
    assert df["point"].nunique() == 20
    for _, g in df.groupby("point"):
        assert sorted(g["seed"]) == list(range(1, 11))  # seeds recorded, one run each
        assert g["throughput_mbps"].nunique() > 1  # and they matter
    # a run's files are the same wherever it ran (but for its wall time)
    key = df["key"].iloc[0]
    s1 = json.loads((pool / "runs" / key / "summary.json").read_text())
    s2 = json.loads((dask / "runs" / key / "summary.json").read_text())
    s1.pop("wall_time_s"), s2.pop("wall_time_s")
    assert s1 == s2
    for name in ("app_series.parquet", "face_series.parquet"):
        assert (pool / "runs" / key / name).read_bytes() == (
            dask / "runs" / key / name
        ).read_bytes()


def _finished(out: Path) -> dict[str, tuple[int, int]]:
    """run.json of every finished run: (inode, mtime) — a recomputed run would change both."""
    got = {}
    runs = out / "runs"
    if runs.is_dir():
        for d in runs.iterdir():
            try:
                st = (d / "run.json").stat()
            except FileNotFoundError:
                continue
            got[d.name] = (st.st_ino, st.st_mtime_ns)
    return got


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_killed_sweep_resumes_without_recomputing(tmp_path):
    spec = grid_spec(tmp_path, [50, 100, 500, 1000], seeds=4, duration=1.5)  # 80 runs
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ndncc.cli", "sweep", str(spec), "--out", str(out), "--jobs", "2"]
    driver = subprocess.Popen([*cmd, "-q"], stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120  # a guard against a hang, not a timing assertion
        while len(_finished(out)) < 10:
            assert driver.poll() is None, "the sweep ended before it could be killed"
            assert time.monotonic() < deadline, "no run finished"
            time.sleep(0.05)
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        # the pool's workers (and its fork server) notice their driver is gone and stop
        while _group_alive(driver.pid):
            assert time.monotonic() < deadline, "the killed sweep's workers live on"
            time.sleep(0.05)
    finally:
        if driver.poll() is None:
            driver.kill()
        try:
            os.killpg(driver.pid, signal.SIGKILL)  # anything of the first sweep still there
        except ProcessLookupError:
            pass
    before = _finished(out)
    assert 10 <= len(before) < 80
    # nothing looks finished that is not: every directory under runs/ is a whole run
    for d in (out / "runs").iterdir():
        assert (d / "run.json").is_file() and (d / "summary.json").is_file(), d
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{len(before)} already in" in done.stdout
    after = _finished(out)
    assert len(after) == 80
    assert {k: after[k] for k in before} == before  # not one finished run recomputed
    df = ndncc.load_sweep(out)
    assert len(df) == 80 and df["key"].is_unique and (df["status"] == "ok").all()
    assert sorted(df["key"]) == sorted(after)
    assert not [p for p in (out / ".staging").iterdir()]  # the killed runs' leftovers are gone
