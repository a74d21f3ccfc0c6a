"""A small synthetic result dict shaped exactly like ``ndncc._core.run``'s (docs/internals.md).

Topology: node 0 ``c1`` (consumer ``cons``) — link 0 — node 1 ``p1`` (producer ``prod``).
Faces (ndnSIM ids from 256, net faces first, then app faces): c1/256 net→p1, c1/257 app,
p1/256 net→c1, p1/257 app. Three bins of 100 ms (ends 0.1, 0.2, 0.3 s). The producer's app
face is idle in the first bin; so is p1's PIT (no satisfied / timed out entries).

Tables are emitted time-major (all rows of bin 1, then bin 2, ...), as a simulator appending
rows at each bin end would, so that tests exercise the results layer's sorting.
"""

from __future__ import annotations

import json

import numpy as np

BIN_S = 0.1
TIMES = [0.1, 0.2, 0.3]
INTEREST_BYTES = 40
DATA_BYTES = 1250
NODES = ["c1", "p1"]

FACES = [
    {
        "node": 0,
        "face": 256,
        "kind": "net",
        "descr": "netdev://[00:00:00:00:00:01]",
        "peer": 1,
        "link": 0,
        "app": None,
    },
    {
        "node": 0,
        "face": 257,
        "kind": "app",
        "descr": "appFace://",
        "peer": None,
        "link": None,
        "app": 0,
    },
    {
        "node": 1,
        "face": 256,
        "kind": "net",
        "descr": "netdev://[00:00:00:00:00:02]",
        "peer": 0,
        "link": 0,
        "app": None,
    },
    {
        "node": 1,
        "face": 257,
        "kind": "app",
        "descr": "appFace://",
        "peer": None,
        "link": None,
        "app": 1,
    },
]
APPS = [
    {"name": "cons", "node": 0, "kind": "consumer", "prefix": "/prefix"},
    {"name": "prod", "node": 1, "kind": "producer", "prefix": "/prefix"},
]

# Consumer per bin.
INTERESTS = [10, 20, 30]
C_DATA = [8, 18, 29]
TIMEOUTS = [0, 0, 1]
# Producer per bin (idle in the first bin).
P_DATA = [0, 19, 29]
P_INTERESTS = [0, 20, 30]

FACE_INT = ("u4", ["node", "face"])
FACE_COUNTS = [
    "in_interests",
    "out_interests",
    "in_data",
    "out_data",
    "in_nacks",
    "out_nacks",
    "in_interest_bytes",
    "out_interest_bytes",
    "in_data_bytes",
    "out_data_bytes",
    "in_nack_bytes",
    "out_nack_bytes",
    "in_satisfied",
    "in_timed_out",
    "out_satisfied",
    "out_timed_out",
    "drops",
    "drop_bytes",
    "marks",
    "queue_pkts",
    "queue_bytes",
    "queue_max_pkts",
]


def _col(dtype: str, values) -> tuple[str, bytes]:
    """One native column: (numpy dtype string, little-endian raw bytes)."""
    return dtype, np.asarray(values, dtype=np.dtype(dtype)).tobytes()


def _scaled(counts: list[int], size: int) -> list[int]:
    """Per-bin byte amounts of ``counts`` packets of ``size`` bytes."""
    return [c * size for c in counts]


