"""What became of a consumer's sequence numbers by the end of a run: delivered, lost, or still
in flight. The one place that decides it, for the run summary (``delivery_ratio``,
``loss_rate``, ``in_flight_at_end``), the CLI's consumers table and the result store's index.

A sequence number (a chunk in chunked fetch) still in flight at the end is neither delivered
nor lost: the run stopped before its outcome. So the delivery ratio and the loss rate are over
the sequence numbers whose outcome is known, and add up to 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

__all__ = ["Outcomes", "delivery_ratio", "loss_rate", "outcomes", "total"]


class Outcomes(NamedTuple):
    delivered: int
    lost: int
    in_flight: int

    @property
    def known(self) -> int:
        return self.delivered + self.lost


def _n(a: Mapping[str, Any], key: str) -> int:
    v = a.get(key)
    return 0 if v is None else int(v)


def outcomes(app: Mapping[str, Any]) -> Outcomes:
    """A consumer summary's sequence numbers: delivered (``completed``: answered, or in chunked
    fetch complete), lost (Nacks + timeouts − retransmissions: the failed transmissions that
    were not sent again), and in flight at the end (the rest of ``requested``). Summaries
    written before ``requested`` / ``completed`` were exported count Interests and Data."""
    failed = max(0, _n(app, "nacks_received") + _n(app, "timeouts") - _n(app, "retransmissions"))
    if "completed" in app and "requested" in app:
        delivered, asked = _n(app, "completed"), _n(app, "requested")
    else:
        delivered = _n(app, "data_received")
        asked = _n(app, "interests_sent") - _n(app, "retransmissions")
    lost = min(failed, max(0, asked - delivered))
    return Outcomes(delivered, lost, max(0, asked - delivered - lost))


def total(apps: Iterable[Mapping[str, Any]]) -> Outcomes:
    """The outcomes of several consumers summed."""
    each = [outcomes(a) for a in apps]
    return Outcomes(*(sum(o[i] for o in each) for i in range(3)))


def delivery_ratio(o: Outcomes) -> float | None:
    """Delivered / (delivered + lost); None when no outcome is known."""
    return o.delivered / o.known if o.known else None


def loss_rate(o: Outcomes) -> float | None:
    """Lost / (delivered + lost) = 1 − delivery ratio; None when no outcome is known."""
    return o.lost / o.known if o.known else None
