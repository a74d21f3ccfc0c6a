"""ndncc emulate end to end: the linear SF topology (C—R1—R2—P) for 2 s of real time, one
ndnccd per node, on loopback ports and (as root) in network namespaces; Data flow end to end,
the summary, the series and the sim-vs-real report are written, nothing is left behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from ndncc.emulate import netns, run
from ndncc.procs import pid_alive
from rt_helpers import ndnccd_binary

ROOT = Path(__file__).resolve().parents[1]
LINEAR = ROOT / "scenarios" / "sf-clock" / "linear.toml"
SHORT = ["--duration", "2s", "--set", 'apps[consumer].stop="1500ms"', "--bin", "100ms"]


@pytest.fixture(scope="module")
def ndnccd() -> Path:
    return ndnccd_binary()


def emulate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ndncc", "emulate", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def check_run(out: Path, mode: str) -> dict:
    s = json.loads((out / "real" / "summary.json").read_text())
    assert s["mode"] == mode
    (c,) = s["apps"]
    (p,) = s["producers"]
    assert c["name"] == "consumer" and c["node"] == "C"
    assert c["data_received"] > 0, s
    assert c["data_received"] <= c["interests_sent"]
    # launched ahead, the consumer waits for its start (--start-at): never before it
    assert c["started_s"] >= 0.0
    assert p["data_sent"] >= c["data_received"]
    # every node on the path forwarded (satisfied) at least the Data the consumer got
    for node in ("C", "R1", "R2", "P"):
        assert s["nodes"][node]["forwarder"]["satisfied"] >= c["data_received"], node
    # each face's packets by type (the path split): every Data the consumer got came in on
    # R1's face towards R2, answering an Interest sent out on it
    up = next(f for f in s["faces"] if f["node"] == "R1" and f["peer"] == "R2")
    assert up["out_interests"] >= up["in_data"] >= c["data_received"], up
    assert up["in_interests"] == up["out_data"] == 0, up
    # a 10 Mbit/s path cannot deliver more than 10 Mbit/s over the 2 s the run lasts
    assert c["data_received"] * c["model_data_size"] * 8 <= 10e6 * 2.0
    # the Data are the scenario's size on the wire (payload + data_overhead = 1250 B)
    assert c["data_bytes"] == c["data_received"] * 1250
    # the series counts the same events as the report
    series = pd.read_parquet(out / "real" / "app_series.parquet")
    assert series["data"].sum() == c["data_received"]
    assert series["interests"].sum() == c["interests_sent"]
    assert series["time_s"].max() <= 2.0 + 0.5
    # the consumer stops sending at its stop (1.5 s) and keeps receiving until the end (2 s)
    assert series.loc[series["time_s"] > 1.5 + 0.1, "interests"].sum() == 0
    assert series.loc[series["time_s"] > 1.5 + 0.1, "data"].sum() > 0
    # the report: both columns, the relative difference, a figure
    table = json.loads((out / "sim-vs-real.json").read_text())
    row = next(r for r in table if r["metric"] == "Data received")
    assert row["real"] == c["data_received"]
    sim = json.loads((out / "sim" / "summary.json").read_text())
    assert row["sim"] == sim["apps"][0]["data_received"] > 0
    assert row["relative_difference"] == pytest.approx((row["real"] - row["sim"]) / row["sim"])
    assert "relative difference" in (out / "sim-vs-real.md").read_text()
    assert (out / "sim-vs-real.csv").read_text().count("\n") == len(table) + 1
    assert (out / "sim-vs-real.png").stat().st_size > 10_000
    for name in ("C", "R1", "R2", "P"):
        assert (out / "real" / "configs" / f"{name}.toml").exists()
    return s


def test_loopback_mode(ndnccd, tmp_path):
    r = emulate(str(LINEAR), "--mode", "loopback", "--out", str(tmp_path), "-q", *SHORT)
    assert r.returncode == 0, r.stderr
    s = check_run(tmp_path, "loopback")
    assert s["kernel_udp"] is None


@pytest.mark.skipif(
    netns.netns_unavailable() is not None,
    reason=f"network namespaces unavailable here: {netns.netns_unavailable()}",
)
def test_namespace_mode_cleans_up_a_crashed_runs_namespaces(ndnccd, tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = f"ndncc-{dead.pid}-0"
    stale_probe = f"ndncc-{dead.pid}-probe"  # a run killed during its availability check
    for name in (stale, stale_probe):
        subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        r = emulate(str(LINEAR), "--mode", "netns", "--out", str(tmp_path), "-q", *SHORT)
        assert r.returncode == 0, r.stderr
        s = check_run(tmp_path, "netns")
        # the kernel's counters: the consumer's node received every Data it got over UDP
        assert s["kernel_udp"]["C"]["InDatagrams"] >= s["apps"][0]["data_received"]
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert stale not in left and stale_probe not in left
        # the run's own namespaces are gone (another emulate running now may have some: its
        # process is alive)
        ours = [m for ln in left.splitlines() if (m := netns.NS_PATTERN.match(ln.split()[0]))]
        assert not [m.group(0) for m in ours if not pid_alive(int(m.group(1)))]
    finally:
        for name in (stale, stale_probe):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


def test_the_daemon_lists_what_emulate_accepts(ndnccd):
    """``ndnccd --list-modules`` (the binary emulate starts) and the planner's list (the native
    module) are the same list: a daemon built from other sources fails here."""
    from ndncc.emulate.plan import daemon_modules

    out = subprocess.run(
        [str(ndnccd), "--list-modules"], capture_output=True, text=True, check=True
    ).stdout
    listed = json.loads(out)
    loads = daemon_modules()
    assert listed == {"strategies": list(loads.strategies), "modules": list(loads.modules)}
    assert "pcon" in listed["strategies"]


@pytest.mark.parametrize(
    "scenario, checks",
    [
        # PCON: the pcon strategy and marking module on every daemon (refused before)
        ("pcon/dumbbell.toml", {"strategy": "pcon", "module": "pcon", "R2→R1": "1000p"}),
        # CHoPCoP: queues in bytes (refused before: "ndnccd's queues count packets")
        (
            "chopcop/baseline.toml",
            {"strategy": "best-route", "module": "chopcop", "B→C": "1500000B"},
        ),
    ],
)
def test_pcon_and_byte_queue_scenarios_run_on_the_daemons(ndnccd, tmp_path, scenario, checks):
    """2 s of each, no simulator: every consumer gets Data, the daemons run the scenario's
    strategy and module with its queues (byte queues in bytes), and the summary names each
    face's drops as the simulator's summary does."""
    r = emulate(
        str(ROOT / "scenarios" / scenario), "--duration", "2s", "--no-sim", "--out", str(tmp_path)
    )
    assert r.returncode == 0, r.stderr
    assert "queue drops:" in r.stderr
    s = json.loads((tmp_path / "real" / "summary.json").read_text())
    assert s["apps"] and all(a["data_received"] > 0 for a in s["apps"]), s["apps"]
    assert set(s["consumer_start_lag_s"]) == {a["name"] for a in s["apps"]}
    for cfg in (tmp_path / "real" / "configs").glob("*.toml"):
        fw = tomllib.loads(cfg.read_text())["forwarder"]
        assert fw["strategy"] == checks["strategy"] and set(fw["module"]) == {checks["module"]}
    faces = {f"{f['node']}→{f['peer']}": f for f in s["faces"] if f["peer"]}
    (key,) = [k for k in checks if "→" in k]
    assert faces[key]["queue"] == checks[key]
    assert faces[key]["max_queue_pkts"] > 0
    assert all(f["drops"] >= 0 and f["after_close"] >= 0 for f in s["faces"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["no/such/scenario.toml"], "no/such/scenario.toml"),
        (
            [str(LINEAR), "--set", "links[0].loss=0.01"],
            "cannot emulate: link 0 (C–R1): loss = 0.01",
        ),
        ([str(LINEAR), "--ndnccd", "/nonexistent/ndnccd"], "not an executable file"),
        ([str(LINEAR), "--plot-bin", "0"], "--plot-bin 0.0: must be > 0 s"),
        ([str(LINEAR), "--plot-bin", "nan"], "--plot-bin nan: must be > 0 s"),
        ([str(LINEAR), "--out", "{a file}"], "exists and is not a directory"),
    ],
)
def test_bad_input_is_one_line(tmp_path, args, message):
    (tmp_path / "f").write_text("", encoding="utf-8")
    args = [str(tmp_path / "f") if a == "{a file}" else a for a in args]
    out = [] if "--out" in args else ["--out", str(tmp_path / "o")]
    r = emulate(*args, *out, "-q")
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_missing_daemon_says_how_to_build(monkeypatch):
    monkeypatch.delenv("NDNCCD", raising=False)
    monkeypatch.setattr(run.os, "access", lambda *a, **k: False)
    monkeypatch.setattr(run.shutil, "which", lambda *a, **k: None)
    with pytest.raises(run.EmulateError, match="cargo build --release -p ndncc-rt --bin ndnccd"):
        run.find_ndnccd()


def test_netns_mode_refused_without_namespaces_and_auto_falls_back(monkeypatch):
    monkeypatch.setattr(run.netns, "netns_unavailable", lambda: "not root (test)")
    with pytest.raises(run.EmulateError, match="--mode netns: not root"):
        run.choose_mode("netns")
    assert run.choose_mode("auto") == (
        "loopback",
        "network namespaces unavailable: not root (test)",
    )
    assert run.choose_mode("loopback")[0] == "loopback"


def test_realtime_scheduling_needs_root(monkeypatch):
    monkeypatch.setattr(run.os, "geteuid", lambda: 1000)
    assert run.scheduling(True) == ([], "default (SCHED_FIFO needs root)")
    assert run.scheduling(False)[0] == []
    monkeypatch.setattr(run.os, "geteuid", lambda: 0)
    if shutil.which("chrt"):
        assert run.scheduling(True)[0][1:] == ["-f", str(run.RT_PRIORITY)]
    assert os.geteuid() >= 0
