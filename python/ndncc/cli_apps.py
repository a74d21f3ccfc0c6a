"""The real-time apps and the forwarder benchmark of the CLI: ``ndncc consumer``, ``ndncc
producer`` (the simulator's consumer and producer, any controller and sending engine, talking
the NDN wire format to a forwarder) and ``ndncc bench forwarder``. Exit codes are the CLI's
(:mod:`ndncc.cli`)."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from .cli_common import EXIT_OK, InputError, _console

DEFAULT_TRANSPORT = "unix:///run/nfd/nfd.sock"


def _value(text: str):
    """A KEY=VALUE value: a TOML value when it parses as one (100, 1.5, true, "x"), else the
    text itself (icp, 10ms, 1000B)."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def app_spec(kind: str, prefix: str, pairs: list[str]) -> tuple[dict, dict]:
    """The resolved spec of one ``[[apps]]`` table built from the command line: (the app's
    body as crates/sim/src/spec.rs reads it, the [packets] sizes). Every mistake is reported
    the way a scenario file's are."""
    from .scenario import Scenario
    from .scenario.convert import _prefix
    from .scenario.errors import _Bad

    try:  # once, for the flag: the scenario below would report it for its two apps
        _prefix(prefix)
    except _Bad as bad:
        raise InputError(f"--prefix {prefix!r}: {bad.problem} (fix: {bad.fix})") from None
    table: dict = {"name": kind, "node": "app", "kind": kind, "prefix": prefix}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"'{pair}': app settings are KEY=VALUE, e.g. controller=icp")
        key = key.strip()
        if key in ("name", "node", "kind", "prefix", "start", "stop"):
            raise InputError(f"'{key}' is set by the command, not as KEY=VALUE")
        table[key] = _value(value.strip())
    data = {
        "scenario": {"name": f"rt-{kind}", "duration": "1s"},
        "defaults": {"link": {"bandwidth": "1Gbps", "delay": "1ms"}},
        "links": [{"between": ["app", "forwarder"]}],
        "apps": [table],
    }
    if kind == "consumer":  # the scenario checks that someone serves the prefix
        data["apps"].append(
            {"name": "peer", "node": "forwarder", "kind": "producer", "prefix": prefix}
        )
    spec = Scenario.from_dict(data, source="<command line>").resolve()
    return spec["apps"][0]["app"], spec["packets"]


def _duration_s(text: str | None, flag: str = "--duration") -> float | None:
    if text is None:
        return None
    from .units import UnitError, parse_time

    try:
        ns = parse_time(text)
    except UnitError as e:
        raise InputError(f"{flag}: {e}") from None
    if ns <= 0:
        raise InputError(f"{flag} must be positive")
    return ns / 1e9


def _native_call(fn, *args, **kw) -> dict:
    """Calls an app of the native module; its errors (no forwarder, registration refused,
    a lost connection) are the user's to fix: one line, exit code 3."""
    try:
        return json.loads(fn(*args, **kw))
    except (RuntimeError, ValueError) as e:
        raise InputError(str(e)) from None


def _print_report(args: argparse.Namespace, title: str, report: dict) -> None:
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return
    console = _console()
    console.print(f"[bold]{title}[/bold]")
    for k, v in report.items():
        if isinstance(v, float):
            v = f"{v:.6g}"
        console.print(f"  {k:<20} {v}", markup=False)


def _spec_of(kind: str, args: argparse.Namespace) -> tuple[dict, dict, str]:
    """(app body, [packets] sizes, prefix) from --spec FILE or from --prefix and KEY=VALUE."""
    if args.spec is None:
        if not args.prefix:
            raise InputError("--prefix is required (or --spec FILE)")
        body, packets = app_spec(kind, args.prefix, args.settings)
        body.pop("kind", None)
        return body, packets, args.prefix
    if args.settings or args.prefix:
        raise InputError("--spec FILE replaces --prefix and KEY=VALUE settings; give one")
    try:
        data = json.loads(Path(args.spec).read_text(encoding="utf-8"))
        body, packets = data["app"], data["packets"]
        if body.get("kind") != kind:
            raise InputError(f"--spec {args.spec}: not a {kind} (kind {body.get('kind')!r})")
        body = {k: v for k, v in body.items() if k != "kind"}
        return body, packets, body["prefix"]
    except OSError as e:
        raise InputError(f"--spec {args.spec}: {e.strerror}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError(
            f"--spec {args.spec}: not a resolved app spec "
            f'({{"app": {{...}}, "packets": {{...}}}}): {e}'
        ) from None


