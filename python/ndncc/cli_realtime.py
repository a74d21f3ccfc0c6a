"""The real-clock commands of the CLI: ``ndncc sendloop`` (a UDP send loop paced by a sending
engine on the OS clock, seed 003) and ``ndncc clock-probe`` (a sender's wake-up delays, a clock
model for the simulator). Exit codes are the CLI's (:mod:`ndncc.cli`)."""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

from .cli_common import EXIT_OK, InputError, _console, _output_dir


def _sendloop_figure(run, path: Path, title: str) -> Path:
    from matplotlib.figure import Figure

    from .experiments.common import save_figure

    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot()
    eff = run.effective_bps()
    ts = [(i + 0.5) * run.bin_s for i in range(len(eff))]
    ax.plot(ts, [x / 1e6 for x in eff], label="effective", lw=0.9)
    ax.step(
        ts,
        [run.requested_bps(i * run.bin_s) / 1e6 for i in range(len(eff))],
        where="mid",
        color="black",
        ls=":",
        label="requested",
    )
    if run.load:
        ax.axvspan(
            run.load[0],
            run.load[1],
            color="tab:red",
            alpha=0.1,
            label=f"load: {run.load[2]} busy processes",
        )
    ax.set(xlabel="Time (s)", ylabel="Rate (Mbit/s)", title=title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def _parse_steps(text: str | None, bps: float) -> list[tuple[float, float]] | None:
    """``--step 10s-20s:0.1``: the rate times 0.1 from 10 s to 20 s."""
    if not text:
        return None
    from .units import UnitError, parse_time

    try:
        window, factor = text.split(":")
        a, b = window.split("-")
        t0, t1 = parse_time(a.strip()) / 1e9, parse_time(b.strip()) / 1e9
        f = float(factor)
    except (ValueError, UnitError) as e:
        raise InputError(f"--step {text!r}: expected START-END:FACTOR, e.g. 10s-20s:0.1") from e
    if t1 <= t0 or not (math.isfinite(f) and f > 0):
        raise InputError(f"--step {text!r}: END must follow START and FACTOR be a positive number")
    return [(0.0, bps), (t0, bps * f), (t1, bps)]


def _check_target(text: str) -> None:
    """``--target``: an IP address and a port, e.g. 127.0.0.1:9000 or [::1]:9000."""
    import ipaddress

    host, _, port = text.rpartition(":")
    try:
        ipaddress.ip_address(host[1:-1] if host.startswith("[") else host)
        ok = port.isdigit() and 1 <= int(port) <= 65535
    except ValueError:
        ok = False
    if not ok:
        raise InputError(
            f"--target {text!r}: expected IP:PORT, e.g. 127.0.0.1:9000 or [::1]:9000 "
            "(an address, not a host name)"
        )


def cmd_sendloop(args: argparse.Namespace) -> int:
    from . import realtime
    from .scenario import ENGINE_KEYS
    from .units import UnitError, parse_rate, parse_time

    # each engine's own flags (the scenario keys of the same names): given to another engine
    # they would be ignored, so refuse them
    for flag in ("kr", "period", "granularity"):
        engines = ENGINE_KEYS[flag]
        if getattr(args, flag) is not None and args.engine not in engines:
            raise InputError(f"--{flag} applies to --engine {engines[0]}, not {args.engine}")
    args.kr = 1.0 if args.kr is None else args.kr
    args.period = args.period or "1ms"
    args.granularity = args.granularity or "1ms"
    try:
        bps = parse_rate(args.rate)
        duration = parse_time(args.duration) / 1e9
        times = {flag: parse_time(getattr(args, flag)) / 1e9 for flag in ("period", "granularity")}
    except UnitError as e:
        raise InputError(f"{e.problem} ({e.fix})") from e
    if bps <= 0:  # parse_rate gives a whole number of bit/s
        raise InputError(f"--rate {args.rate!r} must be positive, e.g. 500Mbps")
    if not 0.2 <= duration <= 1e6:
        raise InputError(
            f"--duration {args.duration!r} must be at least 0.2s (two 100 ms bins) and at most 1e6s"
        )
    for flag, t in times.items():
        if not 0 < t <= 1e6:
            raise InputError(f"--{flag} {getattr(args, flag)!r} must be positive, e.g. 1ms")
    if args.engine == "rmc" and times["period"] >= duration:
        raise InputError(
            f"--period {args.period} is not shorter than --duration {args.duration}: the loop "
            "would run once (give a period that is a small part of the run, e.g. 1ms)"
        )
    if args.target is not None:
        _check_target(args.target)
    if not 0 < args.kr < 2:
        raise InputError(
            "--kr must be in (0, 2): the loop is unstable from 2 on (1 is recommended)"
        )
    if args.size < 1 or args.size > 65507:
        raise InputError("--size must be between 1 and 65507 bytes (a UDP datagram)")
    try:
        load = realtime.LoadWindow.parse(args.load) if args.load else None
    except ValueError as e:
        raise InputError(str(e)) from e
    steps = _parse_steps(args.step, bps)
    for flag, text, start in (
        ("load", args.load, load.start_s if load else None),
        ("step", args.step, steps[1][0] if steps else None),
    ):
        if start is not None and start >= duration:
            raise InputError(
                f"--{flag} {text!r} starts at {start:g} s, when the run ({args.duration}) is over: "
                f"start it before {duration:g} s, or raise --duration"
            )
    console = _console()
    if not args.quiet:
        console.print(
            f"sending {args.rate} of {args.size}-byte UDP datagrams for {args.duration} "
            f"with {args.engine}" + (f" (load {args.load})" if load else ""),
            markup=False,
        )
    out = _output_dir(Path(args.out) if args.out else Path("results") / "sendloop")
    try:
        run = realtime.sendloop(
            args.engine,
            bps,
            size=args.size,
            duration=duration,
            kr=args.kr,
            period=args.period,
            granularity=args.granularity,
            load=load,
            steps=steps,
            target=args.target,
        )
    except (ValueError, RuntimeError) as e:  # refused arguments, or a socket that cannot send
        raise InputError(str(e)) from e
    (out / "sendloop.json").write_text(json.dumps(run.to_json(), indent=1) + "\n")
    if run.send_errors > 0.1 * (run.send_errors + run.packets):
        # more than a tenth: e.g. a closed port answers every other datagram with "refused"
        raise InputError(
            f"{run.send_errors:,} of {run.send_errors + run.packets:,} sends failed: is "
            f"{args.target or 'the target'} listening? (the run is in {out / 'sendloop.json'})"
        )
    fig = _sendloop_figure(run, out / "sendloop.png", f"{args.engine}, {args.rate} requested")
    err = run.relative_error(run.bin_s)
    if not args.quiet:
        console.print(f"effective rate error e = (r − E[r_e]) / r: {err * 100:.3f} %", markup=False)
        if load:
            e_load = run.relative_error(load.start_s, load.end_s)
            console.print(f"during the load window: {e_load * 100:.3f} %")
        unsent = f", {run.unsent:,} released as the run ended and not sent" if run.unsent else ""
        console.print(
            f"packets {run.packets:,}, send errors {run.send_errors:,}{unsent}; "
            f"written {out / 'sendloop.json'} and {fig}",
            markup=False,
        )
    return EXIT_OK


def _is_clock_profile(path: Path) -> bool:
    """True for a file an earlier `ndncc clock-probe` wrote (it may be replaced)."""
    try:
        if path.stat().st_size == 0:  # left by an interrupted probe
            return True
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "profiles" in data and "granularity_ns" in data


def cmd_clock_probe(args: argparse.Namespace) -> int:
    from . import realtime
    from .units import UnitError, parse_time

    if args.load < 0:
        raise InputError("--load must be 0 or more processes")
    if not 1 <= args.size <= 65507:
        raise InputError("--size must be between 1 and 65507 bytes (a UDP datagram)")
    try:
        seconds = parse_time(args.duration) / 1e9
        period = parse_time(args.period)
    except UnitError as e:
        raise InputError(f"{e.problem} ({e.fix})") from e
    if period <= 0:
        raise InputError(f"--period {args.period!r} must be positive (e.g. 100us)")
    if not 0.5 <= seconds <= 3600:
        raise InputError(f"--duration {args.duration!r} must be between 0.5s and 3600s")
    if period / 1e9 > seconds / 10:
        raise InputError(
            f"--period {args.period!r} must be at most a tenth of --duration ({args.duration})"
        )
    out = Path(args.out)
    if out.is_dir():
        raise InputError(f"--out {out}: is a directory (give a file name, e.g. {out}/clock.json)")
    if out.exists() and not _is_clock_profile(out):
        raise InputError(
            f"--out {out}: exists and is not a clock profile (choose another name, or remove it)"
        )
    if args.load > 64:
        raise InputError("--load must be at most 64 processes")
    # fail before measuring, not after: the directory must exist and take the file
    _output_dir(out.parent)
    try:
        out.touch()
    except OSError as e:
        raise InputError(f"--out {args.out}: cannot write there ({e.strerror or e})") from e
    data = realtime.clock_probe(
        out, period=args.period, size=args.size, seconds=seconds, load_procs=args.load
    )
    console = _console()
    for name, p in data["profiles"].items():
        q = p["quantiles_ns"]
        console.print(
            f"{name}: {len(p['samples_ns'])} wake-ups, waiting time p50 {q['p50'] / 1e3:.1f} µs, "
            f"p99 {q['p99'] / 1e3:.1f} µs, max {q['max'] / 1e3:.1f} µs",
            markup=False,
        )
    console.print(
        f"profile written to {args.out} (use it as clock_profile in a scenario)", markup=False
    )
    return EXIT_OK


def add_commands(sub) -> None:
    """Adds ``sendloop`` and ``clock-probe`` to the CLI's subcommands."""
    sl = sub.add_parser(
        "sendloop",
        help="a UDP send loop on the real OS clock (seed 003)",
        description="Send UDP datagrams at a rate, paced by a sending engine on the OS clock "
        "(the simulator's engine code), and record the effective rate every 100 ms.",
    )
    sl.add_argument("--engine", choices=["rfc3448", "rfc3448-burst", "rmc"], default="rmc")
    sl.add_argument("--rate", default="100Mbps", help="requested rate, e.g. 500Mbps")
    sl.add_argument("--size", type=int, default=1500, help="datagram payload in bytes (1500)")
    sl.add_argument("--duration", default="10s", help="how long to send, e.g. 60s")
    sl.add_argument("--kr", type=float, help="RMC only: gain, 0 < kr < 2 (1)")
    sl.add_argument("--period", help="RMC only: the loop period Ts (1ms)")
    sl.add_argument("--granularity", help="RFC 3448 only: t_g of the δ rule (1ms)")
    sl.add_argument(
        "--load",
        metavar="START-END:PROCS",
        help="busy-wait processes for a window, e.g. 20s-40s:5 (stopped by ndncc)",
    )
    sl.add_argument(
        "--step",
        metavar="START-END:FACTOR",
        help="multiply the rate by FACTOR during a window, e.g. 10s-20s:0.1",
    )
    sl.add_argument(
        "--target", metavar="ADDR:PORT", help="send there instead of a receiver on 127.0.0.1"
    )
    sl.add_argument("--out", metavar="DIR", help="output directory (default results/sendloop)")
    sl.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    sl.set_defaults(func=cmd_sendloop)

    cp = sub.add_parser(
        "clock-probe",
        help="measure how late a sender's wake-ups come (a clock model for the simulator)",
        description="Run a UDP send loop on loopback (one datagram per wake-up, a wake-up due "
        "every --period), idle and then under busy-wait load, and save how much later than "
        "due each wake-up came as a JSON clock profile (scenario key clock_profile).",
    )
    cp.add_argument("--out", default="clock-profile.json", help="profile file to write")
    cp.add_argument("--period", default="100us", help="time between the probe's wake-ups (100us)")
    cp.add_argument("--size", type=int, default=1500, help="datagram size in bytes (1500)")
    cp.add_argument("--duration", default="3s", help="measuring time per state, idle and load (3s)")
    cp.add_argument(
        "--load",
        type=int,
        default=os.cpu_count() or 1,
        help="busy-wait processes for the 'load' profile (0: idle only)",
    )
    cp.set_defaults(func=cmd_clock_probe)
