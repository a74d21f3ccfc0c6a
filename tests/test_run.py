"""End-to-end: scenario → native simulator → Result → files; determinism; CLI behaviour."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ndncc
import pytest
from ndncc import Scenario
from ndncc.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenarios" / "demo" / "dumbbell.toml"


def lossy_line(seed: int = 1) -> Scenario:
    """C — R — P with random loss, so the seed matters."""
    return (
        Scenario(name="lossy", duration="2s", seed=seed)
        .link("C", "R", bandwidth="10Mbps", delay="5ms", loss=0.02)
        .link("R", "P", bandwidth="10Mbps", delay="5ms")
        .producer("P", "/p", payload="1000B")
        .consumer("C", "/p", rate=500, retransmit="timeout", timeout="100ms")
    )


def files_bytes(out: Path) -> dict[str, bytes]:
    """Every output file except figures, with summary.json's wall time removed."""
    got = {}
    for p in sorted(out.iterdir()):
        if p.suffix == ".png":
            continue
        data = p.read_bytes()
        if p.name == "summary.json":
            s = json.loads(data)
            assert s.pop("wall_time_s") >= 0
            data = json.dumps(s, sort_keys=True).encode()
        if p.name == "ndncc-manifest.json":  # holds summary.json's hash: the wall time too
            m = json.loads(data)
            assert m.pop("run") == m["files"].pop("summary.json")
            # and its size: 0.05 s and 0.012345 s are not as long (a flake under load)
            m.get("bytes", {}).pop("summary.json", None)
            data = json.dumps(m, sort_keys=True).encode()
        got[p.name] = data
    return got


def test_same_seed_gives_byte_identical_outputs(tmp_path):
    sc = lossy_line().trace(figures=False, rate_trace=True, app_delays_trace=True)
    ndncc.run(sc, out=tmp_path / "a")
    ndncc.run(sc, out=tmp_path / "b")
    a, b = files_bytes(tmp_path / "a"), files_bytes(tmp_path / "b")
    assert set(a) >= {
        "summary.json",
        "meta.json",
        "app_series.parquet",
        "face_series.parquet",
        "node_series.parquet",
        "delays.parquet",
        "rate-trace.txt",
        "app-delays-trace.txt",
    }
    assert a == b


def test_other_seed_or_run_gives_other_random_streams(tmp_path):
    base = ndncc.run(lossy_line(seed=1))
    other_seed = ndncc.run(lossy_line(seed=2))
    other_run = ndncc.run(lossy_line(seed=1).with_overrides(run=1))
    key = ["time_s", "seq"]
    assert not base.delays[key].equals(other_seed.delays[key])
    assert not base.delays[key].equals(other_run.delays[key])
    assert base.summary["link_losses"] > 0


def test_python_built_scenario_equals_toml(tmp_path):
    toml = tmp_path / "line.toml"
    toml.write_text(
        """
[scenario]
name = "lossy"
duration = "2s"
seed = 1

[[links]]
between = ["C", "R"]
bandwidth = "10Mbps"
delay = "5ms"
loss = 0.02

[[links]]
between = ["R", "P"]
bandwidth = "10Mbps"
delay = "5ms"

[[apps]]
node = "P"
kind = "producer"
prefix = "/p"
payload = "1000B"

[[apps]]
node = "C"
kind = "consumer"
prefix = "/p"
rate = 500
retransmit = "timeout"
timeout = "100ms"
"""
    )
    from_toml = ndncc.run(toml)
    from_python = ndncc.run(lossy_line())
    assert from_toml.summary["apps"] == from_python.summary["apps"]
    assert Scenario.load(toml).resolve()["links"] == lossy_line().resolve()["links"]


