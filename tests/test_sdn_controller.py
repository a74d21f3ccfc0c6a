"""The SDN controller on real sockets (`docs/sdn-control-protocol.md`): `ndnccd sdn-controller`
as its own process, its framed control connections (a bad frame drops the connection, never
the controller), and ndnSieve's multipath scenario 1 under `ndncc emulate` with the controller
killed and restarted mid-run: the routers reconnect, the new controller learns the topology
again and handles the next mild-congestion event (real processes; a few seconds each)."""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ndncc.emulate import run
from ndncc.scenario import Scenario
from rt_helpers import ndnccd_binary

ROOT = Path(__file__).resolve().parents[1]
SIEVE_MP1 = ROOT / "scenarios" / "sieve" / "multipath-1.toml"


@pytest.fixture(scope="module")
def ndnccd() -> Path:
    return ndnccd_binary()


def hello(node: int) -> bytes:
    """A HELLO frame of a router with no faces, routes or metrics."""
    body = struct.pack(">IQBHHH", node, 1_000_000, 1, 0, 0, 0)
    return struct.pack(">BBI", 1, 1, len(body)) + body


def start_controller(ndnccd: Path, tmp: Path, nodes: int = 1):
    sock = tmp / "c.sock"
    cfg = tmp / "c.toml"
    cfg.write_text(
        f'nodes = {nodes}\n[listen]\nunix = "{sock}"\n[component.sieve]\npoll = "100ms"\n'
    )
    err = open(tmp / "c.err", "w")  # noqa: SIM115 - closed by the caller's stop
    p = subprocess.Popen([str(ndnccd), "sdn-controller", str(cfg)], stderr=err)
    for _ in range(500):
        if sock.exists():
            break
        time.sleep(0.01)
    return p, sock, err


def stop(p, err) -> dict:
    p.terminate()
    p.wait(timeout=10)
    err.close()
    for line in Path(err.name).read_text().splitlines():
        if line.startswith("sdn-controller: stopped "):
            return json.loads(line[len("sdn-controller: stopped ") :])
    raise AssertionError(Path(err.name).read_text())


def wait_for(path: Path, text: str) -> None:
    for _ in range(500):
        if text in path.read_text():
            return
        time.sleep(0.01)
    raise AssertionError(f"{text!r} not in {path.read_text()!r}")


@pytest.mark.parametrize(
    "frame, says",
    [
        (b"GET / HTTP/1.1\r\n\r\n", "unsupported protocol version 71"),
        (bytes([1, 9, 0, 0, 0, 0]), "unknown message type 9"),
        (bytes([1, 2, 0xFF, 0xFF, 0xFF, 0xFF]), "larger than"),
        # a FACE_REPORT before the HELLO
        (struct.pack(">BBIQB", 1, 2, 9, 256, 0), "before HELLO"),
        # a HELLO from a node outside the topology
        (hello(7), "outside the topology"),
    ],
)
def test_a_bad_frame_drops_its_connection_and_the_controller_carries_on(
    ndnccd, tmp_path, frame, says
):
    p, sock, err = start_controller(ndnccd, tmp_path)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(sock))
        s.sendall(frame)
        s.settimeout(5)
        assert s.recv(100) == b""  # dropped
        s.close()
        wait_for(tmp_path / "c.err", says)
        assert p.poll() is None
        # a good router is still welcome
        ok = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ok.connect(str(sock))
        ok.sendall(hello(0))
        wait_for(tmp_path / "c.err", "topology of 1 nodes learned")
        ok.close()
    finally:
        report = stop(p, err)
    assert report["controller"]["bad_frames"] == 1
    assert report["controller"]["hellos"] == 1
    line = next(ln for ln in (tmp_path / "c.err").read_text().splitlines() if says in ln)
    assert "connection dropped" in line


def test_a_frame_cut_short_by_the_router_is_named(ndnccd, tmp_path):
    p, sock, err = start_controller(ndnccd, tmp_path)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(sock))
        s.sendall(hello(0)[:9])
        s.close()
        wait_for(tmp_path / "c.err", "connection closed inside a frame (9 bytes")
    finally:
        report = stop(p, err)
    assert report["controller"]["bad_frames"] == 1


