"""Where the daemons live: one network namespace per node joined by veth pairs (needs root and
``ip``), else every daemon on the loopback interface with its own UDP port.

Namespaces are named ``ndncc-<pid>-<node index>`` (and ``ndncc-<pid>-probe`` for the moment
the availability check takes); a run removes its own on every exit path, and at start any
``ndncc-<pid>-*`` whose process is gone (a run that was killed) is removed
too, so a crashed run never breaks the next one. Links carry no kernel shaping (netem is not
available everywhere): bandwidth, delay and queues are ndnccd's user-space emulation in both
modes, so the two modes differ only in the path packets take through the kernel.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass, field

from ..procs import pid_alive
from .plan import UDP_PORT, EmulateError, Endpoint, link_addresses

NS_PATTERN = re.compile(r"^ndncc-(\d+)-(?:\d+|probe)$")


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20, check=False)
    if check and r.returncode != 0:
        msg = (r.stderr or r.stdout).strip().splitlines()
        raise EmulateError(f"ip {' '.join(args)}: {msg[-1] if msg else 'failed'}")
    return r


def netns_unavailable() -> str | None:
    """Why namespace mode cannot run here (None: it can)."""
    if os.geteuid() != 0:
        return "not root (network namespaces need root)"
    if shutil.which("ip") is None:
        return "no 'ip' command (iproute2)"
    probe = f"ndncc-{os.getpid()}-probe"
    r = _ip("netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"ip netns add failed: {(r.stderr or '').strip() or 'unknown error'}"
    _ip("netns", "del", probe, check=False)
    return None


def remove_stale() -> list[str]:
    """Removes namespaces left by emulate runs whose process is gone; returns their names."""
    r = _ip("netns", "list", check=False)
    gone = []
    for line in r.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        m = NS_PATTERN.match(name)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            _ip("netns", "del", name, check=False)
            gone.append(name)
    return gone


@dataclass
class Namespaces:
    """The namespaces of one run; :meth:`close` removes them (idempotent)."""

    names: list[str] = field(default_factory=list)

    def prefix(self, node: int) -> list[str]:
        """The command prefix that runs a program in node ``node``'s namespace."""
        return ["ip", "netns", "exec", self.names[node]]

    def udp_counters(self, node: int) -> dict | None:
        """The kernel's UDP counters of node ``node``'s namespace (/proc/net/snmp "Udp:"
        lines: InDatagrams, RcvbufErrors, ...); None if unreadable."""
        r = subprocess.run(
            [*self.prefix(node), "cat", "/proc/net/snmp"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        rows = [line.split()[1:] for line in r.stdout.splitlines() if line.startswith("Udp:")]
        if len(rows) < 2:
            return None
        try:
            return dict(zip(rows[0], (int(v) for v in rows[1]), strict=True))
        except ValueError:
            return None

    def close(self) -> None:
        for name in self.names:
            _ip("netns", "del", name, check=False)
        self.names = []


def make_namespaces(spec: dict) -> tuple[Namespaces, list[Endpoint]]:
    """One namespace per node, a veth pair per link (addressed by :func:`link_addresses`);
    every daemon listens on 0.0.0.0:UDP_PORT in its namespace. On failure what was made is
    removed before the error is raised."""
    remove_stale()
    ns = Namespaces()
    try:
        for i in range(len(spec["nodes"])):
            name = f"ndncc-{os.getpid()}-{i}"
            _ip("netns", "add", name)
            ns.names.append(name)
            _ip("-n", name, "link", "set", "lo", "up")
        for li, ln in enumerate(spec["links"]):
            a, b = ns.names[ln["a"]], ns.names[ln["b"]]
            ifa, ifb = f"l{li}a", f"l{li}b"
            # both ends made inside their namespaces: nothing is left in the root namespace
            _ip("link", "add", ifa, "netns", a, "type", "veth", "peer", "name", ifb, "netns", b)
            addr_a, addr_b = link_addresses(li)
            for n, ifc, addr in ((a, ifa, addr_a), (b, ifb, addr_b)):
                _ip("-n", n, "addr", "add", f"{addr}/30", "dev", ifc)
                _ip("-n", n, "link", "set", ifc, "up")
    except BaseException:
        ns.close()
        raise
    return ns, [Endpoint("0.0.0.0", UDP_PORT) for _ in spec["nodes"]]


def loopback_endpoints(n: int) -> list[Endpoint]:
    """``n`` free UDP ports on 127.0.0.1 (each bound once by the OS, then released for the
    daemon: another program could take one in between, which the daemon reports)."""
    socks, out = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            out.append(Endpoint("127.0.0.1", s.getsockname()[1]))
    finally:
        for s in socks:
            s.close()
    return out
