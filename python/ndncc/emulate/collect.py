"""The apps' and daemons' reports → ``summary.json`` (the keys ``ndncc run`` writes where a
real run measures them) and ``app_series.parquet`` (the simulator's ``app_series`` columns).

Per consumer: ``data_bytes`` and ``throughput_mbps`` count the Data's real wire bytes (the
simulator's count its modelled size, payload + ``[packets] data_overhead``; by default the
producers make the two equal, see :func:`ndncc.emulate.run.emulate`);
``throughput_model_mbps`` counts each Data at the scenario's size, so that it compares with the
simulator's ``throughput_mbps`` Data for Data whatever the real sizes. Not measured (absent):
delays, ``max_burst``, ``delivery_ratio``, face series.

``faces``: one entry per daemon face, as the simulator's ``summary["faces"]`` names them
(``node``, ``peer`` — the node at the link's other end, None for an app's face — ``drops``,
``drop_bytes``, ``marks``, ``max_queue_pkts``, ``max_queue_bytes``), plus ``link`` (the
scenario's link index), ``queue`` (its capacity) and ``after_close`` (packets sent to the face
after it closed: Data for a consumer that had exited, not queue drops): where the Data a
producer sent and a consumer never got were dropped by an emulated queue.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..results import _python_fields
from ..runner import git_commit
from ..scenario import spec_hash
from .plan import EmulateError
from .supervise import app_report, daemon_counters


def model_data_size(spec: dict, prefix: str) -> int | None:
    """The scenario's Data size (bytes) for ``prefix``: its producers' payload + overhead."""
    sizes = [
        a["app"]["payload_size"] + spec["packets"]["data_overhead"]
        for a in spec["apps"]
        if a["app"]["kind"] == "producer" and a["app"]["prefix"] == prefix
    ]
    return max(sizes) if sizes else None


def _consumer_entry(spec: dict, a: dict, r: dict, t0_unix: float | None = None) -> dict:
    end = spec["duration_ns"]
    stop = min(a.get("stop_ns") or end, end)
    active = max(0, stop - a.get("start_ns", 0)) / 1e9
    size = model_data_size(spec, a["app"]["prefix"])

    def per_s(bits: float) -> float:
        return bits / active / 1e6 if active > 0 else 0.0

    return {
        "name": a["name"],
        "node": spec["nodes"][a["node"]]["name"],
        "prefix": a["app"]["prefix"],
        "interests_sent": r["interests_sent"],
        "data_received": r["data_received"],
        "nacks_received": r["nacks"],
        "timeouts": r["timeouts"],
        "retransmissions": r["retransmissions"],
        "data_bytes": r["data_bytes"],
        "active_time_s": active,
        "throughput_mbps": per_s(r["data_bytes"] * 8.0),
        "throughput_model_mbps": per_s(r["data_received"] * (size or 0) * 8.0),
        "model_data_size": size,
        "marks": r["marks"],
        "late_data": r["late_data"],
        "given_up": r["given_up"],
        "srtt_s": r["srtt_s"],
        "dropped": r["dropped"],
        "elapsed_s": r["elapsed_s"],
        "interrupted": r.get("interrupted", False),
        "started_unix_s": r.get("started_unix_s"),
        # when it started sending, s after the scenario's time 0 (real start-up skew)
        "started_s": (
            r["started_unix_s"] - t0_unix
            if r.get("started_unix_s") is not None and t0_unix is not None
            else None
        ),
    }


def start_lags(spec: dict, apps: list[dict]) -> dict[str, float] | None:
    """Each consumer's start, s, after the one that started first, minus the gap the scenario
    schedules between them (0 for all: they started exactly on schedule relative to each
    other; the simulator's are). None without a start time from every consumer. A fraction
    of a RTT of lag decides how two window consumers share a bottleneck (docs/realtime.md)."""
    sched = {a["name"]: a.get("start_ns", 0) / 1e9 for a in spec["apps"]}
    if not apps or any(a.get("started_unix_s") is None for a in apps):
        return None
    offset = {a["name"]: a["started_unix_s"] - sched[a["name"]] for a in apps}
    first = min(offset.values())
    return {name: round(t - first, 6) for name, t in offset.items()}


SERIES_COLUMNS = [
    "app",
    "app_name",
    "node_name",
    "time_s",
    "interests",
    "data",
    "data_bytes",
    "throughput_mbps",
    "interest_rate",
]


def series_frame(spec: dict, rows: list[tuple[int, dict]]) -> pd.DataFrame:
    """The consumers' series as the simulator's ``app_series``: one row per (app, bin), time_s
    the bin's end (s after the app's start plus its scheduled start), counts per bin, and the
    derived ``throughput_mbps`` (Data wire Mbit/s in the bin) and ``interest_rate`` (/s)."""
    frames = []
    for i, r in rows:
        s = r.get("series")
        if not s:
            continue
        a = spec["apps"][i]
        n = len(s["data"])
        width = s["bin_s"]
        frames.append(
            pd.DataFrame(
                {
                    "app": np.full(n, i, dtype=np.int64),
                    "app_name": a["name"],
                    "node_name": spec["nodes"][a["node"]]["name"],
                    "time_s": a.get("start_ns", 0) / 1e9 + width * (np.arange(n) + 1),
                    "interests": np.asarray(s["interests"], dtype=np.int64),
                    "data": np.asarray(s["data"], dtype=np.int64),
                    "data_bytes": np.asarray(s["data_bytes"], dtype=np.int64),
                }
            )
        )
        frames[-1]["throughput_mbps"] = frames[-1]["data_bytes"] * 8.0 / width / 1e6
        frames[-1]["interest_rate"] = frames[-1]["interests"] / width
    if not frames:
        return pd.DataFrame(columns=SERIES_COLUMNS)
    return pd.concat(frames, ignore_index=True)


# each face's packets by type in ndnccd's stop report, named as the simulator's face counters
PACKET_COUNTS = ("out_interests", "out_data", "out_nacks", "in_interests", "in_data", "in_nacks")


def face_entries(spec: dict, nodes: list, counters: list[dict | None]) -> list[dict]:
    """The daemons' per-face counters (``faces`` of each stop report) named as the simulator
    names its faces: a net face by the node at its link's other end (matched by the face's
    URI, the peer endpoint :mod:`.plan` configured), any other face (an app's) with peer
    None; with its queue's counters and its packets by type (:data:`PACKET_COUNTS`)."""
    names = [n["name"] for n in spec["nodes"]]
    out = []
    for node, report in zip(nodes, counters, strict=True):
        by_uri = {peer.uri(): (link, there) for link, there, peer, _ in node.faces}
        for f in (report or {}).get("faces") or []:
            link, there = by_uri.get(f.get("uri"), (None, None))
            out.append(
                {
                    "node": node.name,
                    "face": f["id"],
                    "peer": None if there is None else names[there],
                    "link": link,
                    "queue": f["queue"],
                    "drops": f["drops"],
                    "drop_bytes": f["drop_bytes"],
                    "after_close": f.get("after_close", 0),
                    "marks": f.get("marks", 0),
                    "max_queue_pkts": f["max_queue_packets"],
                    "max_queue_bytes": f["max_queue_bytes"],
                    # packets by type (None from an ndnccd that does not count them)
                    **{k: f.get(k) for k in PACKET_COUNTS},
                }
            )
    return out


def drops_text(summary: dict) -> str:
    """One line: the emulated queues' drops per face where there were any ("R1 → R2: 120
    packets (150000 B)"), or that there were none."""
    parts = [
        f"{f['node']} → {f['peer'] or 'app'}: {f['drops']} packets ({f['drop_bytes']} B)"
        for f in summary.get("faces") or []
        if f["drops"]
    ]
    return "queue drops: " + ("; ".join(parts) if parts else "none")


def collect(
    spec: dict,
    nodes: list,
    consumers: list,
    producers: list,
    daemons: list,
    out: Path,
    *,
    bin_s: float,
    extra: dict,
) -> dict:
    """Writes ``summary.json`` and ``app_series.parquet`` into ``out``; returns the summary.
    A consumer that printed no report is an error naming its log."""
    apps, reports = [], []
    for proc, i in consumers:
        r = app_report(proc)
        if r is None:
            raise EmulateError(f"{proc.label} printed no report: {proc.tail() or 'no message'}")
        reports.append((i, r))
        apps.append(_consumer_entry(spec, spec["apps"][i], r, extra.get("t0_unix_s")))
    prods = []
    for proc, i in producers:
        r = app_report(proc) or {}
        a = spec["apps"][i]
        prods.append(
            {
                "name": a["name"],
                "node": spec["nodes"][a["node"]]["name"],
                "prefix": a["app"]["prefix"],
                "interests_received": r.get("interests_received"),
                "data_sent": r.get("data_sent"),
            }
        )
    counters = [daemon_counters(d) for d in daemons]
    summary = {
        "scenario": spec["name"],
        "seed": spec["seed"],
        "run": spec["run"],
        "duration_s": spec["duration_ns"] / 1e9,
        "bin_s": bin_s,
        "apps": apps,
        "producers": prods,
        "nodes": {n.name: c for n, c in zip(nodes, counters, strict=True)},
        "faces": face_entries(spec, nodes, counters),
        "consumer_start_lag_s": start_lags(spec, apps),
        "ndncc_version": __version__,
        "git_commit": git_commit(),
        "scenario_hash": spec_hash(spec),
        **extra,
    }
    _python_fields(summary)
    (out / "summary.json").write_text(
        json.dumps(summary, sort_keys=True, indent=2) + "\n", encoding="utf-8"
    )
    series_frame(spec, reports).to_parquet(out / "app_series.parquet", index=False)
    return summary
