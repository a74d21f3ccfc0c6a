"""The ``ndncc`` command line.

Exit codes (stable, for scripts):

* 0 — success
* 1 — internal error (a bug in ndncc: please report it with the command line)
* 2 — usage error (unknown command or flag, bad flag value)
* 3 — invalid input: a scenario that does not validate, a missing or damaged file
* 4 — some runs of a sweep or a reproduction failed (the others are saved; run it again to
  retry them)
* 130 — interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_INTERRUPTED = 130


class InputError(Exception):
    """A user-facing problem with an input file or value (exit code 3)."""


def _console(stderr: bool = False):
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # Off a terminal (pipes, CI logs) rich would wrap at 80 columns; tables need more.
    width = None if stream.isatty() else 132
    return Console(stderr=stderr, highlight=False, width=width)


# ---------------------------------------------------------------------------------------------
# progress


class _LazyProgress:
    """A rich progress bar that appears only once a run has lasted more than `delay_s`."""

    def __init__(self, label: str, delay_s: float = 1.0, enabled: bool = True) -> None:
        self.label = label
        self.delay_s = delay_s
        self.enabled = enabled
        self.started = time.perf_counter()
        self.progress = None
        self.task = None

    def __call__(self, sim_s: float, total_s: float) -> None:
        if not self.enabled or time.perf_counter() - self.started < self.delay_s:
            return
        if self.progress is None:
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:.2f}/{task.total:.2f} s simulated"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=_console(stderr=True),
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task(self.label, total=total_s)
        self.progress.update(self.task, completed=sim_s)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


# ---------------------------------------------------------------------------------------------
# commands


def _parse_set(items: list[str] | None) -> dict[str, Any]:
    """``--set key=value`` pairs; values are parsed as TOML scalars when possible."""
    import tomllib

    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise InputError(f"--set {item!r}: expected KEY=VALUE, e.g. --set trace.bin=50ms")
        key, raw = item.split("=", 1)
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        out[key.strip()] = value
    return out


def _print_consumers(console, result) -> None:
    from rich.table import Table

    apps = result.summary.get("apps", [])
    if not apps:
        console.print("no consumers in this scenario")
        return
    t = Table(title=f"{result.summary['scenario']} — consumers", title_justify="left")
    for col in (
        "app",
        "node",
        "Interests",
        "Data",
        "Nacks",
        "timeouts",
        "throughput (Mbit/s)",
        "delivery",
        "delay mean (ms)",
        "delay p99 (ms)",
    ):
        t.add_column(col, justify="left" if col in ("app", "node") else "right")

    def num(x, fmt):
        return "—" if x is None else format(x, fmt)

    for a in apps:
        d = a.get("delay_ms", {})
        t.add_row(
            a["name"],
            a["node"],
            str(a["interests_sent"]),
            str(a["data_received"]),
            str(a["nacks_received"]),
            str(a["timeouts"]),
            num(a["throughput_mbps"], ".3f"),
            num(a["delivery_ratio"], ".4f"),
            num(d.get("mean"), ".2f"),
            num(d.get("p99"), ".2f"),
        )
    console.print(t)
    jain = result.summary.get("fairness_jain")
    console.print(
        f"Jain fairness index: {num(jain, '.4f')}   events: {result.summary['events']:,}   "
        f"wall: {result.summary['wall_time_s']:.3f} s"
    )


def _output_dir(path: Path, flag: str = "--out") -> Path:
    """Creates the output directory before any work, or fails with an input error: a path that
    is a file, under a file, unwritable or impossible is the user's to fix, not a crash after
    the measurement."""
    if path.exists() and not path.is_dir():
        raise InputError(f"{flag} {path}: exists and is not a directory (choose another path)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{flag} {path}: cannot create it ({e.strerror or e})") from e
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"{flag} {path}: not writable (choose another path)")
    return path


def cmd_run(args: argparse.Namespace) -> int:
    from . import runner

    console = _console()
    overrides = {"overrides": _parse_set(args.set)} if args.set else {}
    if args.no_figures:
        overrides.setdefault("overrides", {})["trace.figures"] = False
    sc = runner.load_scenario(
        args.scenario, seed=args.seed, run=args.run, duration=args.duration, **overrides
    )
    spec_name = sc.resolve()["name"]
    out = _output_dir(Path(args.out) if args.out else Path("results") / spec_name)
    progress = _LazyProgress(f"running {spec_name}", enabled=not args.quiet)
    try:
        result = runner.run(sc, out=out, progress=progress)
    finally:
        progress.close()
    if not args.quiet:
        _print_consumers(console, result)
        console.print(f"results written to [bold]{out}/[/bold]")
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from .scenario import Scenario, ScenarioError

    console = _console()
    status = EXIT_OK
    for path in args.scenarios:
        try:
            sc = Scenario.load(path)
            spec, _, warnings = sc.resolved()
        except ScenarioError as e:
            status = EXIT_INPUT
            _error(str(e))
            continue
        for w in warnings:
            console.print(f"warning: {w}", markup=False)
        console.print(
            f"{path}: OK — {len(spec['nodes'])} nodes, {len(spec['links'])} links, "
            f"{len(spec['routes'])} routes, {len(spec['apps'])} apps",
            markup=False,
        )
    return status


def cmd_plot(args: argparse.Namespace) -> int:
    from .results import Result

    try:
        result = Result.load(args.run_dir)
    except (FileNotFoundError, ValueError) as e:
        raise InputError(str(e)) from e
    out = _output_dir(Path(args.out or args.run_dir), "--out" if args.out else "run directory")
    try:
        paths = result.plot(out)
    except OSError as e:
        raise InputError(f"cannot write the figures into {out} ({e.strerror or e})") from e
    console = _console()
    for p in paths:
        console.print(str(p), markup=False)
    if not paths:
        console.print("nothing to plot (the run has no time series)")
    return EXIT_OK


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import experiments
    from .backends import BackendError
    from .campaign import CampaignError
    from .cli_campaign import EXIT_RUNS_FAILED, _jobs_and_dask, reproduce_all
    from .store import StoreError

    if args.all:
        if args.paper is not None:
            raise InputError(f"give a paper ({args.paper}) or --all, not both")
        return reproduce_all(args)
    if args.paper is None:
        raise InputError(f"name a paper ({', '.join(experiments.PAPERS)}) or give --all")
    _jobs_and_dask(args)
    if args.paper not in experiments.PAPERS:
        raise InputError(f"unknown paper {args.paper!r}; known: {', '.join(experiments.PAPERS)}")
    if args.jobs is not None and not 1 <= args.jobs <= 1024:
        raise InputError("--jobs must be between 1 and 1024")
    out = _output_dir(Path(args.out) if args.out else Path("results") / args.paper)
    console = _console()
    bar = None
    task = None
    if not args.quiet:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        bar = Progress(
            "[bold]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=_console(stderr=True),
            transient=True,
        )
        bar.start()
        task = bar.add_task(f"reproducing {args.paper}", total=None)

    def on_done(outcome, done: int, total: int) -> None:
        if bar is not None:
            bar.update(task, completed=done, total=total)

    try:
        rep = experiments.reproduce(
            args.paper,
            out,
            quick=args.quick,
            n_jobs=args.jobs,
            on_done=on_done,
            dask=args.dask,
            mix_commits=args.mix_commits,
            fresh=args.fresh,
        )
    except (StoreError, BackendError) as e:
        raise InputError(str(e)) from e
    except CampaignError as e:
        _error(f"error: {e}")
        return EXIT_RUNS_FAILED
    finally:
        if bar is not None:
            bar.stop()
    if not args.quiet:
        ok = sum(r.within for r in rep.rows)
        console.print(
            f"{rep.runs} runs in {rep.wall_s:.1f} s; {ok} of {len(rep.rows)} comparisons "
            f"within tolerance"
        )
        for r in rep.rows:
            if not r.within:
                console.print(
                    f"  outside: {r.experiment} / {r.metric} / {r.condition}: paper "
                    f"{r.paper}, ours {r.ours} ({r.tolerance})",
                    markup=False,
                )
        console.print(f"report: [bold]{rep.report}[/bold]  (comparison.csv and figures beside it)")
    return EXIT_OK


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


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    names = args.workload or list(bench.WORKLOADS)
    unknown = [n for n in names if n not in bench.WORKLOADS]
    if unknown:
        raise InputError(f"unknown workload {unknown[0]!r}; known: {', '.join(bench.WORKLOADS)}")
    if not 1 <= args.repeat <= 100:
        raise InputError("--repeat must be between 1 and 100")
    results = {}
    console = _console(stderr=args.json)
    for name in names:
        if not args.json:
            console.print(f"running {name} …", markup=False)
        results[name] = bench.measure(name, repeat=args.repeat)
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
    else:
        bench.print_table(_console(), results)
    return EXIT_OK


def cmd_schemes(args: argparse.Namespace) -> int:
    from . import schemes_doc

    if args.json:
        from .scenario.schemes import schema

        print(json.dumps(schema(), indent=2))
    elif args.markdown:
        print(schemes_doc.markdown(), end="")
    elif not schemes_doc.print_tables(_console(), args.name):
        raise InputError(f"unknown scheme {args.name!r}; known: {', '.join(schemes_doc.names())}")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# parser


class _VersionAction(argparse.Action):
    """--version: the version looked up only when asked (importlib.metadata is slow to load)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from . import __version__

        parser.exit(message=f"ndncc {__version__}\n")


