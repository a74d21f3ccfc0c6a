"""``ndncc emulate SCENARIO``: the scenario's topology for real (one ``ndnccd`` per node,
real apps), then the ``sim-vs-real`` report beside the simulator's run of the same scenario.
Exit codes are the CLI's (:mod:`ndncc.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .cli_common import EXIT_OK, InputError, _console, _output_dir, _parse_set


def cmd_emulate(args: argparse.Namespace) -> int:
    from . import runner
    from .emulate import EmulateError
    from .emulate.collect import drops_text
    from .emulate.compare import compare, print_table
    from .emulate.run import emulate

    if not args.plot_bin > 0:  # checked before the run, not minutes later in the report
        raise InputError(f"--plot-bin {args.plot_bin}: must be > 0 s")
    overrides = {"overrides": _parse_set(args.set)} if args.set else {}
    sc = runner.load_scenario(args.scenario, seed=args.seed, duration=args.duration, **overrides)
    spec, _, _ = sc.resolved()
    out = Path(args.out) if args.out else Path("results") / f"{spec['name']}-emulate"
    _output_dir(out)  # a bad --out is the user's to fix, said before the run
    bin_s = None
    if args.bin:
        from .cli_apps import _duration_s

        bin_s = _duration_s(args.bin, "--bin")
    console = _console(stderr=True)
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    try:
        with Progress(
            TextColumn("[bold]emulating[/bold] {task.description}"),
            BarColumn(),
            TextColumn("{task.completed:.1f}/{task.total:.1f} s"),
            TimeRemainingColumn(),
            console=console,
            disable=args.quiet,
            transient=True,
        ) as bar:
            task = bar.add_task(spec["name"], total=spec["duration_ns"] / 1e9)
            summary = emulate(
                sc,
                out / "real",
                mode=args.mode,
                ndnccd=args.ndnccd,
                bin_s=bin_s,
                payload_as_is=args.payload_as_is,
                realtime=not args.no_realtime,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
        if not args.quiet:
            console.print(
                f"real run ({summary['mode']}: {summary['mode_reason']}) → {out / 'real'}",
                markup=False,
            )
            console.print(drops_text(summary), markup=False)
        if args.no_sim:
            return EXIT_OK
        if not args.quiet:
            console.print("running the simulator on the same scenario …", markup=False)
        table = compare(sc, summary, out, plot_bin_s=args.plot_bin)
    except EmulateError as e:
        raise InputError(str(e)) from None
    if not args.quiet:
        print_table(table, out)
    return EXIT_OK


def add_commands(sub) -> None:
    e = sub.add_parser(
        "emulate",
        help="run a scenario's topology for real: one ndnccd per node, real apps",
        description="One ndnccd per node (each in its own network namespace with veth links "
        "when root, else on loopback UDP ports), links emulated by ndnccd as the scenario "
        "says, the consumers and producers as real processes. Writes OUT/real/summary.json, "
        "OUT/real/app_series.parquet, then runs the simulator on the same scenario (OUT/sim) "
        "and writes OUT/sim-vs-real.{md,csv,png}.",
    )
    e.add_argument("scenario", help="scenario TOML file (see docs/scenario.md)")
    e.add_argument("--out", metavar="DIR", help="output directory (default results/<name>-emulate)")
    e.add_argument(
        "--mode",
        default="auto",
        choices=["auto", "netns", "loopback"],
        help="auto (default): namespaces when possible, else loopback",
    )
    e.add_argument("--seed", type=int, help="override [scenario] seed")
    e.add_argument("--duration", help="override [scenario] duration, e.g. 5s")
    e.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override any value by dotted path, e.g. --set apps[consumer].engine=tick",
    )
    e.add_argument("--bin", help="the real series' bin (default the scenario's [trace] bin)")
    e.add_argument(
        "--plot-bin", default=0.1, type=float, help="bin of the report's plot, s (default 0.1)"
    )
    e.add_argument(
        "--payload-as-is",
        action="store_true",
        help="Data carry the scenario's payload as Content (default: each Data's wire size is "
        "the scenario's Data size, payload + data_overhead)",
    )
    e.add_argument(
        "--no-realtime",
        action="store_true",
        help="run the daemons and apps with the default CPU scheduling (default as root: "
        "SCHED_FIFO, so that other work on the machine does not stall them)",
    )
    e.add_argument("--ndnccd", metavar="PATH", help="the ndnccd binary (default: built one)")
    e.add_argument("--no-sim", action="store_true", help="skip the simulator and the report")
    e.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    e.set_defaults(func=cmd_emulate)
