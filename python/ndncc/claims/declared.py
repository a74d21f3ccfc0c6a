"""Which reproductions declare unknowns, and where (a module with ``declaration()``)."""

from __future__ import annotations

import importlib
from types import ModuleType

from .unknowns import Declaration

#: paper id → the module declaring its unknowns
DECLARED = {
    "chopcop": "ndncc.experiments.chopcop_unknowns",
    "sieve": "ndncc.experiments.sieve_unknowns",
    "mircc-clock": "ndncc.experiments.mircc_clock_unknowns",
    "sf-clock": "ndncc.experiments.sf_clock_unknowns",
}
#: reproductions that only claim maps know (tests, docs)
EXTRA = {"toy": "ndncc.claims.toy"}


def papers() -> list[str]:
    """The papers with declared unknowns."""
    return list(DECLARED)


def declaration(paper: str) -> Declaration:
    name = DECLARED.get(paper) or EXTRA.get(paper)
    if name is None:
        raise KeyError(paper)
    return importlib.import_module(name).declaration()


def paper_module(paper: str) -> ModuleType:
    if paper in EXTRA:
        return importlib.import_module(EXTRA[paper])
    from ..experiments import PAPERS

    return PAPERS[paper]
