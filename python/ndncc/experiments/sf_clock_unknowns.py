"""Seed 002's unknowns (the claim map, ``docs/unknowns.md``): how the emulation releases the
Interests a coarse tick owes is not stated (``docs/schemes/sf.md``, "Where we differ"). What
of it the simulator exposes as keys: the phase of the buckets' leak events against the ticks
(``leak_randomize``: the first leak drawn in [0, this)) and ndnSIM 1.0's leak spacing factor
(``leak_slack``). The release rule itself (everything owed at a tick, or up to the first
refusal) is not a key today, so the map cannot vary it."""

from __future__ import annotations

from ..claims.unknowns import Declaration, Unknown
from . import sf_clock


def declaration() -> Declaration:
    return Declaration(
        sf_clock.PAPER,
        [
            Unknown(
                "leak phase range",
                ("defaults.node.schemes.sf.leak_randomize",),
                1.0,
                "not printed",
                lo=0.01,
                hi=20.0,
                scale="log",
                unit="ms",
                note="the first leak of each bucket is drawn in [0, this): the phase of the "
                "leak events against the consumers' ticks",
            ),
            Unknown(
                "leak slack",
                ("defaults.node.schemes.sf.leak_slack",),
                1.001,
                "not printed",
                lo=1.0,
                hi=1.02,
                note="a bucket leaks every slack / r_f seconds (ndnSIM 1.0: 1.001)",
            ),
        ],
        notes="The release rule at a tick (everything owed, or up to the first refusal) is "
        "not a scenario key: not mapped.",
    )
