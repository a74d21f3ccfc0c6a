"""A toy reproduction whose claim map is known in closed form (the claim-map tests and the
example of ``docs/unknowns.md``).

One consumer asks at a constant rate r (Interests/s) over one fast link for 1 000 B Data, so
its Data throughput is r × 8 000 bit/s (less the few Interests still in flight at the end). The
"paper" claims a throughput of at least :data:`CLAIM_MBPS`; r is unknown, uniform on
[:data:`RATE_LO`, :data:`RATE_HI`] on a linear scale, so the claim holds on the share
(RATE_HI − CLAIM_MBPS / 0.008) / (RATE_HI − RATE_LO) of the region. The link's queue is a
second unknown the claim does not depend on.
"""

from __future__ import annotations

from pathlib import Path

from ..experiments.common import Row
from ..sweep import Job
from .unknowns import Constraint, Declaration, Unknown

PAPER = "toy"
TITLE = "A toy reproduction for claim maps"
SCENARIO = Path(__file__).with_name("toy_one_link.toml")
RATE_LO, RATE_HI = 500.0, 1500.0  # Interests/s
CLAIM_MBPS = 8.0
DURATION = "4s"


def jobs(quick: bool) -> list[Job]:
    return [Job("one link", str(SCENARIO), {"scenario.duration": DURATION})]


def throughput(o) -> float:
    return float(o.summary["apps"][0]["throughput_mbps"])


def compare(res: dict, quick: bool) -> list[Row]:
    ours = throughput(res["one link"])
    return [
        Row(
            "toy",
            "Data throughput",
            "one link",
            f"≥ {CLAIM_MBPS:g}",
            ours,
            "Mbit/s",
            f"≥ {CLAIM_MBPS:g}",
            ours >= CLAIM_MBPS,
        ),
        Row("toy", "Interests sent", "one link", None, 0, "", "reported", None),
    ]


def compare_asked(res: dict, quick: bool) -> list[Row]:
    """The toy's rows and the rate the run was asked for, read from its outcome's overrides (a
    comparison reads a run's parameters there, at every point of a map)."""
    asked = res["one link"].overrides.get("apps[c].rate")
    return [
        *compare(res, quick),
        Row("toy", "rate asked", "one link", None, asked, "Interests/s", "reported", None),
    ]


def declaration() -> Declaration:
    return Declaration(
        PAPER,
        [
            Unknown(
                "rate",
                ("apps[c].rate",),
                1000.0,
                "not printed",
                lo=RATE_LO,
                hi=RATE_HI,
                unit="Interests/s",
                suffix=False,
            ),
            Unknown(
                "queue", ("defaults.link.queue",), 1000, "not printed", levels=(100, 1000), unit="p"
            ),
        ],
        [Constraint("the consumer asks at a constant rate", "toy")],
    )