@pytest.mark.parametrize(
    "text, says",
    [
        ("nodes = 2\n[component.sieve]\n", "nothing to listen on"),
        (
            'nodes = 2\n[listen]\nunix = "/tmp/x"\n[component.sieve]\npoll = "5 fortnights"\n',
            "component.sieve.poll",
        ),  # fmt: skip
        ('nodes = 2\n[listen]\nunix = "/tmp/x"\n[component.sift]\n', "unknown scheme"),
        ('nodes = 2\n[listen]\nunix = "/tmp/x"\n[component.sieve]\nth2 = 7\n', "th2"),
        ("nodez = 2\n", "line 1"),
    ],
)
def test_a_bad_controller_config_is_one_line(ndnccd, tmp_path, text, says):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    r = subprocess.run(
        [str(ndnccd), "sdn-controller", str(cfg)], capture_output=True, text=True, timeout=10
    )
    assert r.returncode == 2
    assert says in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and "panicked" not in r.stderr


def test_ndncc_sdn_controller_runs_the_daemons_controller(ndnccd, tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "ndncc",
            "sdn-controller",
            str(tmp_path / "missing.toml"),
            "--ndnccd",
            str(ndnccd),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 2
    assert "cannot read" in r.stderr and "missing.toml" in r.stderr
    assert r.stderr.count("\n") == 1


def test_a_bad_start_time_is_one_line(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "ndncc",
            "consumer",
            "--prefix",
            "/p",
            "--start-at",
            "-5",
            "--forwarder",
            f"unix://{tmp_path / 'none.sock'}",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0
    assert "--start-at -5.0: a Unix time in seconds" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_sieve_multipath_survives_a_controller_restart(ndnccd, tmp_path):
    """ndnSieve multipath scenario 1 for 4 s; the controller is SIGKILLed 1.5 s in and started
    again. Every router reconnects; the new controller learns the 6 nodes again, receives a
    mild-congestion signal and reroutes; R1 gets its metrics and forwards on both faces."""
    sc = Scenario.load(SIEVE_MP1).with_overrides(duration="4s")
    out = tmp_path / "real"
    s = run.emulate(sc, out, mode="loopback", restart_controller_at=1.5, realtime=False)
    assert s["sdn_controller_restarts"] == 1
    ctl = s["sdn_controller"]  # the restarted controller's report
    assert ctl is not None, (out / "logs" / "sdn-controller-2.err").read_text()
    assert ctl["nodes_known"] == 6 and ctl["controller"]["builds"] == 1
    assert ctl["controller"]["bad_frames"] == 0
    # R1's HELLO handed the new controller the metrics it held from the first one (one per
    # next hop): the controller weighs moves against the next hop R1 really uses
    assert ctl["controller"]["held_metrics_in"] >= 2, ctl
    # the next mild-congestion event is handled by the new controller
    assert ctl["counters"]["mild"] >= 1, ctl
    assert ctl["counters"]["rerouted"] >= 1, ctl
    assert ctl["controller"]["messages_out"] >= 1 and ctl["controller"]["unlinked"] == 0
    for name, node in s["nodes"].items():
        sdn = node["sdn"]
        assert sdn["connects"] >= 2 and sdn["disconnects"] >= 1, (name, sdn)
        assert sdn["bad_frames"] == 0
    r1 = s["nodes"]["R1"]["sdn"]
    # the new controller's metrics reached R1 on its new connection
    assert r1["received_last_connection"] >= 1, r1
    # R1 forwarded on both of its next hops (R2's face and R3's)
    by_face = r1["interests_out_by_face"]
    assert len(by_face) == 3
    assert sorted(by_face.values())[1] > 0, by_face
    (c1,) = s["apps"]
    assert c1["data_received"] > 0 and c1["started_s"] >= 0.0
    log = (out / "logs" / "ndnccd-R1.err").read_text()
    assert "controller connection lost" in log
