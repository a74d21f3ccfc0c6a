"""Real OS clock tools (seed 003): the UDP send loop, CPU load windows, and the clock probe.

* :func:`sendloop` runs the native send loop (the same engine code as the simulator) and returns
  its effective rate per bin.
* :class:`LoadWindow` starts bounded busy-wait processes for a time window and always stops
  them: each child asks the kernel to kill it when its parent dies (``PR_SET_PDEATHSIG``), so
  the load never outlives the command, even if the command is killed.
* :func:`clock_probe` measures how late a sender's wake-ups come, idle and under load, and
  writes the empirical clock model the simulator's ``clock = "os"`` / ``clock_profile`` replays.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import platform
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .units import UnitError, parse_rate, parse_time

PR_SET_PDEATHSIG = 1
BUSY_LOOP = "while True:\n    pass\n"


def _die_with_parent_hook():
    """A preexec hook: the kernel sends SIGKILL to the child when its parent dies.

    `prctl` is looked up here, in the parent: loading a library in the child of a process with
    running threads (the send loop's) is not safe. The parent's pid is taken here too, so the
    check "did the parent die before prctl?" also holds when the parent is pid 1 (a container's
    init), where comparing getppid() with 1 would kill every child."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def hook() -> None:  # pragma: no cover - runs in the child
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl
            os._exit(1)

    return hook


@dataclass
class LoadWindow:
    """`procs` busy-wait processes from `start_s` to `end_s` after :meth:`begin`.

    One thread owns the window: it waits for the start, spawns the processes, waits for the
    end and kills them. The children's death signal is tied to that thread (Linux delivers
    PR_SET_PDEATHSIG when the *thread* that forked exits), so the thread lives exactly as long
    as its processes should, and a killed command takes them with it.
    """

    start_s: float
    end_s: float
    procs: int
    _children: list[subprocess.Popen] = field(default_factory=list, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def parse(cls, text: str) -> LoadWindow:
        """``"20s-40s:5"``: five processes from 20 s to 40 s."""
        m = re.fullmatch(r"\s*([^-:]+)-([^:]+):(\d+)\s*", text)
        if not m:
            raise ValueError(f"--load {text!r}: expected START-END:PROCS, e.g. 20s-40s:5")
        try:
            start = parse_time(m.group(1).strip()) / 1e9
            end = parse_time(m.group(2).strip()) / 1e9
        except UnitError as e:
            raise ValueError(f"--load {text!r}: {e.problem} ({e.fix})") from e
        procs = int(m.group(3))
        if end <= start or not 1 <= procs <= 64:
            raise ValueError(f"--load {text!r}: END must follow START and PROCS be 1-64")
        return cls(start, end, procs)

    def begin(self) -> None:
        """Starts the window's thread; the window is timed from now."""
        self._thread = threading.Thread(target=self._run, name="ndncc-load", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if self._stop.wait(self.start_s):
            return
        self._spawn()
        self._stop.wait(self.end_s - self.start_s)
        self._kill()

    def _spawn(self) -> None:
        hook = _die_with_parent_hook()
        with self._lock:
            for _ in range(self.procs):
                self._children.append(
                    subprocess.Popen(
                        [sys.executable, "-c", BUSY_LOOP],
                        preexec_fn=hook,
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )

    def _kill(self) -> None:
        with self._lock:
            for c in self._children:
                if c.poll() is None:
                    c.kill()
            for c in self._children:
                c.wait()
            self._children.clear()

    def close(self) -> None:
        """Ends the window now (idempotent): every load process is killed."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._kill()

    @property
    def pids(self) -> list[int]:
        with self._lock:
            return [c.pid for c in self._children if c.poll() is None]


@dataclass
class SendLoopRun:
    """One send-loop run: requested rates and the measured effective rate per bin."""

    engine: str
    packet_size: int
    duration_s: float
    bin_s: float
    rates: list[tuple[float, float]]
    bin_bytes: list[int]
    packets: int
    send_errors: int
    received_bytes: int
    elapsed_s: float
    load: tuple[float, float, int] | None = None
    #: packets released but not sent because the run ended in the middle of their burst
    unsent: int = 0
    #: (time s, packets) of every sending wake-up, when traced
    wakes: list[tuple[float, int]] = field(default_factory=list)
    #: waiting time (ns) of every wake-up and its time (s), when traced: how much later than it
    #: could have the loop woke (the sleep's overshoot, plus the previous wake-up's work when
    #: the loop is behind) — the t_w of the simulator's ``os`` clock
    wait_t: list[float] = field(default_factory=list)
    wait_ns: list[int] = field(default_factory=list)

    def requested_bps(self, t: float) -> float:
        """The requested rate at time t (bits/s)."""
        r = self.rates[0][1]
        for at, bps in self.rates:
            if at <= t:
                r = bps
        return r

    def mean_requested_bps(self, t0: float, t1: float) -> float:
        """The requested rate averaged over [t0, t1] (a bin a rate step cuts in two counts
        each part for its time)."""
        edges = sorted({t0, t1, *(at for at, _ in self.rates if t0 < at < t1)})
        bits = sum(self.requested_bps(a) * (b - a) for a, b in zip(edges, edges[1:], strict=False))
        return bits / (t1 - t0)

    def effective_bps(self) -> list[float]:
        """Bits/s sent in each bin."""
        return [b * 8 / self.bin_s for b in self.bin_bytes]

    def relative_error(
        self, t0: float = 0.0, t1: float | None = None, exclude: tuple[float, float] | None = None
    ) -> float:
        """Seed 003's e = (r − E[r_e]) / r over the full bins within [t0, t1], leaving out the
        bins that overlap `exclude` (e.g. a load window)."""
        t1 = self.duration_s if t1 is None else t1
        eff, req = [], []
        for i, bps in enumerate(self.effective_bps()):
            lo, hi = i * self.bin_s, (i + 1) * self.bin_s
            if exclude and lo < exclude[1] - 1e-9 and hi > exclude[0] + 1e-9:
                continue
            if lo >= t0 - 1e-9 and hi <= t1 + 1e-9:
                eff.append(bps)
                req.append(self.mean_requested_bps(lo, hi))
        if not eff:
            return float("nan")
        r = sum(req) / len(req)
        return (r - sum(eff) / len(eff)) / r

    def to_json(self) -> dict:
        return {
            "engine": self.engine,
            "packet_size": self.packet_size,
            "duration_s": self.duration_s,
            "bin_s": self.bin_s,
            "rates": self.rates,
            "packets": self.packets,
            "send_errors": self.send_errors,
            "received_bytes": self.received_bytes,
            "elapsed_s": self.elapsed_s,
            "load": self.load,
            "unsent": self.unsent,
            # JSON has no NaN: a run too short for one full bin has no error to report
            "relative_error": _finite_or_none(self.relative_error(self.bin_s)),
            "effective_bps": self.effective_bps(),
        }


def sendloop(
    engine: str,
    rate: str | float,
    *,
    size: int = 1500,
    duration: str | float = "60s",
    kr: float = 1.0,
    period: str = "1ms",
    granularity: str = "1ms",
    bin: str = "100ms",
    load: LoadWindow | None = None,
    steps: list[tuple[float, float]] | None = None,
    target: str | None = None,
    trace_wakes: bool = False,
    trace_waits: bool = False,
) -> SendLoopRun:
    """Runs the native send loop; `rate` like "500Mbps" (or bits/s), `duration` like "60s".
    `steps` replaces the constant rate by a schedule of (time s, bits/s)."""
    from . import _core

    bps = parse_rate(rate) if isinstance(rate, str) else float(rate)
    dur = parse_time(duration) / 1e9 if isinstance(duration, str) else float(duration)
    rates = steps or [(0.0, float(bps))]
    bin_s = parse_time(bin) / 1e9
    if load is not None:
        load.begin()
    try:
        r = _core.sendloop(
            engine,
            rates,
            size,
            dur,
            kr,
            parse_time(period) / 1e9,
            parse_time(granularity) / 1e9,
            bin_s,
            target,
            trace_wakes,
            trace_waits,
        )
    finally:
        if load is not None:
            load.close()
    return SendLoopRun(
        engine=engine,
        packet_size=size,
        duration_s=dur,
        bin_s=bin_s,
        rates=rates,
        bin_bytes=list(r["bin_bytes"]),
        packets=r["packets"],
        send_errors=r["send_errors"],
        received_bytes=r["received_bytes"],
        elapsed_s=r["elapsed_s"],
        load=(load.start_s, load.end_s, load.procs) if load else None,
        unsent=r["unsent"],
        wakes=list(r["wakes"]),
        wait_t=r["wait_t"],
        wait_ns=r["wait_ns"],
    )


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _quantiles(samples: list[int]) -> dict[str, float]:
    s = sorted(samples)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))]  # noqa: E731
    return {"p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99), "max": s[-1]}


#: seconds between starting the load processes and measuring under them
LOAD_SETTLE_S = 0.5


def clock_probe(
    out: str | Path,
    *,
    period: str = "100us",
    size: int = 1500,
    seconds: float = 3.0,
    load_procs: int = 0,
) -> dict:
    """Measures the waiting times of a *sender* on this machine, idle and (with `load_procs`
    > 0) under busy-wait load, writes the JSON profile file (format in docs/engines.md) and
    returns it.

    The probe is the native send loop with one `size`-byte datagram per wake-up and a wake-up
    due every `period` (the RFC 3448 loop without bursts at size·8/period bit/s), recording how
    much later than it could have each wake-up came (:attr:`SendLoopRun.wait_ns`): `seconds`
    idle, then `seconds` under the load (after it has settled). A thread that only sleeps is
    not enough: under load the scheduler treats a thread that also sends far worse (the plain
    sleep's overshoot is kept in the file as ``sleep_only``, for comparison)."""
    from . import _core

    period_s = parse_time(period) / 1e9
    if period_s <= 0:
        raise ValueError(f"period {period!r} must be positive")
    if not 1 <= size <= 65507:
        raise ValueError(f"size {size} must be 1-65507 bytes (a UDP datagram)")
    if not 0.5 <= seconds <= 3600:
        raise ValueError(f"seconds {seconds:g} must be between 0.5 and 3600")
    if period_s > seconds / 10:
        raise ValueError(f"period {period!r} must be at most a tenth of {seconds:g} s")
    idle_end = seconds
    load = None
    duration = idle_end
    if load_procs > 0:
        duration = idle_end + LOAD_SETTLE_S + seconds
        load = LoadWindow(idle_end, duration + 1.0, load_procs)
    run = sendloop(
        "rfc3448", size * 8 / period_s, size=size, duration=duration, load=load, trace_waits=True
    )
    # the first 100 ms are the loop's start-up; the last wake-up ends the run
    profiles = {
        "idle": [w for t, w in zip(run.wait_t, run.wait_ns, strict=True) if 0.1 <= t < idle_end]
    }
    if load_procs > 0:
        start = idle_end + LOAD_SETTLE_S
        profiles["load"] = [
            w for t, w in zip(run.wait_t, run.wait_ns, strict=True) if start <= t < duration
        ]
    # the bare-sleep reference: up to 500 sleeps, at most as long as a state's measurement
    count = max(10, min(500, int(seconds / period_s)))
    sleep_only = {"idle": _core.sleep_overshoot(period_s, count)}
    if load_procs > 0:
        window = LoadWindow(0.0, 1e9, load_procs)
        window.begin()
        try:
            time.sleep(LOAD_SETTLE_S)
            sleep_only["load"] = _core.sleep_overshoot(period_s, count)
        finally:
            window.close()
    for name, samples in profiles.items():
        if not samples:
            raise RuntimeError(f"the probe recorded no {name} wake-ups (is the machine stalled?)")
    data = {
        "version": 1,
        "host": platform.node(),
        "kernel": platform.release(),
        "cpus": os.cpu_count(),
        "method": "sendloop",
        "period_ns": int(period_s * 1e9),
        "packet_size": size,
        "seconds": seconds,
        # the measured waiting times already hold the timer's resolution (Linux hrtimers: ~ns),
        # its slack, the scheduling and the send: the model adds them to a t_g of 1 ns
        "granularity_ns": 1,
        "profiles": {
            name: {"samples_ns": samples, "quantiles_ns": _quantiles(samples)}
            for name, samples in profiles.items()
        },
        "sleep_only": {name: _quantiles(s) for name, s in sleep_only.items()},
        "load_procs": load_procs,
    }
    Path(out).write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    return data
