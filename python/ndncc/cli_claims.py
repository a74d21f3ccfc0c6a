"""``ndncc reproduce PAPER --unknowns``: a paper's claim map (``docs/unknowns.md``)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from .cli_campaign import EXIT_RUNS_FAILED, SweepBar, _jobs_and_dask
from .cli_common import EXIT_OK, InputError, _console, _output_dir, _say

MAX_POINTS = 100_000
MAX_SEEDS = 1_000


def add_flags(p: argparse.ArgumentParser) -> None:
    """--unknowns and the flags of a map (on ``ndncc reproduce``)."""
    p.add_argument(
        "--unknowns",
        action="store_true",
        help="map the paper's claims over the inputs it leaves unknown: claims.csv, a figure "
        "per claim and claims.md in OUT/claims/ (docs/unknowns.md)",
    )
    p.add_argument(
        "--points",
        type=int,
        metavar="N",
        help="--unknowns: design points (Latin hypercube; the full grid when all unknowns are "
        "finite sets with at most N combinations); default 32",
    )
    p.add_argument("--seeds", type=int, metavar="K", help="--unknowns: seeds per point (default 1)")
    p.add_argument(
        "--design-seed",
        type=int,
        metavar="S",
        help="--unknowns: the seed of the Latin hypercube (default 0)",
    )
    p.add_argument(
        "--no-claim-figures",
        action="store_true",
        help="--unknowns: write claims.csv and claims.md without the figure per claim",
    )


def check_flags(args: argparse.Namespace) -> None:
    """Map-only flags without --unknowns are an input error."""
    if args.unknowns:
        return
    for flag in ("points", "seeds", "design_seed"):
        if getattr(args, flag, None) is not None:
            raise InputError(f"--{flag.replace('_', '-')} applies to --unknowns only")
    if getattr(args, "no_claim_figures", False):
        raise InputError("--no-claim-figures applies to --unknowns only")


def reproduce_unknowns(args: argparse.Namespace) -> int:
    from .backends import BackendError
    from .claims.claimmap import write_claim_map
    from .claims.declared import declaration, paper_module, papers
    from .claims.runmap import run_map
    from .store import StoreError

    if args.all:
        raise InputError("--unknowns maps one paper at a time (name it, without --all)")
    if args.paper is None:
        raise InputError(f"name a paper to map ({', '.join(papers())})")
    _jobs_and_dask(args)
    try:
        decl = declaration(args.paper)
    except KeyError:
        raise InputError(
            f"{args.paper!r} declares no unknowns; papers with a claim map: {', '.join(papers())}"
        ) from None
    points = 32 if args.points is None else args.points
    seeds = 1 if args.seeds is None else args.seeds
    if not 1 <= points <= MAX_POINTS:
        raise InputError(f"--points must be between 1 and {MAX_POINTS}")
    if not 1 <= seeds <= MAX_SEEDS:
        raise InputError(f"--seeds must be between 1 and {MAX_SEEDS}")
    design_seed = 0 if args.design_seed is None else args.design_seed
    if design_seed < 0:
        raise InputError("--design-seed must be ≥ 0")
    out = _output_dir(Path(args.out) if args.out else Path("results") / args.paper)
    console = _console()
    bars = {
        "runs": SweepBar(f"map {args.paper}: runs", enabled=not args.quiet),
        "evaluation": SweepBar(f"map {args.paper}: evaluation", enabled=not args.quiet),
    }

    def progress(stage: str, p) -> None:
        if stage == "evaluation":
            bars["runs"].close()
        bars[stage](p)

    started = time.perf_counter()
    try:
        m = run_map(
            paper_module(args.paper),
            decl,
            out,
            points=points,
            seeds=seeds,
            design_seed=design_seed,
            quick=args.quick,
            n_jobs=args.jobs,
            dask=args.dask,
            mix_commits=args.mix_commits,
            fresh=args.fresh,
            on_progress=progress,
        )
    except (StoreError, BackendError) as e:
        raise InputError(str(e)) from e
    finally:
        for b in bars.values():
            b.close()
    cm = write_claim_map(m, figures=not args.no_claim_figures, n_jobs=args.jobs)
    if not args.quiet:
        c = cm.counts
        _say(
            console,
            f"{len(m.points) - 1} points × {seeds} seeds: {m.runs} runs ({m.runs_done_now} run "
            f"now), {m.evaluated_now} evaluations now, {time.perf_counter() - started:.1f} s; "
            f"{c['claims']} claims: {c['at_default']} hold at our default, {c['somewhere']} "
            f"somewhere in the region, {c['nowhere']} nowhere",
        )
        _say(console, f"claim map: {cm.markdown} (claims.csv and figures beside it)")
    if m.errors:
        from .cli_common import _error

        why = "some of their runs failed" if m.failed_runs else "the comparison raised there"
        _error(f"{len(m.errors)} (point, seed) pairs not evaluated ({why}); see {cm.markdown}")
    # failed runs are retried by the next call; a comparison that raises is a result
    return EXIT_RUNS_FAILED if m.failed_runs else EXIT_OK
