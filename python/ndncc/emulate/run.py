"""One emulation: plan, set up (namespaces or loopback), start daemons, producers, then
consumers on the scenario's schedule; wait the scenario's duration; stop everything; collect.
Everything made is removed on every exit path (errors, Ctrl-C, SIGTERM)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import netns
from .collect import collect
from .plan import (
    EmulateError,
    app_args,
    controller_config_toml,
    controller_socket,
    node_config_toml,
    plan_nodes,
    unsupported,
)
from .supervise import Supervisor, daemon_counters

READY_TIMEOUT_S = 10.0  # a daemon's socket, a producer's registration
END_GRACE_S = 15.0  # beyond the scenario's end, for the apps' own start-up and report
# consumers are launched this long before their start and wait for it (--start-at): their
# Python start-up (0.1-0.5 s, more on a loaded machine) then no longer skews their starts
CONSUMER_LEAD_S = 1.5
MODES = ("auto", "netns", "loopback")

ProgressFn = Callable[[float, float], Any]


WORK_PREFIX = "ndncc-emu-"  # + the driver's pid + "-": its temporary configs, sockets, specs


def remove_stale_work_dirs(tmp: Path | None = None) -> list[Path]:
    """Removes the temporary folders of emulate runs whose driver is gone (one killed with
    SIGKILL cannot clean up); returns them."""
    from ..procs import pid_alive

    gone = []
    for d in Path(tmp or tempfile.gettempdir()).glob(f"{WORK_PREFIX}*-*"):
        pid = d.name[len(WORK_PREFIX) :].split("-", 1)[0]
        if d.is_dir() and pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
    return gone


def find_ndnccd(explicit: str | None = None) -> Path:
    """The ``ndnccd`` binary: ``explicit``, $NDNCCD, the source tree's target/release, PATH."""
    root = Path(__file__).resolve().parents[3]
    if explicit:
        if Path(explicit).is_file() and os.access(explicit, os.X_OK):
            return Path(explicit)
        raise EmulateError(f"--ndnccd {explicit}: not an executable file")
    for c in (os.environ.get("NDNCCD"), root / "target" / "release" / "ndnccd"):
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    on_path = shutil.which("ndnccd")
    if on_path:
        return Path(on_path)
    raise EmulateError(
        "ndnccd not found: build it with `cargo build --release -p ndncc-rt --bin ndnccd` "
        "(or `make test`), or give --ndnccd PATH"
    )


def choose_mode(mode: str) -> tuple[str, str]:
    """(the mode used, why) for the requested ``auto``, ``netns`` or ``loopback``."""
    if mode not in MODES:
        raise EmulateError(f"--mode {mode!r}: one of {', '.join(MODES)}")
    if mode == "loopback":
        return "loopback", "asked for"
    why = netns.netns_unavailable()
    if why is None:
        return "netns", "network namespaces with veth links"
    if mode == "netns":
        raise EmulateError(f"--mode netns: {why}")
    return "loopback", f"network namespaces unavailable: {why}"


RT_PRIORITY = 10  # SCHED_FIFO priority of the emulation's processes (1-99)


def scheduling(realtime: bool) -> tuple[list[str], str]:
    """(the command prefix, a description) for the processes' CPU scheduling: SCHED_FIFO at
    :data:`RT_PRIORITY` when ``realtime`` and root with ``chrt``, else the default policy.
    Real-time priority keeps other work on the machine (builds) from stalling a daemon or an
    app for tens of ms, which a 10 Mbit/s link turns into a burst of packets the simulator
    never sees. The processes are event-driven (they sleep in poll), so they cannot starve
    the machine."""
    if not realtime:
        return [], "default (asked for)"
    if os.geteuid() != 0:
        return [], "default (SCHED_FIFO needs root)"
    chrt = shutil.which("chrt")
    if chrt is None:
        return [], "default (no chrt)"
    return [chrt, "-f", str(RT_PRIORITY)], f"SCHED_FIFO priority {RT_PRIORITY} (chrt)"


def _app_cmd(kind: str) -> list[str]:
    return [sys.executable, "-m", "ndncc", kind]


