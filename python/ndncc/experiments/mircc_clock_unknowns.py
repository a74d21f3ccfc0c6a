"""Seed 000's unknowns (the claim map, ``docs/unknowns.md``): MIRCC's gains α (of the excess
rate) and β (of the queue term) are not printed in the seed; every router of every run uses
them."""

from __future__ import annotations

from ..claims.unknowns import Constraint, Declaration, Unknown
from . import mircc_clock


def declaration() -> Declaration:
    return Declaration(
        mircc_clock.PAPER,
        [
            Unknown(
                "α",
                ("defaults.node.schemes.mircc.alpha",),
                0.5,
                "not printed",
                lo=0.1,
                hi=1.0,
                note="gain of the excess rate, every MIRCC router (RCP's range: 0.1–1)",
            ),
            Unknown(
                "β",
                ("defaults.node.schemes.mircc.beta",),
                1.0,
                "not printed",
                lo=0.1,
                hi=2.0,
                note="gain of the queue term, every MIRCC router",
            ),
        ],
        [Constraint("η, the target utilisation, is 1", "seed 000 §III")],
    )
