"""ndnccd and ndnd chained over a TCP face, both ways, with the PitToken echo seen on the wire.

Two topologies, faces and routes made by management (ndnd's own `ndnd fw route-add`, a
client of NFD's management protocol, pointed at either forwarder):

* consumer → ndnccd → TCP → ndnd → producer: ndnccd tags each Interest it forwards with its own
  6-byte PitToken; ndnd must echo it on the Data, and ndnccd checks the echo;
* consumer → ndnd → TCP → ndnccd → producer: ndnd tags its Interests; ndnccd must echo ndnd's
  token on the Data it returns (ndnd aborts on a token that is not 6 bytes).

The TCP face between the two forwarders goes through a relay in this test that parses every
frame (TLV elements, LpPacket headers) in both directions: the tokens are checked on the wire,
not only in the forwarders' counters. Skipped, saying why, when ndnd or ndnccd is missing.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading

import pytest
from ndncc import _core, interop
from ndncc.cli_apps import app_spec
from rt_helpers import producer_thread

N = 200  # Data fetched per topology


def _var(buf: bytes, pos: int) -> tuple[int, int]:
    """A TLV var-number at `pos`: (value, next position)."""
    first = buf[pos]
    if first < 253:
        return first, pos + 1
    size = {253: 2, 254: 4, 255: 8}[first]
    return int.from_bytes(buf[pos + 1 : pos + 1 + size], "big"), pos + 1 + size


def _elements(buf: bytes):
    """(type, value) of each TLV element of `buf`."""
    pos = 0
    while pos < len(buf):
        t, pos = _var(buf, pos)
        n, pos = _var(buf, pos)
        yield t, buf[pos : pos + n]
        pos += n


def _name_of(packet: bytes) -> bytes:
    return next(v for t, v in _elements(packet) if t == 0x07)


def classify(frame: bytes) -> tuple[str, bytes, bytes | None]:
    """(kind, name TLV value, PitToken) of one frame: kind is interest, data, nack or other."""
    ((t, value),) = list(_elements(frame))
    token, nack = None, False
    if t == 0x64:
        fragment = None
        for ht, hv in _elements(value):
            if ht == 0x62:
                token = hv
            elif ht == 800:
                nack = True
            elif ht == 0x50:
                fragment = hv
        if fragment is None:
            return "other", b"", token
        ((t, value),) = list(_elements(fragment))
    kind = {0x05: "nack" if nack else "interest", 0x06: "data"}.get(t, "other")
    return kind, (_name_of(value) if kind != "other" else b""), token


class Relay:
    """A TCP relay to `target` that records each frame's (kind, name, token) per direction:
    "up" is from the side that connected to the relay, "down" the answers."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.frames: dict[str, list] = {"up": [], "down": []}
        self.errors: list[str] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                a, _ = self.server.accept()
            except OSError:
                return
            b = socket.create_connection(self.target)
            for s in (a, b):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._pump, args=(a, b, "up"), daemon=True).start()
            threading.Thread(target=self._pump, args=(b, a, "down"), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, direction: str):
        buf = b""
        while True:
            try:
                chunk = src.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                return
            dst.sendall(chunk)
            buf += chunk
            while buf:
                try:
                    t, pos = _var(buf, 0)
                    n, pos = _var(buf, pos)
                except (IndexError, KeyError):
                    break
                if len(buf) < pos + n:
                    break
                frame, buf = buf[: pos + n], buf[pos + n :]
                try:
                    rec = classify(frame)
                except (ValueError, StopIteration, IndexError, KeyError) as e:
                    self.errors.append(f"{direction}: {e!r} in {frame[:40].hex()}")
                    continue
                with self.lock:
                    self.frames[direction].append(rec)

    def close(self):
        self.server.close()

    def tokens(self, direction: str, kind: str, under: bytes) -> dict[bytes, bytes | None]:
        """name → token of the frames of `kind` whose name TLV value starts with `under`."""
        with self.lock:
            return {
                n: tok for k, n, tok in self.frames[direction] if k == kind and n.startswith(under)
            }


def _name_tlv_value(uri: str) -> bytes:
    """The Name TLV value of a plain ASCII URI (GenericNameComponents)."""
    out = b""
    for c in uri.strip("/").split("/"):
        out += bytes([0x08, len(c)]) + c.encode()
    return out


@pytest.fixture()
def both():
    try:
        ndnd = interop.start("ndnd")
    except interop.ForwarderUnavailable as e:
        pytest.skip(f"the forwarder chain needs ndnd: {e}")
    try:
        ndnccd = interop.start("ndnccd")
    except interop.ForwarderUnavailable as e:
        ndnd.stop()
        pytest.skip(f"the forwarder chain needs ndnccd: {e}")
    yield ndnd, ndnccd
    for fw in (ndnd, ndnccd):
        fw.stop()