def _face_values() -> dict[tuple[int, int], dict[str, list[float]]]:
    """Per (node, face id) the non-zero per-bin counts."""
    return {
        (0, 256): {
            "out_interests": INTERESTS,
            "out_interest_bytes": _scaled(INTERESTS, INTEREST_BYTES),
            "in_data": C_DATA,
            "in_data_bytes": _scaled(C_DATA, DATA_BYTES),
            "out_satisfied": C_DATA,
            "out_timed_out": TIMEOUTS,
            "queue_pkts": [1, 3, 0],
            "queue_bytes": [40, 120, 0],
            "queue_max_pkts": [2, 5, 3],
        },
        (0, 257): {
            "in_interests": INTERESTS,
            "in_interest_bytes": _scaled(INTERESTS, INTEREST_BYTES),
            "out_data": C_DATA,
            "out_data_bytes": _scaled(C_DATA, DATA_BYTES),
            "in_satisfied": C_DATA,
            "in_timed_out": TIMEOUTS,
        },
        (1, 256): {
            "in_interests": INTERESTS,
            "in_interest_bytes": _scaled(INTERESTS, INTEREST_BYTES),
            "out_data": P_DATA,
            "out_data_bytes": _scaled(P_DATA, DATA_BYTES),
            "in_satisfied": P_DATA,
            "drops": [0, 1, 0],
            "drop_bytes": [0, DATA_BYTES, 0],
            "queue_pkts": [4, 6, 2],
            "queue_bytes": [5000, 7500, 2500],
            "queue_max_pkts": [6, 9, 4],
        },
        (1, 257): {
            "out_interests": P_INTERESTS,
            "out_interest_bytes": _scaled(P_INTERESTS, INTEREST_BYTES),
            "in_data": P_DATA,
            "in_data_bytes": _scaled(P_DATA, DATA_BYTES),
            "out_satisfied": P_DATA,
        },
    }


def _face_series() -> dict[str, tuple[str, bytes]]:
    """face_series, time-major, faces in meta order within a bin."""
    values = _face_values()
    rows = [(b, f) for b in range(len(TIMES)) for f in FACES]
    table = {
        "time_s": _col("<f8", [TIMES[b] for b, _ in rows]),
        "node": _col("<u4", [f["node"] for _, f in rows]),
        "face": _col("<u4", [f["face"] for _, f in rows]),
    }
    for name in FACE_COUNTS:
        table[name] = _col(
            "<u8",
            [values[(f["node"], f["face"])].get(name, [0, 0, 0])[b] for b, f in rows],
        )
    # no router scheme in the fake run: the scheme gauges are NaN
    table["scheme_rate"] = _col("<f8", [float("nan")] * len(rows))
    table["scheme_bucket"] = _col("<f8", [float("nan")] * len(rows))
    return table


def _app_series() -> dict[str, tuple[str, bytes]]:
    """app_series of the one consumer (app 0), a rate controller (window NaN)."""
    n = len(TIMES)
    return {
        "time_s": _col("<f8", TIMES),
        "app": _col("<u4", [0] * n),
        "interests": _col("<u8", INTERESTS),
        "retransmissions": _col("<u8", [0, 1, 0]),
        "data": _col("<u8", C_DATA),
        "data_bytes": _col("<u8", [d * DATA_BYTES for d in C_DATA]),
        "nacks": _col("<u8", [0] * n),
        "timeouts": _col("<u8", TIMEOUTS),
        "rate": _col("<f8", [100.0, 200.0, 300.0]),
        "window": _col("<f8", [np.nan] * n),
        "in_flight": _col("<u8", [2, 4, 5]),
        "srtt_ms": _col("<f8", [np.nan, 20.5, 21.0]),
    }


def _node_series() -> dict[str, tuple[str, bytes]]:
    """node_series, time-major."""
    per_node = {
        0: {
            "satisfied": C_DATA,
            "timed_out": TIMEOUTS,
            "rejected": [0, 0, 0],
            "pit_entries": [2, 4, 5],
            "cs_entries": [0, 0, 0],
            "cs_hits": [0, 0, 0],
            "cs_misses": INTERESTS,
        },
        1: {
            "satisfied": P_DATA,
            "timed_out": [0, 0, 0],
            "rejected": [0, 1, 0],
            "pit_entries": [1, 2, 1],
            "cs_entries": [0, 0, 0],
            "cs_hits": [0, 0, 0],
            "cs_misses": INTERESTS,
        },
    }
    rows = [(b, n) for b in range(len(TIMES)) for n in range(len(NODES))]
    table = {
        "time_s": _col("<f8", [TIMES[b] for b, _ in rows]),
        "node": _col("<u4", [n for _, n in rows]),
    }
    for name in [
        "satisfied",
        "timed_out",
        "rejected",
        "pit_entries",
        "cs_entries",
        "cs_hits",
        "cs_misses",
    ]:
        table[name] = _col("<u8", [per_node[n][name][b] for b, n in rows])
    return table