def test_result_has_summary_fields_and_frames():
    r = ndncc.run(DEMO, duration="3s")
    s = r.summary
    for key in ("scenario", "seed", "sim_time_s", "wall_time_s", "events", "apps", "faces"):
        assert key in s
    assert "fairness_jain" in s
    a = s["apps"][0]
    for key in (
        "name",
        "node",
        "interests_sent",
        "data_received",
        "nacks_received",
        "timeouts",
        "retransmissions",
        "throughput_mbps",
        "delivery_ratio",
        "delay_ms",
    ):
        assert key in a
    assert set(a["delay_ms"]) == {"mean", "std", "p50", "p99"}
    assert s["sim_time_s"] == 3.0
    assert len(r.series) == 4 * 30  # 4 consumers × 30 bins of 100 ms
    assert r.series["throughput_mbps"].max() > 0


def test_progress_callback_reaches_the_end():
    seen = []
    ndncc.run(DEMO, duration="2s", progress=lambda t, total: seen.append((t, total)))
    assert seen and seen[-1] == (2.0, 2.0)


def test_progress_exception_stops_the_run():
    def boom(t, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        ndncc.run(DEMO, progress=boom)


# ---- CLI -------------------------------------------------------------------------------------


def test_cli_run_writes_results_and_plot_redraws(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["run", str(DEMO), "--out", str(out), "--duration", "2s", "-q"]) == 0
    assert (out / "summary.json").is_file() and (out / "throughput.png").is_file()
    (out / "throughput.png").unlink()
    assert main(["plot", str(out)]) == 0
    assert (out / "throughput.png").is_file()


def test_cli_exit_codes(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[scenario]\nduration = "10s"\n[[links]]\nbetween = ["A", "B"]\nbandwith = "1Mbps"\n'
    )
    assert main(["validate", str(bad)]) == 3
    err = capsys.readouterr().err
    assert "bandwith" in err and "bandwidth" in err
    assert main(["validate", str(DEMO)]) == 0
    assert main(["run", str(tmp_path / "missing.toml")]) == 3
    # a directory or a device is not read (/dev/zero would never end)
    assert main(["validate", str(tmp_path)]) == 3
    assert main(["run", "/dev/zero"]) == 3
    with pytest.raises(SystemExit) as e:
        main(["run"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["frobnicate"])
    assert e.value.code == 2


def test_cli_plot_rejects_damaged_run_dir(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["run", str(DEMO), "--out", str(out), "--duration", "1s", "-q"]) == 0
    p = out / "delays.parquet"
    p.write_bytes(p.read_bytes()[:100])
    assert main(["plot", str(out)]) == 3
    assert "delays.parquet" in capsys.readouterr().err
    assert main(["plot", str(tmp_path / "nowhere")]) == 3


def test_cli_plot_rejects_files_of_the_wrong_shape(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["run", str(DEMO), "--out", str(out), "--duration", "1s", "-q"]) == 0
    good = (out / "summary.json").read_bytes()
    for text in ("[]", "null", "1", "NaN"):
        (out / "summary.json").write_text(text)
        assert main(["plot", str(out)]) == 3
        assert "summary.json" in capsys.readouterr().err
    (out / "summary.json").write_bytes(b"\xff\xfe")
    assert main(["plot", str(out)]) == 3
    assert "summary.json" in capsys.readouterr().err
    (out / "summary.json").write_bytes(good)
    # another table's file in place of the app series
    (out / "app_series.parquet").write_bytes((out / "node_series.parquet").read_bytes())
    assert main(["plot", str(out)]) == 3
    assert "not an ndncc app_series table" in capsys.readouterr().err


def test_cli_out_that_cannot_be_a_directory_is_an_input_error(tmp_path, capsys):
    afile = tmp_path / "afile.txt"
    afile.write_text("keep me")
    for argv in (
        ["run", str(DEMO), "--duration", "1s", "-q", "--out", str(afile)],
        ["run", str(DEMO), "--duration", "1s", "-q", "--out", str(afile / "sub")],
        ["reproduce", "sf-clock", "--quick", "-q", "--out", str(afile)],
        ["plot", str(tmp_path / "r"), "--out", str(afile)],
    ):
        if argv[0] == "plot":
            assert (
                main(["run", str(DEMO), "--out", str(tmp_path / "r"), "-q", "--duration", "1s"])
                == 0
            )
        assert main(argv) == 3, argv
        assert "--out" in capsys.readouterr().err
    assert afile.read_text() == "keep me"


def test_cli_refuses_absurd_counts(capsys):
    assert main(["reproduce", "sf-clock", "--jobs", "99999999999999999999"]) == 3
    assert main(["bench", "--repeat", "0"]) == 3
    assert capsys.readouterr().err.count("error:") == 2


def test_cli_set_override_and_bad_set(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["run", str(DEMO), "--out", str(out), "-q", "--set", "scenario.duration=1s"]) == 0
    assert json.loads((out / "summary.json").read_text())["sim_time_s"] == 1.0
    assert main(["run", str(DEMO), "-q", "--set", "nonsense"]) == 3


@pytest.mark.parametrize("command", ["run", "validate", "plot", "bench"])
def test_every_command_has_help(command):
    out = subprocess.run(
        [sys.executable, "-m", "ndncc.cli", command, "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "usage: ndncc" in out.stdout


def test_bench_json_reports_every_field():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ndncc.cli",
            "bench",
            "--json",
            "--repeat",
            "1",
            "--workload",
            "dumbbell-1000",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    r = json.loads(out.stdout)["dumbbell-1000"]
    for key in ("wall_s", "events", "events_per_s", "peak_rss_mb", "packet_hops_per_s"):
        assert r[key] > 0
    assert r["sim_time_s"] == 10.0
    # the phases are parts of the one call (parse, build, loop, …, freeing) and tile it
    phases = r["phases"]
    assert set(phases) == {
        "parse_s",
        "routes_s",
        "build_s",
        "loop_s",
        "report_s",
        "tables_s",
        "teardown_s",
        "serialize_s",
        "free_s",
    }
    assert all(v >= 0 for v in phases.values())
    assert phases["loop_s"] > 0 and sum(phases.values()) <= r["wall_s"]
    assert r["loop_s"] == phases["loop_s"]
    assert r["loop_events_per_s"] == r["events"] / r["loop_s"]


def test_every_nack_a_consumer_gets_ends_a_pit_entry_at_its_node():
    # SF on a 100 ms tick (seed 002's linear topology) draws Nacks from the routers
    linear = ROOT / "scenarios" / "sf-clock" / "linear.toml"
    ov = {"apps[consumer].engine": "tick", "apps[consumer].tick": "100ms"}
    r = ndncc.run(linear, overrides=ov)
    app = r.summary["apps"][0]
    assert app["nacks_received"] > 0
    rejected = r.node_series.groupby("node_name")["rejected"].sum()
    # one PIT entry at C per Interest of the app, ended by the Nack the app receives (whether
    # C's own limiter refused the Interest or an upstream Nacked it)
    assert rejected["C"] == app["nacks_received"]


def test_randomized_gaps_break_the_demo_phase_lock():
    # the demo's four periodic senders phase-lock at the drop-tail queue once all four run:
    # one starves; ndnSIM-style random gaps share the bottleneck
    names = ["c1", "c2", "c3", "c4"]

    def shares(ov):
        r = ndncc.run(DEMO, overrides=ov)
        late = r.series[r.series.time_s > 6.5]
        return late.groupby("app_name")["throughput_mbps"].mean()

    periodic = shares({})
    assert periodic.min() < 0.25 * periodic.max()
    randomized = shares({f"apps[{n}].randomize": "uniform" for n in names})
    assert randomized.min() > 0.8 * randomized.max()
    assert randomized.sum() == pytest.approx(periodic.sum(), rel=0.1)


def test_a_save_that_fails_midway_leaves_the_earlier_run_whole(tmp_path, monkeypatch):
    import errno

    from ndncc import plots

    out = tmp_path / "r"
    first = ndncc.run(DEMO, duration="1s", out=out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(plots, "plot_result", disk_full)  # after the data files, before figures
    second = ndncc.run(DEMO, duration="2s", tables=True)
    with pytest.raises(OSError):
        second.save(out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert first.summary["sim_time_s"] == 1.0
