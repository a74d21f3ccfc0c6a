"""The campaign commands of the CLI: ``ndncc sweep``, ``ndncc report``, ``ndncc reproduce --all``
and the flags ``reproduce`` shares with ``sweep`` (``--dask``, ``--mix-commits``, ``--fresh``).
Exit codes are the CLI's (:mod:`ndncc.cli`), plus 4 when some runs failed."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .cli_common import EXIT_INPUT, EXIT_OK, InputError, _console, _error, _output_dir

EXIT_RUNS_FAILED = 4
#: off a terminal (a batch job's log), a progress line this often
LOG_EVERY_S = 30.0


def fmt_eta(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class SweepBar:
    """A progress bar: runs done / failed / remaining and the ETA (see campaign.eta_seconds);
    off a terminal, one plain line every LOG_EVERY_S instead."""

    def __init__(self, label: str, enabled: bool = True):
        self.label = label
        self.enabled = enabled
        self.bar = None
        self.task = None
        self.tty = sys.stderr.isatty()
        self.last_line = time.monotonic()

    def __call__(self, p) -> None:
        if not self.enabled:
            return
        fields = {
            "done": p.done + p.skipped,
            "failed": p.failed,
            "left": p.remaining,
            "eta": fmt_eta(p.eta_s),
        }
        if not self.tty:
            if time.monotonic() - self.last_line >= LOG_EVERY_S:
                self.last_line = time.monotonic()
                print(
                    f"{self.label}: {fields['done']}/{p.total} done, {p.failed} failed, "
                    f"{p.remaining} remaining, ETA {fields['eta']}",
                    file=sys.stderr,
                    flush=True,
                )
            return
        if self.bar is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn(
                    "{task.fields[done]} done · {task.fields[failed]} failed · "
                    "{task.fields[left]} remaining"
                ),
                TextColumn("ETA {task.fields[eta]}"),
                TimeElapsedColumn(),
                console=_console(stderr=True),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=p.total, **fields)
        self.bar.update(self.task, total=p.total, completed=p.done + p.skipped + p.failed, **fields)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _jobs_and_dask(args) -> None:
    from .backends import BackendError, check_dask_address

    if args.jobs is not None and not 1 <= args.jobs <= 1024:
        raise InputError("--jobs must be between 1 and 1024")
    if args.dask is not None:
        try:
            args.dask = check_dask_address(args.dask)
        except BackendError as e:
            raise InputError(str(e)) from e
        if args.dask != "local" and args.jobs is not None:
            raise InputError(
                "--jobs applies to the local pool and --dask local; a Dask cluster runs as "
                "many runs at once as it has worker threads"
            )


def cmd_sweep(args: argparse.Namespace) -> int:
    from .backends import BackendError
    from .campaign import run_sweep
    from .files import collected
    from .store import StoreError
    from .sweepspec import SweepSpec, metric_problem, parse_ci_target

    _jobs_and_dask(args)
    try:
        targets = [parse_ci_target(t) for t in args.until_ci or []]
    except ValueError as e:
        raise InputError(f"--until-ci {e}") from e
    for t in targets:
        problem = metric_problem(t.metric)
        if problem is not None:
            raise InputError(f"--until-ci {t}: {problem[0]} (fix: {problem[1]})")
    if args.max_seeds is not None and not 2 <= args.max_seeds <= 100_000:
        raise InputError("--max-seeds must be between 2 and 100000")
    spec = SweepSpec.load(args.spec)
    out = _output_dir(Path(args.out) if args.out else Path("results") / spec.name, kind="sweep")
    console = _console()
    bar = SweepBar(f"sweep {spec.name}", enabled=not args.quiet)
    started = time.perf_counter()
    try:
        with collected() as repaired:
            res = run_sweep(
                spec,
                out,
                jobs=args.jobs,
                dask=args.dask,
                mix_commits=args.mix_commits,
                fresh=args.fresh,
                until_ci=targets or None,
                max_seeds=args.max_seeds,
                on_progress=bar,
            )
    except (StoreError, BackendError) as e:
        raise InputError(str(e)) from e
    finally:
        bar.close()
        _say_repairs(repaired)
    p = res.progress
    failures = res.failures
    if not args.quiet:
        console.print(
            f"{p.total} runs in {time.perf_counter() - started:.1f} s: {p.done} run now, "
            f"{p.skipped} already in {out}, {len(failures)} failed",
            markup=False,
        )
        for u in res.unmet:
            console.print(
                f"  CI not reached with {u['n']} repetitions: {u['params']} "
                f"({u['target']}: mean {u['mean']:.6g} ± {u['half_width']:.3g})",
                markup=False,
            )
        console.print(
            f"index: {out / 'index.parquet'} (ndncc.load_sweep); report: ndncc report {out}",
            markup=False,
        )
    for f in failures[:5]:
        _error(f"failed: {f.get('params') or f.get('label')} seed {f.get('seed')}: {f['error']}")
    if failures:
        _error(
            f"{len(failures)} runs failed; their errors are in {out / 'failed'}/ (re-run to retry)"
        )
        return EXIT_RUNS_FAILED
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .files import collected
    from .report import write_report

    src = Path(args.dir)
    if not src.is_dir():
        raise InputError(f"{src}: not a directory (give a sweep's or a reproduction's --out)")
    with collected() as damaged:
        try:
            path = write_report(src, Path(args.out) if args.out else None)
        except (FileNotFoundError, ValueError) as e:
            raise InputError(str(e)) from e
        except OSError as e:
            raise InputError(f"cannot write the report ({e.strerror or e})") from e
    for text in damaged:
        _error(f"damaged: {text}")
    _console().print(f"report: {path}", markup=False)
    if damaged:
        _error(f"{len(damaged)} damaged files: the report names them where they would be")
        return EXIT_INPUT
    return EXIT_OK


def _say_repairs(texts: list[str]) -> None:
    """Damaged stored files a sweep or a reproduction found (and recomputed, or rewrote)."""
    for text in texts:
        _error(f"warning: {text}")


def run_reproduction(args: argparse.Namespace, paper: str, out: Path, on_done, prefix: str):
    """One paper's reproduction with the CLI's flags (``--quick``, ``--jobs``, ``--dask``,
    ``--mix-commits``, ``--fresh``); a store or backend problem is an input error; when runs
    failed, says so (after `prefix`) and returns None."""
    from . import experiments
    from .backends import BackendError
    from .campaign import CampaignError
    from .files import collected
    from .store import StoreError

    repaired: list[str] = []
    try:
        with collected() as repaired:
            return experiments.reproduce(
                paper,
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
        _error(f"{prefix}{e}")
        return None
    finally:
        _say_repairs([f"{prefix}{t}" if prefix != "error: " else t for t in repaired])


def reproduce_all(args: argparse.Namespace) -> int:
    """``ndncc reproduce --all``: every paper into OUT/<paper>, one OUT/report.html."""
    from . import experiments
    from .experiments.common import tally_text
    from .files import collected
    from .report import write_report

    _jobs_and_dask(args)
    out = _output_dir(Path(args.out) if args.out else Path("results"), kind="reproductions")
    console = _console()
    status = EXIT_OK
    for paper in experiments.PAPERS:
        bar = SweepBar(f"reproducing {paper}", enabled=not args.quiet)

        def on_done(_o, done: int, total: int, bar=bar) -> None:
            from .campaign import Progress

            bar(Progress(total=total, done=done))

        try:
            folder = _output_dir(out / paper, kind="reproduction")
            rep = run_reproduction(args, paper, folder, on_done, f"{paper}: ")
        finally:
            bar.close()
        if rep is None:
            status = EXIT_RUNS_FAILED
            continue
        if not args.quiet:
            console.print(
                f"{paper}: {rep.runs} runs in {rep.wall_s:.1f} s; {tally_text(rep.rows)}",
                markup=False,
            )
    with collected() as damaged:
        path = write_report(out)
    for text in damaged:
        _error(f"damaged: {text}")
    if not args.quiet:
        console.print(f"report: {path}", markup=False)
    return status if status != EXIT_OK or not damaged else EXIT_INPUT


def add_campaign_flags(p: argparse.ArgumentParser) -> None:
    """--dask, --mix-commits, --fresh (sweep and reproduce)."""
    p.add_argument(
        "--dask",
        metavar="ADDRESS|local",
        help="run on a Dask cluster: a scheduler address (tcp://host:8786), a scheduler file "
        "(*.json), or 'local' for a LocalCluster on this machine",
    )
    p.add_argument(
        "--mix-commits",
        action="store_true",
        help="add to a result store that holds runs of another ndncc commit",
    )
    p.add_argument(
        "--fresh", action="store_true", help="discard the runs already in the result store"
    )


def add_commands(sub) -> None:
    s = sub.add_parser(
        "sweep",
        help="run a grid of scenarios over seeds into a resumable result store",
        description="Run every point of a sweep spec (a base scenario, a grid of overrides, "
        "seeds and runs; see docs/sweeps.md) that the result store does not hold yet, on a "
        "local process pool or a Dask cluster.",
        epilog="Exit codes: 0 ok, 2 usage error, 3 invalid input, 4 some runs failed (the "
        "others are saved; run again to retry them), 130 interrupted.",
    )
    s.add_argument("spec", metavar="SPEC", help="sweep spec TOML file")
    s.add_argument("--out", metavar="DIR", help="result store (default results/<sweep name>)")
    s.add_argument("--jobs", type=int, metavar="N", help="parallel runs (default: one per core)")
    add_campaign_flags(s)
    s.add_argument(
        "--until-ci",
        action="append",
        metavar="METRIC=WIDTH",
        help="add seeds until the 95%% Student-t half-width of METRIC at every point is at "
        "most WIDTH (absolute, e.g. throughput_mbps=0.5) or WIDTH%% of the mean (e.g. "
        "throughput_mbps=5%%); repeatable",
    )
    s.add_argument(
        "--max-seeds",
        type=int,
        metavar="N",
        help="--until-ci stops at N seeds a point (default: the spec's until_ci.max_seeds, 50)",
    )
    s.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    s.set_defaults(func=cmd_sweep)

    r = sub.add_parser(
        "report",
        help="one self-contained HTML page for a sweep or a reproduction",
        description="Write DIR/report.html: tables, figures with 95%% confidence bands over "
        "seeds, and for reproductions the paper-vs-ours tables, all in one file.",
    )
    r.add_argument("dir", metavar="DIR", help="a sweep's or a reproduction's output directory")
    r.add_argument("--out", metavar="FILE", help="where to write it (default DIR/report.html)")
    r.set_defaults(func=cmd_report)
