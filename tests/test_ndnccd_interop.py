"""ndnccd with real NDN software: a python-ndn (0.5.2) producer and consumer exchange Data
through it and get Nack(NoRoute) for an unrouted name; python-ndn's ``pynfdc`` lists its faces,
routes and status; ndncc's PCON consumer declares timeouts on a real clock when a python-ndn
producer leaves an Interest unanswered. Skipped, with the reason, only when python-ndn is not
installed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rt_helpers import ndnccd_binary

pytest.importorskip("ndn", reason="python-ndn is not installed (pip install python-ndn==0.5.2)")

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

PRODUCER = """
from ndn.app import NDNApp
app = NDNApp()

@app.route('/test')
def on_interest(name, param, _app_param):
    app.put_data(name, content=b'hello', freshness_period=1000)

print('producer ready', flush=True)
app.run_forever()
"""

CONSUMER = """
import sys
from ndn.app import NDNApp
from ndn.encoding import Component, Name
from ndn.types import InterestNack, InterestTimeout

app = NDNApp()

async def main():
    try:
        got = 0
        for i in range(int(sys.argv[1])):
            name = Name.from_str('/test/data') + [Component.from_segment(i)]
            _, _, content = await app.express_interest(name, must_be_fresh=True, lifetime=4000)
            got += content == b'hello'
        print('got', got, flush=True)
        try:
            await app.express_interest(Name.from_str('/nowhere/x'), lifetime=4000)
            print('data for an unrouted name', flush=True)
        except InterestNack as e:
            print('nack', e.reason, flush=True)
        except InterestTimeout:
            print('timeout', flush=True)
    finally:
        app.shutdown()

app.run_forever(after_start=main())
"""


@pytest.fixture()
def forwarder(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    sock = tmp_path / "nfd.sock"
    env = dict(os.environ, HOME=str(home), NDN_CLIENT_TRANSPORT=f"unix://{sock}")
    pyndnsec = shutil.which("pyndnsec", path=str(BIN)) or "pyndnsec"
    for args in (["Init-Pib"], ["New-Item", "/test"]):
        subprocess.run([pyndnsec, *args], env=env, check=True, capture_output=True, timeout=60)
    daemon = subprocess.Popen(
        [str(ndnccd_binary()), "--unix", str(sock)],
        stderr=subprocess.PIPE,
        text=True,
    )
    for _ in range(200):
        if sock.exists() or daemon.poll() is not None:
            break
        time.sleep(0.05)
    assert sock.exists(), (
        f"ndnccd did not start: {daemon.stderr.read() if daemon.poll() is not None else ''}"
    )
    procs: list[subprocess.Popen] = []
    yield env, tmp_path, daemon, procs
    for p in procs:
        p.kill()
        p.wait()
    if daemon.poll() is None:
        daemon.kill()
        daemon.wait()


def stop(daemon: subprocess.Popen) -> dict:
    """SIGTERM, then the counters ndnccd prints as it stops."""
    daemon.send_signal(signal.SIGTERM)
    _, err = daemon.communicate(timeout=30)
    assert daemon.returncode == 0, err
    line = next(x for x in err.splitlines() if x.startswith("ndnccd: stopped "))
    return json.loads(line.removeprefix("ndnccd: stopped "))


# Answers every Interest under /lossy but the first one for the tenth name (a lost Data).
LOSSY_PRODUCER = """
from ndn.app import NDNApp
app = NDNApp()
seen = set()

@app.route('/lossy')
def on_interest(name, param, _app_param):
    key = bytes(name[-1])
    if key not in seen:
        seen.add(key)
        if len(seen) == 10:
            return
    app.put_data(name, content=bytes(1000), freshness_period=0)

print('producer ready', flush=True)
app.run_forever()
"""


def start_producer(env, tmp_path, procs, text: str = PRODUCER) -> None:
    script = tmp_path / "producer.py"
    script.write_text(text)
    p = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True)
    procs.append(p)
    assert p.stdout.readline().strip() == "producer ready"


def wait_for_route(env, prefix: str) -> str:
    """pynfdc's route listing once `prefix` is in it (registration is asynchronous)."""
    out = ""
    for _ in range(100):
        out = pynfdc(env, "route")
        if prefix in out:
            return out
        time.sleep(0.1)
    raise AssertionError(f"{prefix} never registered:\n{out}")


def pynfdc(env, *args: str) -> str:
    exe = shutil.which("pynfdc", path=str(BIN)) or "pynfdc"
    r = subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_python_ndn_producer_and_consumer_exchange_data_and_get_a_no_route_nack(forwarder):
    env, tmp_path, daemon, procs = forwarder
    start_producer(env, tmp_path, procs)
    wait_for_route(env, "/test")
    script = tmp_path / "consumer.py"
    script.write_text(CONSUMER)
    r = subprocess.run(
        [sys.executable, str(script), "40"], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert "got 40" in lines, r.stdout + r.stderr
    assert "nack 150" in lines, r.stdout
    report = stop(daemon)
    assert report["forwarder"]["satisfied"] == 40
    assert report["forwarder"]["rejected"] == 1
    assert report["boundary"]["malformed"] == 0
    assert report["boundary"]["missing_bytes"] == 0


def test_pynfdc_lists_faces_routes_and_status(forwarder):
    env, tmp_path, daemon, procs = forwarder
    start_producer(env, tmp_path, procs)
    routes = wait_for_route(env, "/test")
    # one FIB next hop and one RIB route for /test, on the producer's face
    fib, rib = routes.split("Routing Table (RIB)")
    face_ids = [int(x.split("=")[1].split()[0]) for x in fib.split() if x.startswith("FaceID=")]
    assert len(face_ids) == 1 and face_ids[0] >= 256, routes
    assert f"FaceID={face_ids[0]}" in rib and "Origin=0" in rib, routes
    faces = pynfdc(env, "face")
    listed = [int(line.split()[0]) for line in faces.splitlines() if line[:1].isdigit()]
    assert face_ids[0] in listed, faces
    assert all(f"unix://{tmp_path}/nfd.sock" in line for line in faces.splitlines()[2:]), faces
    status = pynfdc(env, "status")
    assert "ndnccd" in status and "nFibEntries" in status, status
    fib_entries = next(line for line in status.splitlines() if "nFibEntries" in line)
    assert fib_entries.split()[-1] == "1", status
    report = stop(daemon)
    assert report["boundary"]["mgmt"] >= 4


def test_pcon_consumer_declares_timeouts_on_a_real_clock(forwarder):
    """`ndncc consumer controller=pcon` through ndnccd: ndnSIM's 50 ms checks run on the OS
    timer, whose wake-ups never land exactly on the checks' instants; the Interest the producer
    leaves unanswered (the tenth name, the first time) must still be declared timed out and
    sent again, so every one of the 40 numbers is answered."""
    from ndncc import _core
    from ndncc.cli_apps import app_spec

    env, tmp_path, daemon, procs = forwarder
    start_producer(env, tmp_path, procs, LOSSY_PRODUCER)
    wait_for_route(env, "/lossy")
    body, packets = app_spec("consumer", "/lossy", ['controller="pcon"', "max_seq=40"])
    body.pop("kind")
    r = json.loads(
        _core.rt_consumer(
            env["NDN_CLIENT_TRANSPORT"],
            json.dumps(body),
            interest_size=packets["interest_size"],
            duration_s=6.0,
        )
    )
    assert "error" not in r, r
    assert r["timeouts"] >= 1, r
    assert r["retransmissions"] >= 1, r
    assert r["data_received"] == 40, r
    stop(daemon)