def _wait_socket(path: Path, proc, deadline: float) -> None:
    while time.monotonic() < deadline:
        if not proc.running():
            raise EmulateError(f"{proc.label} ended at start-up: {proc.tail() or 'no message'}")
        if path.exists():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(str(path))
                return
            except OSError:
                pass
            finally:
                s.close()
        time.sleep(0.02)
    raise EmulateError(f"{proc.label}: no socket at {path} after {READY_TIMEOUT_S:.0f} s")


class _Terminated(KeyboardInterrupt):
    """SIGTERM: stopped like Ctrl-C (everything cleaned up)."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def emulate(
    sc,
    out: Path,
    *,
    mode: str = "auto",
    ndnccd: str | None = None,
    bin_s: float | None = None,
    payload_as_is: bool = False,
    realtime: bool = True,
    progress: ProgressFn | None = None,
    restart_controller_at: float | None = None,
) -> dict:
    """Runs the scenario ``sc`` (a :class:`~ndncc.scenario.Scenario`) for real and writes
    ``summary.json``, ``app_series.parquet``, the node configs and the process logs into
    ``out``; returns the summary. ``bin_s``: the series' bin (default the scenario's
    ``[trace] bin``). Producers send Data whose wire size (the Data TLV) is the scenario's
    Data size, payload + ``[packets] data_overhead``, so that the emulated links and the
    schemes' ``data_size`` see the packets the simulator models; ``payload_as_is`` sends
    the payload as Content instead (the Data is then larger by its real headers).
    ``restart_controller_at``: s after the consumers' start, the SDN controller is killed
    (SIGKILL, a crash) and started again (a fault-injection test of the routers' reconnection;
    the summary's ``sdn_controller_restarts`` counts it)."""
    spec, _, _ = sc.resolved()
    problems = unsupported(spec)
    if problems:
        raise EmulateError("cannot emulate: " + "; ".join(problems))
    binary = find_ndnccd(ndnccd)
    used, why = choose_mode(mode)
    sched, sched_why = scheduling(realtime)
    routes = sc.routes()
    bin_s = bin_s or spec["trace"]["bin_ns"] / 1e9
    out.mkdir(parents=True, exist_ok=True)
    (out / "configs").mkdir(exist_ok=True)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    remove_stale_work_dirs()
    work = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-"))
    sup = Supervisor(logs)
    ns = None
    old = signal.signal(signal.SIGTERM, _on_sigterm)
    load_before = os.getloadavg()
    started = time.monotonic()
    try:
        if used == "netns":
            ns, endpoints = netns.make_namespaces(spec)
        else:
            endpoints = netns.loopback_endpoints(len(spec["nodes"]))
        nodes = plan_nodes(spec, routes, endpoints, work)
        controller = None
        ctl_text = controller_config_toml(spec, work)
        ctl_argv: list[str] = []
        if ctl_text is not None:
            ctl_cfg = work / "sdn-controller.toml"
            ctl_cfg.write_text(ctl_text, encoding="utf-8")
            (out / "configs" / "sdn-controller.toml").write_text(ctl_text, encoding="utf-8")
            ctl_argv = [*sched, str(binary), "sdn-controller", str(ctl_cfg)]
            controller = sup.start("sdn-controller", "daemon", ctl_argv)
            _wait_socket(controller_socket(work), controller, time.monotonic() + READY_TIMEOUT_S)
        restarts = 0
        daemons = []
        for n in nodes:
            text = node_config_toml(n)
            cfg = work / f"{n.index}.toml"
            cfg.write_text(text, encoding="utf-8")
            (out / "configs" / f"{n.name}.toml").write_text(text, encoding="utf-8")
            prefix = (ns.prefix(n.index) if ns else []) + sched
            daemons.append(
                sup.start(f"ndnccd-{n.name}", "daemon", [*prefix, str(binary), str(cfg)])
            )
        deadline = time.monotonic() + READY_TIMEOUT_S
        for n, d in zip(nodes, daemons, strict=True):
            _wait_socket(n.socket, d, deadline)
        producers, consumers = [], []
        pending = []  # (start s, label, argv) of consumers
        for i, a in enumerate(spec["apps"]):
            body, start, stop, end = app_args(spec, a)
            f = work / f"app{i}.json"
            f.write_text(json.dumps(body), encoding="utf-8")
            node = nodes[a["node"]]
            prefix = (ns.prefix(node.index) if ns else []) + sched
            base = [*prefix, *_app_cmd(body["app"]["kind"]), "--json", "--spec", str(f)]
            base += ["--forwarder", f"unix://{node.socket}"]
            if body["app"]["kind"] == "producer":
                ready = work / f"app{i}.ready"
                argv = [*base, "--ready-file", str(ready)]
                if not payload_as_is:
                    size = body["app"]["payload_size"] + spec["packets"]["data_overhead"]
                    argv += ["--data-wire-size", str(size)]
                producers.append((sup.start(f"app-{a['name']}", "producer", argv), ready, i))
            else:
                argv = [*base, "--duration", f"{end - start}s", "--bin", f"{bin_s}s"]
                argv += ["--seed", str(spec["seed"] * 1000 + i)]
                # ndnccd carries the simulator's one Interest per chunk (chunked consumers)
                argv += ["--chunk-requests", "lp"]
                if stop is not None and stop < end:
                    argv += ["--stop", f"{stop - start}s"]
                pending.append((start, f"app-{a['name']}", argv, i))
        deadline = time.monotonic() + READY_TIMEOUT_S + 5.0  # Python start-up of each app
        for p, ready, _ in producers:
            while not ready.exists():
                if not p.running():
                    raise EmulateError(f"{p.label} ended at start-up: {p.tail() or 'no message'}")
                if time.monotonic() > deadline:
                    raise EmulateError(f"{p.label}: prefix not registered in time")
                time.sleep(0.02)
        # the scenario's time 0, a lead after now (the consumers' start-up); t0_unix for the
        # daemons' Unix-time records and the consumers' --start-at
        t0 = time.monotonic() + CONSUMER_LEAD_S
        t0_unix = time.time() + CONSUMER_LEAD_S
        end = spec["duration_ns"] / 1e9
        pending.sort(key=lambda x: x[0])
        while pending or any(c.running() for c, _ in consumers):
            now = time.monotonic() - t0
            if controller is not None and restart_controller_at is not None:
                if restarts == 0 and now >= restart_controller_at:
                    sup.kill(controller)
                    restarts += 1
                    controller = sup.start(f"sdn-controller-{restarts + 1}", "daemon", ctl_argv)
            while pending and pending[0][0] - CONSUMER_LEAD_S <= now:
                start, label, argv, i = pending.pop(0)
                argv = [*argv, "--start-at", f"{t0_unix + start:.6f}"]
                consumers.append((sup.start(label, "consumer", argv), i))
            bad = sup.failed()
            if bad is not None:
                raise EmulateError(f"{bad.label} failed: {bad.tail() or 'no message'}")
            if now > end + END_GRACE_S:
                break
            if progress is not None:
                progress(max(0.0, min(now, end)), end)
            time.sleep(0.05)
        if progress is not None:
            progress(end, end)
        # a consumer still running past the grace period is stopped: it prints its report
        sup.stop([c for c, _ in consumers])
        sup.stop([p for p, _, _ in producers])
        sup.stop(daemons)
        if controller is not None:
            sup.stop([controller])
        # the kernel's UDP counters of each namespace (loopback mode shares the host's)
        udp = {n.name: ns.udp_counters(n.index) for n in nodes} if ns else None
        wall = time.monotonic() - started
        summary = collect(
            spec,
            nodes,
            consumers,
            [(p, i) for p, _, i in producers],
            daemons,
            out,
            bin_s=bin_s,
            extra={
                "mode": used,
                "mode_reason": why,
                "kernel_udp": udp,
                "scheduling": sched_why,
                "wall_time_s": round(wall, 3),
                "t0_unix_s": t0_unix,
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "cpu_count": os.cpu_count(),
                "ndnccd": str(binary),
                "data_sizes": "payload as Content" if payload_as_is else "scenario Data size",
                "source": sc.source,
                **(
                    {
                        "sdn_controller": daemon_counters(controller, "sdn-controller: stopped "),
                        "sdn_controller_restarts": restarts,
                    }
                    if controller is not None
                    else {}
                ),
            },
        )
        return summary
    finally:
        try:
            sup.stop_all()
        finally:
            if ns is not None:
                ns.close()
            shutil.rmtree(work, ignore_errors=True)
            signal.signal(signal.SIGTERM, old)