#: (arrival s, seq, last delay s, full delay s, transmissions, hop count) for app 0.
DELAY_ROWS = [
    (0.05, 0, 0.02, 0.02, 1, 1),
    (0.06, 1, 0.021, 0.021, 1, 1),
    (0.15, 2, 0.03, 0.13, 2, 1),
    (0.25, 3, 0.0205, 0.0205, 1, 1),
]


def _delays() -> dict[str, tuple[str, bytes]]:
    """delays of the consumer, in arrival order."""
    cols = list(zip(*DELAY_ROWS, strict=True))
    return {
        "time_s": _col("<f8", cols[0]),
        "app": _col("<u4", [0] * len(DELAY_ROWS)),
        "seq": _col("<u8", cols[1]),
        "last_delay_s": _col("<f8", cols[2]),
        "full_delay_s": _col("<f8", cols[3]),
        "transmissions": _col("<u4", cols[4]),
        "hop_count": _col("<u4", cols[5]),
    }


def _summary() -> dict:
    """The Rust part of the summary."""
    data = sum(C_DATA)
    return {
        "scenario": "fake",
        "seed": 1,
        "run": 0,
        "sim_time_s": 0.3,
        "events": 1234,
        "packet_hops": 170,
        "apps": [
            {
                "name": "cons",
                "node": "c1",
                "prefix": "/prefix",
                "interests_sent": sum(INTERESTS),
                "data_received": data,
                "nacks_received": 0,
                "timeouts": 1,
                "retransmissions": 1,
                "data_bytes": data * DATA_BYTES,
                "active_time_s": 0.3,
                "throughput_mbps": data * DATA_BYTES * 8 / 0.3 / 1e6,
                "delivery_ratio": 0.9,
                "loss_rate": 0.1,
                "delay_ms": {"mean": 47.875, "std": 47.6, "p50": 20.75, "p99": 127.0},
            }
        ],
        "producers": [
            {
                "name": "prod",
                "node": "p1",
                "prefix": "/prefix",
                "interests_received": 50,
                "data_sent": 48,
            }
        ],
        "faces": [
            {
                "node": NODES[f["node"]],
                "face": f["face"],
                "descr": f["descr"],
                "peer": None if f["peer"] is None else NODES[f["peer"]],
                "in_interests": 0,
                "out_interests": 0,
                "in_data": 0,
                "out_data": 0,
                "in_nacks": 0,
                "out_nacks": 0,
                "out_bytes": 0,
                "in_bytes": 0,
                "drops": 0,
                "drop_bytes": 0,
                "marks": 0,
                "max_queue_pkts": 0,
                "max_queue_bytes": 0,
            }
            for f in FACES
        ],
        "fairness_jain": 1.0,
    }


def make_native(*, tables: bool = True, delays: bool = True) -> dict:
    """The native result dict; ``tables=False`` mimics ``run(..., tables=False)``."""
    native = {
        "summary": json.dumps(_summary()),
        "meta": json.dumps({"nodes": NODES, "faces": FACES, "apps": APPS}),
    }
    if tables:
        native["tables"] = {
            "app_series": _app_series(),
            "face_series": _face_series(),
            "node_series": _node_series(),
        }
        if delays:
            native["tables"]["delays"] = _delays()
    return native


EXTRA_SUMMARY = {
    "wall_time_s": 0.012,
    "ndncc_version": "0.0.0-test",
    "scenario_hash": "0" * 16,
    "source": "fake.toml",
}


def make_result(trace_options: dict | None = None, **native_kwargs):
    """A ``Result`` built from ``make_native(**native_kwargs)``."""
    from ndncc.results import Result

    return Result.from_native(
        make_native(**native_kwargs),
        scenario_name="fake",
        trace_options=trace_options or {},
        extra_summary=EXTRA_SUMMARY,
    )
