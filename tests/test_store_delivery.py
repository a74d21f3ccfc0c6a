"""The campaign index's delivery ratio counts sequence numbers (chunks in chunked fetch)
delivered over those whose outcome is known, as each consumer's own summary does — not Data
per Interest, and not counting those still in flight at the end as undelivered."""

from __future__ import annotations

import math
from pathlib import Path

import ndncc
from ndncc.store import summary_row

ROOT = Path(__file__).resolve().parents[1]


def app(**kw):
    base = dict(name="c", interests_sent=0, data_received=0, delay_ms={"mean": 1.0})
    return {**base, **kw}


def test_chunked_fetch_counts_complete_chunks():
    # 12 chunk Interests (2 re-asks, 5 timeouts), 300 segments back, 7 of 10 chunks complete,
    # 3 given up
    chunked = app(interests_sent=12, data_received=300, requested=10, completed=7, timeouts=5)
    chunked["retransmissions"] = 2
    row = summary_row({"apps": [chunked]})
    assert row["delivery_ratio"] == 0.7
    two = summary_row(
        {
            "apps": [
                chunked,
                app(interests_sent=30, data_received=29, requested=30, completed=29, timeouts=1),
            ]
        }
    )
    assert two["delivery_ratio"] == (7 + 29) / (10 + 30)


def test_old_summaries_fall_back_and_no_consumer_is_nan():
    row = summary_row({"apps": [app(interests_sent=10, data_received=9, timeouts=1)]})
    assert row["delivery_ratio"] == 0.9
    assert math.isnan(summary_row({"apps": []})["delivery_ratio"])


def test_a_chunked_run_agrees_with_its_consumer_summary():
    r = ndncc.run(
        str(ROOT / "scenarios/chopcop/baseline.toml"),
        duration="2s",
    )
    a = r.summary["apps"][0]
    assert a["requested"] >= a["completed"] > 0
    assert a["data_received"] > a["interests_sent"]  # 32 segments per chunk Interest
    lost = a["requested"] - a["completed"] - a["in_flight_at_end"]
    assert lost >= 0
    row = summary_row(r.summary)
    assert row["delivery_ratio"] == a["delivery_ratio"] == a["completed"] / (a["completed"] + lost)
