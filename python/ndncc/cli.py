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
import contextlib
import json
import os
import sys
import time
from pathlib import Path

from .cli_common import (  # noqa: F401 - re-exported: ndncc.cli.InputError etc.
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    InputError,
    _console,
    _error,
    _escape,
    _output_dir,
    _parse_set,
    _say,
)

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


def _print_consumers(console, result) -> None:
    apps = result.summary.get("apps", [])
    if not apps:
        console.print("no consumers in this scenario")
        return

    def num(x, fmt):
        return "—" if x is None else format(x, fmt)

    cells = []
    for a in apps:
        d = a.get("delay_ms", {})
        cells.append(
            [
                a["name"],
                a["node"],
                str(a["interests_sent"]),
                str(a["data_received"]),
                str(a["nacks_received"]),
                str(a["timeouts"]),
                num(a.get("in_flight_at_end"), "d"),
                num(a["throughput_mbps"], ".3f"),
                num(a["delivery_ratio"], ".4f"),
                num(d.get("mean"), ".2f"),
                num(d.get("p99"), ".2f"),
            ]
        )
    for t in _consumer_tables(console, f"{result.summary['scenario']} — consumers", cells):
        console.print(t)
    jain = result.summary.get("fairness_jain")
    ran = result.summary.get("fairness_consumers")
    over = f" (over the {ran} consumers that sent)" if ran is not None and ran < len(apps) else ""
    _say(
        console,
        f"Jain fairness index: {num(jain, '.4f')}{over}   events: {result.summary['events']:,}   "
        f"wall: {result.summary['wall_time_s']:.3f} s",
    )


_CONSUMER_COLUMNS = [
    "app",
    "node",
    "Interests",
    "Data",
    "Nacks",
    "timeouts",
    "in flight\n(at end)",
    "throughput\n(Mbit/s)",
    "delivery",
    "delay mean\n(ms)",
    "delay p99\n(ms)",
]


def _consumer_tables(console, title: str, cells: list[list[str]]) -> list:
    """The consumers table, or — when it does not fit the console's width whole — two tables
    (counts, then rates and delays). Numbers are never cut or folded: their columns keep the
    width of their longest cell; only names fold."""
    from rich.markup import escape
    from rich.measure import Measurement
    from rich.table import Table

    def table(cols: list[int], title: str | None):
        # names are the user's: "[x]" in them is text, not rich markup
        t = Table(title=None if title is None else escape(title), title_justify="left")
        for i in cols:
            head = _CONSUMER_COLUMNS[i]
            if i < 2:
                t.add_column(head, overflow="fold")
                continue
            longest = max([len(row[i]) for row in cells] + [len(w) for w in head.split()])
            t.add_column(head, justify="right", no_wrap=True, min_width=longest)
        for row in cells:
            t.add_row(*(escape(row[i]) for i in cols))
        return t

    whole = table(list(range(len(_CONSUMER_COLUMNS))), title)
    unbounded = console.options.update_width(10_000)
    if Measurement.get(console, unbounded, whole).maximum <= console.width:
        return [whole]
    return [table([0, 1, 2, 3, 4, 5, 6], title), table([0, 7, 8, 9, 10], None)]


def cmd_run(args: argparse.Namespace) -> int:
    from . import runner

    console = _console()
    overrides = {"overrides": _parse_set(args.set)} if args.set else {}
    if args.no_figures:
        overrides.setdefault("overrides", {})["trace.figures"] = False
    sc = runner.load_scenario(
        args.scenario, seed=args.seed, run=args.run, duration=args.duration, **overrides
    )
    spec, _, warnings = sc.resolved()
    spec_name = spec["name"]
    err = _console(stderr=True)
    for w in warnings:  # what `validate` says, before the run (even with -q: it is about the input)
        _say(err, f"warning: {w}")
    out = _output_dir(Path(args.out) if args.out else Path("results") / spec_name, kind="run")
    _claim(out, "run", args.force)  # before the run: a refused folder costs no measurement
    progress = _LazyProgress(f"running {spec_name}", enabled=not args.quiet)
    try:
        result = runner.run(sc, progress=progress)
    finally:
        progress.close()
    _save_with_status(result, out, quiet=args.quiet, force=args.force)
    if not args.quiet:
        _print_consumers(console, result)
        console.print(f"results written to [bold]{_escape(str(out))}/[/bold]")
    return EXIT_OK