def _ndnd_fw(fw, *args: str) -> str:
    """`ndnd fw ARGS` against forwarder `fw`'s management (its Unix socket)."""
    env = dict(os.environ, NDN_CLIENT_TRANSPORT=fw.unix)
    r = subprocess.run(
        [str(interop.find_ndnd()), "fw", *args], env=env, capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 0, f"ndnd fw {' '.join(args)} on {fw.name}: {r.stdout}{r.stderr}"
    return r.stdout + r.stderr


def _route_via_relay(fw, prefix: str, relay: Relay) -> None:
    _ndnd_fw(fw, "face-create", f"remote=tcp4://127.0.0.1:{relay.port}")
    _ndnd_fw(fw, "route-add", f"prefix={prefix}", f"face=tcp4://127.0.0.1:{relay.port}")


def _consume(endpoint: str, prefix: str) -> dict:
    settings = dict(controller="fixed-window", window=8, max_seq=N, retransmit="timeout")
    settings["lifetime"] = "2s"
    body, packets = app_spec(
        "consumer", prefix, [f"{k}={json.dumps(v)}" for k, v in settings.items()]
    )
    body.pop("kind")
    return json.loads(
        _core.rt_consumer(
            endpoint, json.dumps(body), interest_size=packets["interest_size"], duration_s=15.0
        )
    )


def _wait_route(fw, prefix: str) -> None:
    import time

    for _ in range(100):
        if prefix in _ndnd_fw(fw, "route-list"):
            return
        time.sleep(0.1)
    raise AssertionError(f"{prefix} never registered on {fw.name}")


def _ndnccd_report(fw) -> dict:
    """SIGTERM, then the counters ndnccd prints as it stops (from its log)."""
    fw.process.send_signal(signal.SIGTERM)
    fw.process.wait(30)
    lines = fw.log.read_text().splitlines()
    line = next(x for x in lines if x.startswith("ndnccd: stopped "))
    return json.loads(line.removeprefix("ndnccd: stopped "))


def _fetch(consumer_fw, producer_fw, prefix: str) -> tuple[dict, dict]:
    t, box = producer_thread(producer_fw.unix, prefix, 8.0, payload="500B")
    _wait_route(producer_fw, prefix)
    r = _consume(consumer_fw.unix, prefix)
    t.join()
    assert "error" not in box, box.get("error")
    return r, box["report"]


def _chain(downstream, upstream, prefix: str) -> tuple[dict, dict, dict]:
    """N Data fetched through `downstream` → (TCP face through the relay) → `upstream` → a
    producer; returns the PitTokens the relay saw per name: (on Interests going up, on Data
    coming down)."""
    relay = Relay(("127.0.0.1", int(upstream.tcp.rsplit(":", 1)[1])))
    _route_via_relay(downstream, prefix, relay)
    r, p = _fetch(downstream, upstream, prefix)
    relay.close()
    assert r["data_received"] == N and r["given_up"] == 0, r
    assert not relay.errors, relay.errors[:3]
    under = _name_tlv_value(prefix)
    sent = relay.tokens("up", "interest", under)
    back = relay.tokens("down", "data", under)
    assert len(sent) >= N and len(back) >= N, (len(sent), len(back))
    return sent, back, p


def test_ndnccd_forwards_to_ndnd_over_tcp_and_checks_the_echoed_token(both):
    ndnd, ndnccd = both
    sent, back, _ = _chain(ndnccd, ndnd, "/chain/to-ndnd")
    assert all(tok is not None and len(tok) == 6 for tok in sent.values()), "6-byte tokens"
    assert len(set(sent.values())) == len(sent), "one token per PIT entry"
    # ndnd echoes ndnccd's token on each Data (the same name's Interest token)
    assert all(back[name] == sent[name] for name in back), "echo differs"
    report = _ndnccd_report(ndnccd)
    tokens = report["pit_tokens"]
    assert tokens["sent"] == len(sent) and tokens["echoed"] == len(back), report
    assert tokens["mismatched"] == 0 and tokens["absent"] == 0, report
    assert report["forwarder"]["satisfied"] >= N, report
    assert ndnd.alive(), ndnd.log_tail()


def test_ndnd_forwards_to_ndnccd_over_tcp_and_ndnccd_echoes_its_token(both):
    ndnd, ndnccd = both
    sent, back, p = _chain(ndnd, ndnccd, "/chain/to-ndnccd")
    assert all(tok is not None and len(tok) == 6 for tok in sent.values()), "ndnd's tokens"
    # ndnccd returns ndnd's token on each Data, byte for byte
    assert all(back[name] == sent[name] for name in back), "echo differs"
    assert ndnd.alive(), f"ndnd died (a bad token aborts it):\n{ndnd.log_tail()}"
    report = _ndnccd_report(ndnccd)
    tokens = report["pit_tokens"]
    assert tokens["returned"] >= N, report
    # ndnccd's own tokens towards the producer, echoed by it
    assert tokens["sent"] == p["interests_received"] == p["pit_tokens"], (report, p)
    assert tokens["echoed"] == p["data_sent"] and tokens["mismatched"] == 0, (report, p)
