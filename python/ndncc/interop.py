"""Forwarders to run the real-time apps against: ndnd (github.com/named-data/ndnd, built by
``make tools`` into ``.tools/ndnd/ndnd``) or ndnccd (``target/release/ndnccd``).

:func:`start` runs one forwarder in a temporary directory with a generated configuration (a Unix
socket, a TCP and a UDP listener on free loopback ports, no content store, no multicast) and
returns a :class:`Forwarder` with its three endpoints in python-ndn's ``NDN_CLIENT_TRANSPORT``
syntax. Used by ``ndncc bench forwarder`` and ``tests/test_interop.py``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

#: The repository root (``python/ndncc/interop.py`` is two levels below it).
ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / ".tools"
#: Where ``make tools`` writes why ndnd could not be built.
NDND_FAILED = TOOLS / "ndnd" / "FAILED"

FORWARDERS = ("ndnd", "ndnccd")


class ForwarderUnavailable(Exception):
    """The forwarder's binary is missing or it did not start; the message says why."""


def find_ndnd() -> Path:
    """ndnd's binary: ``$NDNCC_NDND``, else ``.tools/ndnd/ndnd``, else ``ndnd`` on the PATH."""
    env = os.environ.get("NDNCC_NDND")
    if env:
        if Path(env).is_file():
            return Path(env)
        raise ForwarderUnavailable(f"NDNCC_NDND={env} is not a file")
    built = TOOLS / "ndnd" / "ndnd"
    if built.is_file():
        return built
    on_path = shutil.which("ndnd")
    if on_path:
        return Path(on_path)
    why = NDND_FAILED.read_text().strip() if NDND_FAILED.is_file() else "run 'make tools'"
    raise ForwarderUnavailable(f"ndnd is not built ({TOOLS / 'ndnd' / 'ndnd'} missing): {why}")


def find_ndnccd() -> Path:
    """ndnccd's binary: ``$NDNCC_NDNCCD``, else ``target/release/ndnccd``."""
    env = os.environ.get("NDNCC_NDNCCD")
    path = Path(env) if env else ROOT / "target" / "release" / "ndnccd"
    if not path.is_file():
        raise ForwarderUnavailable(
            f"ndnccd is not available: no binary at {path} (build it with "
            "'cargo build --release -p ndncc-rt --bin ndnccd', or set NDNCC_NDNCCD)"
        )
    return path


def free_port(kind: int) -> int:
    """A port the OS says is free on 127.0.0.1 for `kind` (SOCK_STREAM or SOCK_DGRAM)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ndnd_config(sock: Path, tcp_port: int, udp_port: int, threads: int = 1) -> str:
    """ndnd's YAML: the three listeners, no content store (congestion runs must not be
    answered from a cache), no multicast, localhop commands allowed (UDP faces)."""
    return f"""core:
  log_level: WARN
faces:
  udp:
    enabled_unicast: true
    enabled_multicast: false
    port_unicast: {udp_port}
  tcp:
    enabled: true
    port_unicast: {tcp_port}
  unix:
    enabled: true
    socket_path: {sock}
  websocket:
    enabled: false
  http3:
    enabled: false
fw:
  threads: {threads}
mgmt:
  allow_localhop: true
tables:
  content_store:
    admit: false
    serve: false
"""


@dataclass
class Forwarder:
    """A running forwarder: its endpoints, its process and its log."""

    name: str
    unix: str
    tcp: str
    udp: str
    process: subprocess.Popen
    workdir: Path
    log: Path
    _tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    def endpoint(self, kind: str) -> str:
        return {"unix": self.unix, "tcp": self.tcp, "udp": self.udp}[kind]

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> Forwarder:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _wait_for_socket(fw: Forwarder, sock: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not fw.alive():
            break
        if sock.exists():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.connect(str(sock))
                return
            except OSError:
                pass
        time.sleep(0.05)
    fw.stop()
    raise ForwarderUnavailable(
        f"{fw.name} did not open {sock} within {timeout_s:g} s; its log:\n{fw.log_tail()}"
    )


def start(name: str = "ndnd", threads: int = 1, timeout_s: float = 10.0) -> Forwarder:
    """Starts forwarder `name` ("ndnd" or "ndnccd") in a fresh temporary directory."""
    if name not in FORWARDERS:
        raise ValueError(f"unknown forwarder {name!r}; known: {', '.join(FORWARDERS)}")
    binary = find_ndnd() if name == "ndnd" else find_ndnccd()
    tmp = tempfile.TemporaryDirectory(prefix=f"ndncc-{name}-")
    work = Path(tmp.name)
    sock = work / f"{name}.sock"
    tcp, udp = free_port(socket.SOCK_STREAM), free_port(socket.SOCK_DGRAM)
    if name == "ndnd":
        config = work / "fw.yml"
        config.write_text(ndnd_config(sock, tcp, udp, threads))
        argv = [str(binary), "fw", "run", str(config)]
    else:
        # ndnccd's defaults: no Content Store, one thread (the poll loop); listeners by flag
        tcp_at, udp_at = f"127.0.0.1:{tcp}", f"127.0.0.1:{udp}"
        argv = [str(binary), "--unix", str(sock), "--tcp", tcp_at, "--udp", udp_at]
    log = work / f"{name}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=work,
        )
    fw = Forwarder(
        name,
        f"unix://{sock}",
        f"tcp://127.0.0.1:{tcp}",
        f"udp://127.0.0.1:{udp}",
        proc,
        work,
        log,
        tmp,
    )
    _wait_for_socket(fw, sock, timeout_s)
    return fw