def _claim(out: Path, kind: str, force: bool, run: str | None = None) -> None:
    """An input error for an output folder ndncc may not write into (``ndncc.files``)."""
    from .files import FolderInUseError, claim

    try:
        claim(out, kind, force=force, run=run)
    except FolderInUseError as e:
        raise InputError(str(e)) from None


def _save_with_status(result, out: Path, quiet: bool, force: bool = False) -> None:
    """Writes the run's files and figures, with a spinner on stderr meanwhile (Parquet tables
    and figures of a long run take a while)."""
    from .files import FolderInUseError

    what = "tables and figures" if result.trace_options.get("figures", True) else "tables"
    status = None if quiet else _console(stderr=True).status(f"writing {what} into {out}/ …")
    try:
        with status or contextlib.nullcontext():
            result.save(out, force=force)
    except FolderInUseError as e:  # filled by someone else during the run
        raise InputError(str(e)) from None


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
            _say(console, f"warning: {w}")
        _say(
            console,
            f"{path}: OK — {len(spec['nodes'])} nodes, {len(spec['links'])} links, "
            f"{len(spec['routes'])} routes, {len(spec['apps'])} apps",
        )
    return status


def cmd_plot(args: argparse.Namespace) -> int:
    from .results import Result

    try:
        result = Result.load(args.run_dir)
    except (FileNotFoundError, ValueError) as e:
        raise InputError(str(e)) from e
    out = _output_dir(
        Path(args.out or args.run_dir), "--out" if args.out else "run directory", kind="run"
    )
    _claim(out, "figures", args.force, result.run_id)
    try:
        paths = result.plot(out, force=args.force)
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
    from .cli_campaign import EXIT_RUNS_FAILED, _jobs_and_dask, reproduce_all, run_reproduction
    from .cli_claims import check_flags, reproduce_unknowns

    check_flags(args)
    if args.unknowns:
        return reproduce_unknowns(args)
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
    out = _output_dir(
        Path(args.out) if args.out else Path("results") / args.paper, kind="reproduction"
    )
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
        rep = run_reproduction(args, args.paper, out, on_done, "error: ")
    finally:
        if bar is not None:
            bar.stop()
    if rep is None:
        return EXIT_RUNS_FAILED
    if not args.quiet:
        from .experiments.common import fmt, tally_text

        console.print(f"{rep.runs} runs in {rep.wall_s:.1f} s; {tally_text(rep.rows)}")
        for r in rep.rows:
            if r.within is False:
                ref = (
                    f"paper {fmt(r.paper)}"
                    if r.paper is not None
                    else f"expected {fmt(r.expected)}"
                )
                _say(
                    console,
                    f"  outside: {r.experiment} / {r.metric} / {r.condition}: {ref}, "
                    f"ours {fmt(r.ours)} ({r.tolerance})",
                )
        console.print(
            f"report: [bold]{_escape(str(rep.report))}[/bold]  "
            "(comparison.csv and figures beside it)"
        )
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    if getattr(args, "target", None) == "forwarder":
        from .cli_apps import cmd_bench_forwarder

        return cmd_bench_forwarder(args)
    from . import bench

    names = args.workload or list(bench.WORKLOADS)
    for n in names:
        try:
            bench.map_workload(n)
        except ValueError as e:
            raise InputError(str(e)) from None
    unknown = [n for n in names if not bench.known(n)]
    if unknown:
        raise InputError(
            f"unknown workload {unknown[0]!r}; known: {', '.join(bench.WORKLOADS)}, "
            f"generated sizes scale-N, scale-N-staggered, isp-N with N up to "
            f"{bench.MAX_GENERATED}, and claim maps map-PAPER-N"
        )
    if args.repeat is not None and not 1 <= args.repeat <= 100:
        raise InputError("--repeat must be between 1 and 100")
    if args.jobs is not None:
        if not 1 <= args.jobs <= 1024:
            raise InputError("--jobs must be between 1 and 1024")
        if not any(n.startswith("map-") for n in names):
            raise InputError("--jobs applies to claim-map workloads (--workload map-PAPER-N) only")
    results = {}
    console = _console(stderr=args.json)
    for name in names:
        if not args.json:
            console.print(f"running {name} …", markup=False)
        repeat = args.repeat or (1 if name.startswith("map-") else 3)
        results[name] = bench.measure(name, repeat=repeat, jobs=args.jobs)
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
    else:
        bench.print_table(_console(), results)
    return EXIT_OK


