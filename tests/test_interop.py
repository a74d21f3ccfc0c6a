"""Interop with independent NDN software through a real forwarder (ndnd, built by `make tools`):
ndncc producer + ndncc consumer, python-ndn producer + ndncc consumer, ndncc producer + python-ndn
consumer, PitToken echo, and prefix registration answered by ndnd's management. Skipped, naming
what failed, when ndnd or python-ndn is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from ndncc import _core, interop
from ndncc.cli import main
from ndncc.cli_apps import app_spec
from rt_helpers import producer_thread


@pytest.fixture(scope="module")
def ndnd():
    try:
        fw = interop.start("ndnd")
    except interop.ForwarderUnavailable as e:
        pytest.skip(f"interop tests need ndnd: {e}")
    with fw:
        yield fw
        assert fw.alive(), f"ndnd died during the tests; its log:\n{fw.log_tail()}"


def _pyndn_available() -> None:
    try:
        import ndn  # noqa: F401
    except ImportError as e:
        pytest.skip(f"python-ndn is not installed ({e}); it is in the test extras")


def _consume(endpoint: str, prefix: str, duration_s: float, **settings) -> dict:
    body, packets = app_spec(
        "consumer", prefix, [f"{k}={json.dumps(v)}" for k, v in settings.items()]
    )
    body.pop("kind")
    return json.loads(
        _core.rt_consumer(
            endpoint,
            json.dumps(body),
            interest_size=packets["interest_size"],
            duration_s=duration_s,
        )
    )


def _wait_registered(fw, prefix: str, timeout_s: float = 5.0) -> None:
    """Polls the forwarder's RIB with ndnd's own `ndnd fw route-list` (a second management
    client; ndnccd answers the same rib/list dataset)."""
    import time

    deadline = time.monotonic() + timeout_s
    env = dict(os.environ, NDN_CLIENT_TRANSPORT=fw.unix)
    binary = interop.find_ndnd()
    while time.monotonic() < deadline:
        out = subprocess.run(
            [str(binary), "fw", "route-list"], env=env, capture_output=True, text=True, timeout=10
        ).stdout
        if prefix in out:
            return
        time.sleep(0.1)
    raise AssertionError(f"{prefix} never appeared in {fw.name}'s route list")


@pytest.fixture(scope="module")
def ndnccd():
    try:
        interop.find_ndnd()  # its route-list client polls ndnccd's RIB
        fw = interop.start("ndnccd")
    except interop.ForwarderUnavailable as e:
        pytest.skip(f"this test needs ndnccd and ndnd's client: {e}")
    with fw:
        yield fw
        assert fw.alive(), f"ndnccd died during the tests; its log:\n{fw.log_tail()}"


@pytest.mark.parametrize("kind", ["unix", "tcp", "udp"])
def test_ndncc_producer_and_consumer_through_ndnd(ndnd, kind):
    _exchange_through(ndnd, kind)


@pytest.mark.parametrize("kind", ["unix", "udp"])
def test_ndncc_producer_and_consumer_through_ndnccd(ndnccd, kind):
    _exchange_through(ndnccd, kind)


def _exchange_through(fw, kind: str) -> None:
    ep = fw.endpoint(kind)
    prefix = f"/ndncc/interop/{fw.name}/{kind}"
    t, box = producer_thread(ep, prefix, 3.0, payload="700B")
    _wait_registered(fw, prefix)
    n = 300
    r = _consume(
        ep,
        prefix,
        5.0,
        controller="fixed-window",
        window=16,
        max_seq=n,
        retransmit="timeout",
        lifetime="1s",
    )
    t.join()
    assert "error" not in box, box.get("error")
    p = box["report"]
    assert r["data_received"] == n and r["given_up"] == 0, r
    assert r["dropped"] == {"malformed": 0, "unexpected": 0}
    assert p["interests_received"] >= n and p["data_sent"] >= n, p
    # ndnd and ndnccd put a PitToken on every Interest they forward (and every Data came back
    # through them, so each was echoed)
    assert p["pit_tokens"] == p["interests_received"], p
    assert p["face_id"] is not None and p["face_id"] > 0
    assert r["data_bytes"] > n * 700
    assert fw.alive()


def test_a_rerun_through_ndnd_gets_all_its_data(ndnd):
    """Two runs of the consumer with the same arguments (the same seed) through ndnd both get
    every Data: their Nonces come from the OS, so ndnd's dead-nonce list does not take the
    rerun's Interests for loops (with the seed's Nonces the rerun got none)."""
    prefix = "/ndncc/interop/rerun"
    t, box = producer_thread(ndnd.unix, prefix, 7.0, payload="300B")
    _wait_registered(ndnd, prefix)
    n = 200
    runs = [
        _consume(ndnd.unix, prefix, 2.5, controller="fixed-window", window=16, max_seq=n)
        for _ in range(2)
    ]
    t.join()
    assert "error" not in box, box.get("error")
    for r in runs:
        assert (r["data_received"], r["timeouts"], r["nacks"]) == (n, 0, 0), r


def test_two_consumers_of_the_same_names_through_ndnccd_get_no_loop_nacks(ndnccd):
    """Two consumers with the same arguments at once on the same names through ndnccd: their
    Interests meet in its PIT with different Nonces (drawn from the OS), so both get every Data
    and neither gets a Nack(Duplicate) (with the seed's Nonces the second was taken for a loop)."""
    import threading

    prefix = "/ndncc/interop/twins"
    # a 20 ms answer: the two consumers' Interests for a name meet in the PIT
    t, box = producer_thread(ndnccd.unix, prefix, 6.0, payload="300B", processing_delay="20ms")
    _wait_registered(ndnccd, prefix)
    n, reports = 200, [None, None]

    def consume(k: int) -> None:
        reports[k] = _consume(
            ndnccd.unix, prefix, 3.0, controller="fixed-window", window=16, max_seq=n
        )

    threads = [threading.Thread(target=consume, args=(k,)) for k in range(2)]
    for c in threads:
        c.start()
    for c in threads:
        c.join()
    t.join()
    assert "error" not in box, box.get("error")
    for r in reports:
        assert (r["data_received"], r["nacks"], r["timeouts"]) == (n, 0, 0), r


def test_a_chunked_consumer_fetches_through_ndnd(ndnd):
    """A chunked consumer (8 segments per chunk, a window of 4 chunks) asks each segment by
    name (<prefix>/seg=chunk*8+offset), so ndnd carries every request and every Data; every
    chunk completes. (Asked as one Interest per chunk in our own LpPacket header, ndnd dropped
    the header and the consumer got nothing.)"""
    prefix = "/ndncc/interop/chunks"
    t, box = producer_thread(ndnd.unix, prefix, 4.0, payload="500B")
    _wait_registered(ndnd, prefix)
    chunks, n = 20, 8
    r = _consume(
        ndnd.unix,
        prefix,
        3.0,
        controller="fixed-window",
        window=4,
        max_seq=chunks,
        chunk_segments=n,
        lifetime="1s",
    )
    t.join()
    assert "error" not in box, box.get("error")
    assert r["data_received"] == chunks * n, r
    assert (r["interests_sent"], r["wire_interests"]) == (chunks, chunks * n), r
    assert (r["given_up"], r["timeouts"], r["late_data"]) == (0, 0, 0), r
    assert r["dropped"] == {"malformed": 0, "unexpected": 0}
    assert box["report"]["data_sent"] == chunks * n


def test_a_window_facing_noroute_through_ndnccd_is_bounded(ndnccd):
    """No route for the prefix: ndnccd answers every Interest with Nack(NoRoute). The NoRoute
    rule holds each Nacked Interest in flight to its deadline (the 500 ms lifetime), so a window
    of 8 sends at most 8 Interests per 500 ms — not one per Nack round trip (hundreds of
    thousands per second before)."""
    duration_s, lifetime_s, w = 2.0, 0.5, 8
    r = _consume(
        ndnccd.unix,
        "/ndncc/interop/noroute",
        duration_s,
        controller="fixed-window",
        window=w,
        lifetime=f"{lifetime_s}s",
        retransmit="nack",
    )
    assert r["nacks"] >= w, r
    assert r["timeouts"] == 0 and r["data_received"] == 0, r
    bound = w * (duration_s / lifetime_s + 1)
    assert r["interests_sent"] <= bound, r


PYNDN_PRODUCER = textwrap.dedent(
    """
    import sys
    from ndn.app import NDNApp
    from ndn.security import KeychainDigest

    prefix, size = sys.argv[1], int(sys.argv[2])
    app = NDNApp(keychain=KeychainDigest())

    @app.route(prefix)
    def on_interest(name, param, app_param):
        app.put_data(name, content=bytes(size), freshness_period=0)

    async def ready():
        print("ready", flush=True)

    app.run_forever(after_start=ready())
    """
)


def test_python_ndn_producer_and_ndncc_consumer(ndnd, tmp_path):
    _pyndn_available()
    script = tmp_path / "producer.py"
    script.write_text(PYNDN_PRODUCER)
    prefix = "/ndncc/interop/pyndn"
    env = dict(os.environ, NDN_CLIENT_TRANSPORT=ndnd.unix, HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, str(script), prefix, "500"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.strip() == "ready", f"python-ndn producer: {line!r} {proc.stderr.read()}"
        _wait_registered(ndnd, prefix)
        r = _consume(
            ndnd.unix,
            prefix,
            6.0,
            controller="icp",
            max_seq=200,
            lifetime="1s",
            retransmit="timeout",
        )
    finally:
        proc.terminate()
        proc.wait(5)
    assert r["data_received"] == 200 and r["given_up"] == 0, r
    assert r["data_bytes"] > 200 * 500


PYNDN_CONSUMER = textwrap.dedent(
    """
    import sys
    from ndn.app import NDNApp
    from ndn.encoding import Name, Component
    from ndn.security import KeychainDigest

    prefix, count = sys.argv[1], int(sys.argv[2])
    app = NDNApp(keychain=KeychainDigest())

    async def main():
        got = 0
        for i in range(count):
            name = Name.from_str(prefix) + [Component.from_sequence_num(i)]
            _, _, content = await app.express_interest(name, lifetime=2000, must_be_fresh=False,
                                                       can_be_prefix=False)
            got += len(bytes(content)) == 300
        print(got, flush=True)
        app.shutdown()

    app.run_forever(after_start=main())
    """
)


def test_ndncc_producer_and_python_ndn_consumer(ndnd, tmp_path):
    _pyndn_available()
    prefix = "/ndncc/interop/to-pyndn"
    t, box = producer_thread(ndnd.unix, prefix, 4.0, payload="300B")
    _wait_registered(ndnd, prefix)
    script = tmp_path / "consumer.py"
    script.write_text(PYNDN_CONSUMER)
    env = dict(os.environ, NDN_CLIENT_TRANSPORT=ndnd.tcp, HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, str(script), prefix, "50"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    t.join()
    assert out.stdout.strip() == "50", (out.stdout, out.stderr[-2000:])
    assert box["report"]["data_sent"] >= 50


def test_cli_consumer_without_forwarder_is_one_line(tmp_path, capsys):
    code = main(
        ["consumer", "--forwarder", f"unix://{tmp_path}/none.sock", "--prefix", "/x", "max_seq=1"]
    )
    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith("error: cannot connect to unix://") and err.count("\n") == 1


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--prefix", "/x", "--seed", "-1"], "--seed -1: a seed is a whole number from 0 to "),
        (["--prefix", "/x", "--seed", str(2**64)], f"--seed {2**64}: a seed is a whole number"),
        (["--prefix", "abc"], "--prefix 'abc': prefix 'abc' must start with '/' (fix: write"),
        (["--prefix", "/x", "--duration", "1s", "--stop", "2s"],
         "--stop 2s is not before --duration 1s"),
        (["--prefix", "/x", "--duration", "1s", "--stop", "1s"], "--stop 1s is not before"),
    ],
)  # fmt: skip
def test_cli_consumer_flags_are_checked_before_connecting(tmp_path, capsys, flags, message):
    """One line, naming the flag, before the (missing) forwarder is reached."""
    code = main(["consumer", "--forwarder", f"unix://{tmp_path}/none.sock", *flags])
    err = capsys.readouterr().err
    assert code == 3, err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1, err


def test_cli_consumer_names_a_udp_forwarder_that_refuses(capsys):
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(["consumer", "--forwarder", f"udp://127.0.0.1:{port}", "--prefix", "/x",
                 "--duration", "3s"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith(f"error: no forwarder at udp://127.0.0.1:{port}: connection refused"), err
    assert err.count("\n") == 1


def test_cli_bad_setting_names_the_key(capsys):
    code = main(["consumer", "--prefix", "/x", "controller=nope"])
    err = capsys.readouterr().err
    assert code == 3 and "controller" in err and "Traceback" not in err


def test_cli_bench_forwarder_reports_ndnccd_unavailable(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("NDNCC_NDNCCD", str(tmp_path / "ndnccd"))
    code = main(["bench", "forwarder", "--forwarder", "ndnccd", "--json"])
    captured = capsys.readouterr()
    assert code == 3
    assert "ndnccd is not available" in captured.err


def test_cli_bench_forwarder_measures_ndnd(ndnd, capsys):
    code = main(
        [
            "bench",
            "forwarder",
            "--faces",
            "unix",
            "--duration",
            "1s",
            "--warmup",
            "0.2s",
            "--window",
            "8",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    run = out["ndnd"]["runs"]["unix"]
    assert run["exchanges"] > 0 and run["exchanges_per_s"] > 0 and run["alive_after"]
    assert run["payload_mbps"] < run["wire_mbps"]
