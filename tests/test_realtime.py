"""Real OS clock tools: the send loop command, load windows that never outlive the command,
and the clock probe. Rates achieved are measured by the commands, never asserted here."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ndncc import realtime
from ndncc.cli import main
from ndncc.scenario import read_clock_profile


def children_of(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            kids.append(int(entry.name))
    return kids


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_load_processes_die_with_a_killed_command(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "ndncc.cli",
        "sendloop",
        "--rate",
        "1Mbps",
        "--duration",
        "30s",
        "--load",
        "0s-30s:2",
        "--out",
        str(tmp_path),
        "-q",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids: list[int] = []
    deadline = time.monotonic() + 20
    while len(kids) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        kids = children_of(proc.pid)
    assert len(kids) == 2, "the load processes did not start"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while any(alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(k) for k in kids), "a load process outlived the command"


def test_load_window_starts_and_stops_itself():
    # a window long enough to be seen even on a loaded machine; it must end by itself
    w = realtime.LoadWindow(0.0, 3.0, 1)
    w.begin()
    deadline = time.monotonic() + 10
    while not w.pids and time.monotonic() < deadline:
        time.sleep(0.05)
    pids = w.pids
    assert len(pids) == 1
    deadline = time.monotonic() + 10
    while w.pids and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not w.pids
    w.close()
    assert not alive(pids[0])


@pytest.mark.parametrize("text", ["20s-10s:2", "1s-2s:0", "nonsense", "1x-2s:1"])
def test_bad_load_windows_are_rejected(text):
    with pytest.raises(ValueError):
        realtime.LoadWindow.parse(text)


def test_sendloop_command_writes_the_rate_series(tmp_path, capsys):
    assert (
        main(
            [
                "sendloop",
                "--engine",
                "rmc",
                "--rate",
                "8Mbps",
                "--size",
                "1000",
                "--duration",
                "1s",
                "--out",
                str(tmp_path),
                "-q",
            ]
        )
        == 0
    )
    data = json.loads((tmp_path / "sendloop.json").read_text())
    assert len(data["effective_bps"]) == 10
    assert data["packets"] > 0 and (tmp_path / "sendloop.png").is_file()
    # the engine never sends more than owed: 1000 packets/s for 1 s, plus the first
    assert data["packets"] <= 1001


@pytest.mark.parametrize(
    "argv",
    [
        ["--kr", "2.5"],
        ["--rate=-5Mbps"],
        ["--size", "0"],
        ["--load", "5s-1s:2"],
        ["--duration", "1s", "--load", "20s-40s:2"],  # after the run: would never happen
        ["--duration", "1s", "--step", "1s-2s:0.5"],
        ["--step", "garbage"],
        ["--step", "0.1s-0.2s:inf"],
        ["--step", "0.1s-0.2s:nan"],
        ["--duration", "10"],
        ["--duration", "0s"],
        ["--duration", "1e30s"],
        ["--rate", "0Mbps"],
        ["--period", "0ms"],
        ["--granularity", "1e30s"],
        ["--target", "foo"],
        ["--target", "localhost:9"],
        ["--target", "127.0.0.1:0"],
        ["--load", "0s-1s:1000"],
        ["--engine", "rmc", "--granularity", "1ms"],  # would be ignored
        ["--engine", "rfc3448", "--period", "1ms"],
        ["--engine", "rmc", "--period", "1s", "--duration", "1s"],  # one turn of the loop
        ["--out", "/proc/no/such/dir"],
    ],
)
def test_sendloop_bad_flags_exit_3(argv, tmp_path, capsys):
    assert main(["sendloop", "--out", str(tmp_path), "-q", *argv]) == 3
    assert capsys.readouterr().err.strip()


def test_clock_probe_writes_a_profile_the_scenarios_accept(tmp_path):
    out = tmp_path / "sub" / "p.json"
    argv = ["clock-probe", "--out", str(out), "--duration", "0.5s", "--load", "1"]
    assert main(argv) == 0
    data = json.loads(out.read_text())
    assert set(data["profiles"]) == {"idle", "load"}
    assert set(data["sleep_only"]) == {"idle", "load"}
    assert data["period_ns"] == 100_000 and data["packet_size"] == 1500
    for state in ("idle", "load"):
        granularity, samples = read_clock_profile(out, state)
        assert granularity == data["granularity_ns"] > 0
        # a sender due every 100 µs for 0.4-0.5 s wakes thousands of times, never early
        assert len(samples) > 100 and min(samples) >= 0


@pytest.mark.parametrize(
    "argv",
    [
        ["--period", "0s"],
        ["--period", "soon"],
        ["--duration", "0.1s"],
        ["--duration", "3"],
        ["--size", "0"],
        ["--load", "-1"],
        ["--period", "1s"],  # more than a tenth of the 3 s per state
        ["--duration", "1e30s"],
        ["--out", "/proc/no/such/dir/p.json"],
    ],
)
def test_clock_probe_bad_flags_exit_3_before_measuring(argv, tmp_path, capsys):
    base = ["clock-probe", "--out", str(tmp_path / "p.json")]
    assert main([*base, *argv]) == 3
    assert capsys.readouterr().err.startswith("error: ")


def test_relative_error_uses_full_bins_only():
    run = realtime.SendLoopRun(
        "rmc", 1000, 1.0, 0.25, [(0.0, 8000.0)], [250, 250, 250, 200], 4, 0, 0, 1.0
    )
    assert run.relative_error(0.0, 0.75) == pytest.approx(0.0)
    assert run.relative_error() == pytest.approx(0.05)
    assert os.cpu_count()


def test_a_bin_cut_by_a_rate_step_is_owed_each_rate_for_its_time():
    # 8000 bit/s, halved at 0.375 s: the second bin (0.25-0.5 s) owes 250·0.5 + 125·0.5 bytes
    run = realtime.SendLoopRun(
        "rmc", 1000, 1.0, 0.25, [(0.0, 8000.0), (0.375, 4000.0)], [250, 187.5, 125, 125], 0, 0, 0, 1
    )
    assert run.mean_requested_bps(0.25, 0.5) == pytest.approx(6000.0)
    assert run.relative_error() == pytest.approx(0.0)
    assert run.requested_bps(0.4) == 4000.0


def _can_unshare() -> bool:
    try:
        r = subprocess.run(
            ["unshare", "-Urpf", "--mount-proc", "true"], capture_output=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="needs unshare (a PID namespace)")
def test_load_processes_start_when_ndncc_is_pid_1():
    # a container's init: the children's parent is pid 1, which must not look like "orphaned"
    script = (
        "import time\n"
        "from ndncc import realtime\n"
        "w = realtime.LoadWindow(0.0, 5.0, 2)\n"
        "w.begin()\n"
        "time.sleep(1.0)\n"
        "print(len(w.pids))\n"
        "w.close()\n"
    )
    r = subprocess.run(
        ["unshare", "-Urpf", "--mount-proc", sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "2"


def test_clock_probe_never_overwrites_what_is_not_a_profile(tmp_path, capsys):
    scenario = tmp_path / "base.toml"
    scenario.write_text("[scenario]\n")
    for out in (tmp_path, scenario):  # a directory; an existing file of another kind
        assert main(["clock-probe", "--duration", "0.5s", "--load", "0", "--out", str(out)]) == 3
        assert "--out" in capsys.readouterr().err
    assert scenario.read_text() == "[scenario]\n"
    assert main(["clock-probe", "--load", "65", "--out", str(tmp_path / "p.json")]) == 3


def test_a_deeply_nested_clock_profile_is_a_clear_error(tmp_path):
    from ndncc.scenario import ScenarioError

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ScenarioError) as e:
        read_clock_profile(deep)
    assert "nested too deeply" in str(e.value)
