"""``ndncc sdn-controller CONFIG.toml``: the SDN controller as its own process — the
``ndnccd`` binary's ``sdn-controller`` mode, which runs the scenario's controller component
(ndnSieve's) on the OS clock for the routers' ndnccd (``docs/sdn-control-protocol.md``).
This command finds the binary and becomes it (exec), so signals and the exit code are its own.
Exit codes are the CLI's (:mod:`ndncc.cli`) when the binary cannot be found."""

from __future__ import annotations

import argparse
import os

from .cli_common import InputError


def cmd_sdn_controller(args: argparse.Namespace) -> int:
    from .emulate import EmulateError
    from .emulate.run import find_ndnccd

    try:
        binary = find_ndnccd(args.ndnccd)
    except EmulateError as e:
        raise InputError(str(e)) from None
    argv = [str(binary), "sdn-controller", args.config]
    os.execv(argv[0], argv)
    return 0  # not reached


def add_commands(sub) -> None:
    c = sub.add_parser(
        "sdn-controller",
        help="run an SDN controller (ndnSieve's) for ndnccd routers over real sockets",
        description="The SDN controller as its own process: reads CONFIG.toml (nodes, [listen] "
        "unix/tcp, [component.<name>] in a scenario's units), learns the topology from the "
        "routers' HELLOs, runs the same controller component as the simulator. Stops on "
        "SIGINT/SIGTERM and prints its counters (docs/sdn-control-protocol.md).",
    )
    c.add_argument("config", help="controller configuration TOML")
    c.add_argument("--ndnccd", metavar="PATH", help="the ndnccd binary (default: built one)")
    c.set_defaults(func=cmd_sdn_controller)