def cmd_consumer(args: argparse.Namespace) -> int:
    from . import _core

    # every flag is checked before the forwarder is reached
    if not 0 <= args.seed < 2**64:
        raise InputError(f"--seed {args.seed}: a seed is a whole number from 0 to {2**64 - 1}")
    duration = _duration_s(args.duration)
    stop = _duration_s(args.stop, "--stop")
    bin_s = _duration_s(args.bin, "--bin")
    if stop is not None and duration is not None and stop >= duration:
        raise InputError(
            f"--stop {args.stop} is not before --duration {args.duration}: the consumer would "
            "send until the end (give a --stop shorter than --duration, or leave it out)"
        )
    body, packets, prefix = _spec_of("consumer", args)
    if args.start_at is not None:
        if not 0 < args.start_at < 1e11:
            raise InputError(f"--start-at {args.start_at}: a Unix time in seconds")
        time.sleep(max(0.0, args.start_at - time.time()))
    started = time.time()  # when it starts sending (Unix s): emulate's start skew
    report = _native_call(
        _core.rt_consumer,
        args.forwarder,
        json.dumps(body),
        interest_size=packets["interest_size"],
        duration_s=duration,
        seed=args.seed,
        stop_s=stop,
        bin_s=bin_s,
        chunk_requests=args.chunk_requests,
    )
    report["started_unix_s"] = started
    _print_report(args, f"consumer {prefix} via {args.forwarder}", report)
    return EXIT_OK


def cmd_producer(args: argparse.Namespace) -> int:
    from . import _core

    body, packets, prefix = _spec_of("producer", args)
    if args.data_wire_size is not None and not 0 < args.data_wire_size < 2**32:
        raise InputError(
            f"--data-wire-size {args.data_wire_size}: a Data size in bytes, from 1 to {2**32 - 1}"
        )
    report = _native_call(
        _core.rt_producer,
        args.forwarder,
        json.dumps(body),
        data_overhead=packets["data_overhead"],
        duration_s=_duration_s(args.duration),
        register=not args.no_register,
        ready_path=args.ready_file,
        data_wire_size=args.data_wire_size,
    )
    _print_report(args, f"producer {prefix} via {args.forwarder}", report)
    return EXIT_OK


def _add_app_flags(p: argparse.ArgumentParser, example: str) -> None:
    p.add_argument(
        "--forwarder",
        metavar="URI",
        default=os.environ.get("NDN_CLIENT_TRANSPORT", DEFAULT_TRANSPORT),
        help="unix:///path, tcp://host:port or udp://host:port (default: "
        f"$NDN_CLIENT_TRANSPORT, else {DEFAULT_TRANSPORT})",
    )
    p.add_argument("--prefix", help="NDN name prefix, e.g. /ndncc/flow1 (required without --spec)")
    p.add_argument(
        "--spec",
        metavar="FILE",
        help='a resolved app as JSON, {"app": {...}, "packets": {...}} (what ndncc emulate '
        "writes), instead of --prefix and KEY=VALUE",
    )
    p.add_argument("--duration", help="stop after this long, e.g. 10s (default: until done)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "settings",
        nargs="*",
        metavar="KEY=VALUE",
        help=f"the scenario's [[apps]] keys (docs/scenario.md), e.g. {example}",
    )


def add_commands(sub) -> None:
    c = sub.add_parser(
        "consumer",
        help="fetch Data through a real forwarder with any controller and sending engine",
        description="The simulator's consumer on the OS clock: asks <prefix>/seq=N through the "
        "forwarder, with Nonces drawn from the OS (--seed seeds the controller and engine, not "
        "the Nonces). Settings are a scenario's [[apps]] consumer keys (controller=..., "
        "engine=..., max_seq=...). Without --duration and max_seq it runs until Ctrl-C.",
    )
    _add_app_flags(c, "controller=constant-rate rate=500 engine=rmc, or controller=icp")
    c.add_argument(
        "--seed", type=int, default=1, help="seed of its random streams (not of its Nonces)"
    )
    c.add_argument(
        "--start-at",
        type=float,
        metavar="UNIX_S",
        help="wait until this Unix time (s) before sending (several consumers started "
        "together; its report's started_unix_s says when it did)",
    )
    c.add_argument(
        "--stop", help="stop sending then (e.g. 10s) and keep receiving until --duration"
    )
    c.add_argument("--bin", help="record a per-bin series of this width (e.g. 100ms)")
    c.add_argument(
        "--chunk-requests",
        choices=["names", "lp"],
        default="names",
        help="chunked consumers (chunk_segments=N): 'names' asks each segment as its own "
        "Interest <prefix>/seg=chunk*N+offset, which any forwarder carries (default); 'lp' "
        "asks a whole chunk with one Interest in this project's LpPacket header, which only "
        "ndnccd carries (the simulator's one Interest per chunk)",
    )
    c.set_defaults(func=cmd_consumer)
    p = sub.add_parser(
        "producer",
        help="answer Interests from a real forwarder (registers its prefix)",
        description="The simulator's producer on the OS clock: registers <prefix> with "
        "rib/register and answers <prefix>/seq=N (or seg=N) with payload bytes of Content, "
        "echoing the forwarder's PitToken. Settings are a scenario's [[apps]] producer keys "
        "(payload=1000B, processing_delay=1ms, ...).",
    )
    _add_app_flags(p, "payload=1000B processing_delay=1ms")
    p.add_argument(
        "--no-register", action="store_true", help="do not send rib/register (a route exists)"
    )
    p.add_argument(
        "--ready-file",
        metavar="PATH",
        help="write this file once the prefix is registered (for supervisors)",
    )
    p.add_argument(
        "--data-wire-size",
        type=int,
        metavar="BYTES",
        help="make every Data TLV this many bytes (Content resized) instead of payload bytes "
        "of Content: a scenario's modelled Data size on the wire",
    )
    p.set_defaults(func=cmd_producer)