def cmd_schemes(args: argparse.Namespace) -> int:
    from . import schemes_doc

    if args.name is not None and args.name not in schemes_doc.names():
        raise InputError(f"unknown scheme {args.name!r}; known: {', '.join(schemes_doc.names())}")
    if args.json:
        print(json.dumps(schemes_doc.schema_of(args.name), indent=2))
    elif args.markdown:
        print(schemes_doc.markdown(), end="")
    else:
        schemes_doc.print_tables(_console(), args.name)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# parser


class _VersionAction(argparse.Action):
    """--version: the version looked up only when asked (importlib.metadata is slow to load)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from . import __version__

        parser.exit(message=f"ndncc {__version__}\n")


FORCE_HELP = (
    "write into an output folder that holds files ndncc did not write (files of the names "
    "ndncc writes are replaced, the others kept); without it such a folder is refused"
)


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
    r.add_argument("--force", action="store_true", help=FORCE_HELP)
    r.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing on success but the scenario's warnings",
    )
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
    pl.add_argument("--force", action="store_true", help=FORCE_HELP)
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
        "clock-fixes (seeds 000, 002, 003 together), chopcop (seed 001), sieve (seed 004)",
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
    from . import cli_claims

    cli_claims.add_flags(rp)
    rp.set_defaults(func=cmd_reproduce)
    cli_campaign.add_commands(sub)

    from . import cli_realtime

    cli_realtime.add_commands(sub)

    from . import cli_apps

    cli_apps.add_commands(sub)

    from . import cli_emulate

    cli_emulate.add_commands(sub)

    from . import cli_sdn

    cli_sdn.add_commands(sub)

    b = sub.add_parser(
        "bench",
        help="measure simulator speed on the standard workloads",
        description="Run the benchmark workloads (each in a fresh process) and report wall "
        "time, events, events/s, packet-hops/s and peak RSS. Claim-map workloads map-PAPER-N "
        "time `ndncc reproduce PAPER --unknowns --points N` (runs, evaluation, figures) in a "
        "temporary store removed afterwards; they are not simulator workloads and run only "
        "when named (--workload map-sieve-64).",
    )
    b.add_argument("--json", action="store_true", help="print one JSON object keyed by workload")
    b.add_argument(
        "--workload",
        action="append",
        metavar="NAME",
        help="run only this workload (repeatable): a standard one, or a generated size "
        "scale-N, scale-N-staggered (consumers start at random offsets) or isp-N, or a claim "
        "map map-PAPER-N (PAPER: toy, sieve, chopcop, mircc-clock, sf-clock; N design points; "
        "never run by default)",
    )
    b.add_argument(
        "--repeat",
        type=int,
        help="runs per workload; the fastest counts (default 3; 1 for a claim map)",
    )
    b.add_argument(
        "--jobs",
        type=int,
        metavar="J",
        help="claim maps only: local processes for the map's runs and figures, as "
        "`ndncc reproduce --jobs` (default one per core)",
    )
    cli_apps.add_bench_flags(b)
    b.set_defaults(func=cmd_bench)

    sc = sub.add_parser(
        "schemes",
        help="list the schemes and their parameters",
        description="Every registered scheme part (router parts, consumer controllers) with "
        "its parameters: values, default and meaning (the paper's symbol first).",
    )
    sc.add_argument("name", nargs="?", help="show only this scheme")
    sc.add_argument(
        "--json", action="store_true", help="the registry's schema as JSON (only NAME's parts)"
    )
    sc.add_argument(
        "--markdown", action="store_true", help="the Markdown of docs/schemes/parameters.md"
    )
    sc.set_defaults(func=cmd_schemes)
    return p


def main(argv: list[str] | None = None) -> int:
    from . import interrupt
    from .scenario import ScenarioError

    try:
        with interrupt.handled(command=argv is None):
            args = build_parser().parse_args(argv)
            return args.func(args)
    except ScenarioError as e:
        _error(str(e))
        return EXIT_INPUT
    except InputError as e:
        _error(f"error: {e}")
        return EXIT_INPUT
    except KeyboardInterrupt:
        interrupt.say_interrupted()
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
