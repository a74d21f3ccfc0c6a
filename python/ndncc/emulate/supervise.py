"""The processes of one emulation: started with their output in files, watched, and always
stopped (SIGINT to apps, which then print their report; SIGTERM to daemons, which print their
counters; SIGKILL to whatever is still there 5 s later). Each runs in its own session, so a
Ctrl-C at the terminal reaches only ``ndncc emulate``, which stops them in order. Each also
gets SIGTERM if ``ndncc emulate`` itself dies (Linux ``PR_SET_PDEATHSIG``), so a killed run
leaves no daemon behind."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .plan import EmulateError

STOP_GRACE_S = 5.0
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the parent dies (kept across exec of programs
    that are not set-user-ID: ip, chrt, ndnccd, python). Best effort: elsewhere a no-op."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass


@dataclass
class Proc:
    label: str
    kind: str  # "daemon", "producer", "consumer"
    popen: subprocess.Popen
    stdout: Path
    stderr: Path

    def running(self) -> bool:
        return self.popen.poll() is None

    def tail(self, lines: int = 3) -> str:
        """The last lines of its stderr (for one-line errors)."""
        try:
            text = self.stderr.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return ""
        return " | ".join(text.splitlines()[-lines:])


class Supervisor:
    def __init__(self, logdir: Path):
        self.logdir = logdir
        self.procs: list[Proc] = []

    def start(self, label: str, kind: str, argv: list[str]) -> Proc:
        out, err = self.logdir / f"{label}.out", self.logdir / f"{label}.err"
        with open(out, "wb") as o, open(err, "wb") as e:
            try:
                p = subprocess.Popen(
                    argv,
                    stdout=o,
                    stderr=e,
                    start_new_session=True,
                    preexec_fn=_die_with_parent,  # noqa: PLW1509 - no threads start children
                )
            except OSError as ex:
                raise EmulateError(f"cannot start {label} ({argv[0]}): {ex.strerror}") from None
        proc = Proc(label, kind, p, out, err)
        self.procs.append(proc)
        return proc

    def failed(self) -> Proc | None:
        """A process that has ended with an error (None: none has)."""
        for p in self.procs:
            rc = p.popen.poll()
            if rc is not None and rc != 0:
                return p
        return None

    def wait(self, procs: list[Proc], deadline: float) -> bool:
        """Waits until every one of ``procs`` has ended, or ``deadline`` (monotonic s)."""
        while time.monotonic() < deadline:
            if all(not p.running() for p in procs):
                return True
            time.sleep(0.05)
        return all(not p.running() for p in procs)

    def stop(self, procs: list[Proc]) -> None:
        """Apps get SIGINT, daemons SIGTERM; SIGKILL after the grace period."""
        for p in procs:
            if p.running():
                sig = signal.SIGTERM if p.kind == "daemon" else signal.SIGINT
                try:
                    p.popen.send_signal(sig)
                except ProcessLookupError:
                    pass
        end = time.monotonic() + STOP_GRACE_S
        for p in procs:
            try:
                p.popen.wait(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.popen.kill()
                p.popen.wait()

    def kill(self, proc: Proc) -> None:
        """Kills ``proc`` (SIGKILL, a crash) and forgets it: its end is no failure."""
        if proc.running():
            proc.popen.kill()
        proc.popen.wait()
        self.procs = [p for p in self.procs if p is not proc]

    def stop_all(self) -> None:
        """Apps first, then daemons (whose counters then include everything)."""
        self.stop([p for p in self.procs if p.kind != "daemon"])
        self.stop([p for p in self.procs if p.kind == "daemon"])


def app_report(proc: Proc) -> dict | None:
    """The JSON report an app printed (``--json``), None if it printed none."""
    try:
        text = proc.stdout.read_text(encoding="utf-8", errors="replace").strip()
        return json.loads(text) if text else None
    except (OSError, ValueError):
        return None


def daemon_counters(proc: Proc, marker: str = "ndnccd: stopped ") -> dict | None:
    """The counters ``ndnccd`` prints when stopped (``ndnccd: stopped {...}``; the SDN
    controller's: ``sdn-controller: stopped {...}``)."""
    try:
        lines = proc.stderr.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.startswith(marker):
            try:
                return json.loads(line[len(marker) :])
            except ValueError:
                return None
    return None
