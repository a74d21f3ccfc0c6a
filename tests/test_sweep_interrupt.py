"""Ctrl-C during `ndncc sweep --jobs 2`: pressed twice (the terminal sends SIGINT to the whole
process group: driver, fork server, workers), the sweep stops its runs and exits 130 with one
line, every time — it used to print KeyboardInterrupt tracebacks and, 3 times in 6, hang."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenarios" / "demo" / "dumbbell.toml"
# runs of tens of seconds each: the Ctrl-C comes while both workers are inside one
SPEC = f"""
[sweep]
name = "interrupted"
scenario = "{DEMO}"
seeds = 4

[overrides]
"scenario.duration" = "3000s"
"trace.figures" = false
"""


def alive(pgid: int) -> list[str]:
    """The process group's processes that are not zombies."""
    ps = subprocess.run(
        ["ps", "-o", "stat=,args=", "-g", str(pgid)], capture_output=True, text=True, check=False
    )
    return [ln for ln in ps.stdout.splitlines() if ln.strip() and not ln.lstrip().startswith("Z")]


def wait_for(path: Path, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"{path} did not appear within {timeout:g} s"
        time.sleep(0.05)


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")
@pytest.mark.parametrize("attempt", range(3))
def test_two_ctrl_c_stop_a_sweep_with_130_and_one_line(tmp_path, attempt):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.Popen(
        [sys.executable, "-m", "ndncc", "sweep", str(spec), "--out", str(out), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        env=env,
    )
    try:
        # the runs are under way once the store is made and the workers had time to start
        wait_for(out / "campaign.json", 120)
        time.sleep(1.0 + 0.5 * attempt)
        os.killpg(p.pid, signal.SIGINT)
        time.sleep(0.2)
        os.killpg(p.pid, signal.SIGINT)
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("the sweep did not exit within 30 s of Ctrl-C")
        assert p.returncode == 130, err
        assert err.strip() == "interrupted", err
        end = time.monotonic() + 10
        while alive(p.pid) and time.monotonic() < end:
            time.sleep(0.1)
        assert not alive(p.pid), alive(p.pid)
    finally:
        if p.poll() is None or alive(p.pid):
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


CLEAN_UP = """
import os, signal, time
from ndncc import interrupt

def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(2)  # the handler runs at once and wakes the sleep

try:
    with interrupt.handled(command=True):
        try:
            ctrl_c()  # first: KeyboardInterrupt
            print("not interrupted", flush=True)
        finally:  # the command's clean-up
            ctrl_c()  # second: ignored, the clean-up goes on
            print("clean-up went on", flush=True)
            ctrl_c()  # third: the process ends now
            print("not ended", flush=True)
except KeyboardInterrupt:
    print("reached the handler", flush=True)
"""


def test_a_second_ctrl_c_lets_the_clean_up_finish_and_a_third_ends_it():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.run(
        [sys.executable, "-c", CLEAN_UP], capture_output=True, text=True, timeout=60, env=env
    )
    assert p.returncode == 130
    assert p.stdout.splitlines() == ["clean-up went on"]
    assert p.stderr == "interrupted\n"