# ---- bench forwarder ------------------------------------------------------------------------


def add_bench_flags(b: argparse.ArgumentParser) -> None:
    """Flags of ``ndncc bench forwarder`` (on the ``bench`` parser)."""
    b.add_argument(
        "target",
        nargs="?",
        choices=["forwarder"],
        help="'forwarder': Interest/Data exchanges per second through one forwarder "
        "(default: the simulator workloads)",
    )
    b.add_argument(
        "--forwarder",
        action="append",
        metavar="NAME",
        help="forwarder under test: ndnd or ndnccd (repeatable; default ndnd)",
    )
    b.add_argument(
        "--faces",
        default="unix,udp",
        help="face kinds to measure, comma separated: unix, tcp, udp (default unix,udp)",
    )
    b.add_argument("--window", type=int, default=64, help="Interests outstanding (default 64)")
    b.add_argument("--payload", type=int, default=1000, help="Content bytes per Data")
    b.add_argument("--duration", default="5s", help="measured time per run (default 5s)")
    b.add_argument("--warmup", default="1s", help="unmeasured time before (default 1s)")
    b.add_argument("--threads", type=int, default=1, help="forwarding threads of ndnd")


def cmd_bench_forwarder(args: argparse.Namespace) -> int:
    from . import _core, interop

    names = args.forwarder or ["ndnd"]
    for n in names:
        if n not in interop.FORWARDERS:
            raise InputError(f"unknown forwarder {n!r}; known: {', '.join(interop.FORWARDERS)}")
    faces = [f.strip() for f in args.faces.split(",") if f.strip()]
    for f in faces:
        if f not in ("unix", "tcp", "udp"):
            raise InputError(f"--faces: unknown face kind {f!r} (unix, tcp, udp)")
    if not 1 <= args.window <= 100_000:
        raise InputError("--window must be 1 to 100000")
    if not 0 <= args.payload <= 8000:
        raise InputError("--payload must be 0 to 8000 bytes")
    if not 1 <= args.threads <= 64:
        raise InputError("--threads must be 1 to 64")
    duration = _duration_s(args.duration)
    warmup = _duration_s(args.warmup) if args.warmup not in ("0", "0s") else 0.0
    console = _console(stderr=args.json)
    results: dict = {}
    for name in names:
        try:
            fw = interop.start(name, threads=args.threads)
        except interop.ForwarderUnavailable as e:
            results[name] = {"available": False, "reason": str(e)}
            console.print(f"{name}: not available — {e}", markup=False)
            continue
        with fw:
            runs = {}
            for kind in faces:
                ep = fw.endpoint(kind)
                if not args.json:
                    console.print(f"{name} over {kind}: {ep} …", markup=False)
                r = _native_call(
                    _core.fw_bench,
                    ep,
                    ep,
                    f"/ndncc-bench/{kind}/{os.getpid()}-{time.monotonic_ns()}",
                    args.window,
                    args.payload,
                    duration,
                    warmup_s=warmup,
                )
                r["alive_after"] = fw.alive()
                runs[kind] = r
            results[name] = {"available": True, "threads": args.threads, "runs": runs}
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
    else:
        _print_bench_table(results, args)
    if not any(r.get("available") for r in results.values()):
        raise InputError("no forwarder under test is available")
    return EXIT_OK


def _print_bench_table(results: dict, args: argparse.Namespace) -> None:
    from rich.table import Table

    t = Table(
        title=f"forwarder benchmark: window {args.window}, payload {args.payload} B, "
        f"{args.duration} measured"
    )
    for col in (
        "forwarder",
        "faces",
        "exchanges/s",
        "Mbit/s (wire)",
        "Mbit/s (payload)",
        "mean RTT µs",
        "timeouts",
    ):
        t.add_column(col, justify="right" if col not in ("forwarder", "faces") else "left")
    for name, res in results.items():
        if not res.get("available"):
            t.add_row(name, "—", "not available", "", "", "", "")
            continue
        for kind, r in res["runs"].items():
            t.add_row(
                name,
                kind,
                f"{r['exchanges_per_s']:,.0f}",
                f"{r['wire_mbps']:.1f}",
                f"{r['payload_mbps']:.1f}",
                f"{r['mean_rtt_us']:.0f}",
                str(r["timeouts"]),
            )
    _console().print(t)
