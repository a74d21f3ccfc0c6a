"""Claim maps: for which values of what a paper left unknown does each of its claims hold?

:mod:`.unknowns` declares and samples the unknowns, :mod:`.runmap` runs and evaluates the
map on the campaign layer, :mod:`.claimmap` writes claims.csv, the figures and claims.md.
``ndncc reproduce PAPER --unknowns`` (``docs/unknowns.md``).
"""

from __future__ import annotations

from .unknowns import Constraint, Declaration, DeclarationError, Unknown

__all__ = ["Constraint", "Declaration", "DeclarationError", "Unknown"]