def build_parser() -> argparse.ArgumentParser:
    from . import cli_campaign

    p = argparse.ArgumentParser(
        prog="ndncc",
        description="A laboratory for congestion control in Named Data Networking.",
        epilog="Exit codes: 0 ok, 1 internal error, 2 usage error, 3 invalid input, "
        "4 some runs failed, 130 interrupted.",
    )
    p.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    r = sub.add_parser(
        "run",
        help="run a scenario in the simulator",
        description="Run a scenario and write summary.json, Parquet tables and figures.",
    )
    r.add_argument("scenario", help="scenario TOML file (see docs/scenario.md)")
    r.add_argument("--out", metavar="DIR", help="output directory (default results/<name>)")
    r.add_argument("--seed", type=int, help="override [scenario] seed")
    r.add_argument("--run", type=int, help="override [scenario] run (replication number)")
    r.add_argument("--duration", help="override [scenario] duration, e.g. 5s")
    r.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override any value by dotted path, e.g. --set trace.bin=50ms "
        "--set 'links[0].bandwidth=\"20Mbps\"' (repeatable)",
    )
    r.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser(
        "validate",
        help="check scenario files without running them",
        description="Check scenario files: every mistake is listed with the file, the key, "
        "the problem and a fix.",
    )
    v.add_argument("scenarios", nargs="+", metavar="SCENARIO", help="scenario TOML files")
    v.set_defaults(func=cmd_validate)

    pl = sub.add_parser(
        "plot",
        help="redraw the figures of a finished run",
        description="Redraw the figures of a run directory written by 'ndncc run'.",
    )
    pl.add_argument("run_dir", metavar="DIR", help="a directory written by 'ndncc run'")
    pl.add_argument("--out", metavar="DIR", help="where to write the PNGs (default: DIR)")
    pl.set_defaults(func=cmd_plot)

    rp = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiments and compare with its numbers",
        description="Run a paper's experiment set in parallel and write comparison.csv "
        "(paper beside ours), the paper's figures re-drawn, and report.md.",
    )
    rp.add_argument(
        "paper",
        nargs="?",
        help="paper id: sf-clock (seed 002), mircc-clock (seed 000), rmc (seed 003), "
        "clock-fixes (seeds 000, 002, 003 together)",
    )
    rp.add_argument(
        "--all", action="store_true", help="every paper into OUT/<paper>, one OUT/report.html"
    )
    rp.add_argument("--quick", action="store_true", help="a reduced grid (under a minute)")
    rp.add_argument(
        "--out", metavar="DIR", help="output directory (default results/<paper>; --all: results)"
    )
    rp.add_argument("--jobs", type=int, metavar="N", help="parallel runs (default: one per core)")
    rp.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    cli_campaign.add_campaign_flags(rp)
    rp.set_defaults(func=cmd_reproduce)
    cli_campaign.add_commands(sub)

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

    b = sub.add_parser(
        "bench",
        help="measure simulator speed on the standard workloads",
        description="Run the benchmark workloads (each in a fresh process) and report wall "
        "time, events, events/s, packet-hops/s and peak RSS.",
    )
    b.add_argument("--json", action="store_true", help="print one JSON object keyed by workload")
    b.add_argument(
        "--workload", action="append", metavar="NAME", help="run only this workload (repeatable)"
    )
    b.add_argument(
        "--repeat", type=int, default=3, help="runs per workload; the fastest counts (default 3)"
    )
    b.set_defaults(func=cmd_bench)

    sc = sub.add_parser(
        "schemes",
        help="list the schemes and their parameters",
        description="Every registered scheme part (router parts, consumer controllers) with "
        "its parameters: values, default and meaning (the paper's symbol first).",
    )
    sc.add_argument("name", nargs="?", help="show only this scheme")
    sc.add_argument("--json", action="store_true", help="the registry's schema as JSON")
    sc.add_argument(
        "--markdown", action="store_true", help="the Markdown of docs/schemes/parameters.md"
    )
    sc.set_defaults(func=cmd_schemes)
    return p


def _error(text: str) -> None:
    """Errors go to stderr unwrapped, one problem per line, so scripts can grep them."""
    print(text, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    from .scenario import ScenarioError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ScenarioError as e:
        _error(str(e))
        return EXIT_INPUT
    except InputError as e:
        _error(f"error: {e}")
        return EXIT_INPUT
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - last-resort guard: never a bare traceback
        _error(
            f"internal error: {type(e).__name__}: {e}\n"
            "This is a bug in ndncc; please report it with the command line you used."
        )
        if os.environ.get("NDNCC_DEBUG"):
            raise
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
