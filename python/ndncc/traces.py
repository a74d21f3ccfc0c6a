"""ndnSIM-compatible trace files written from ndncc result tables.

The formats follow ndnSIM's tracers so that existing R / pandas scripts read them unchanged:
tab-separated, one header line (no ``#``), times in simulated seconds, ``Node`` = the node's
name, floating-point values printed like a C++ ``ostream`` with default settings (``fmt_g``),
integer fields (face ids, app ids, sequence numbers, counters kept as integers) printed as
integers.

Writers:

* ``write_rate_trace``       L3RateTracer ``rate-trace.txt``
* ``write_app_delays_trace`` AppDelayTracer ``app-delays-trace.txt``
* ``write_drop_trace``       L2RateTracer ``drop-trace.txt``
* ``write_cs_trace``         CsTracer ``cs-trace.txt``

The periodic writers aggregate consecutive result bins into periods of ``period_s`` seconds
(which must be a multiple of the bin width) and print one block per *complete* period, the
first at ``t = period_s``.

Checked against ndnSIM 2.8's own files (``tests/test_ndnsim_traces.py``): the same header,
columns, Types and their order, number formats and face ids — a node's net faces from 257 in
link order, then its app faces, with the same ``netdev://[MAC]`` descriptions. Two differences
remain: ndnSIM also prints NFD's internal faces (ids 1, 2 and 256, ``internal://``; they carry
only its management traffic), which ndncc does not have; and the byte columns count the sizes
the scenario gives its packets (``[packets]``: the wire sizes on the link), where ndnSIM's count
the NDN packet without its link-protocol header (13 B less per Data and 9 B per Interest in
ndn-congestion-topo-plugin).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ALPHA",
    "APP_DELAYS_HEADER",
    "CS_TRACE_HEADER",
    "DROP_TRACE_HEADER",
    "FACE_TYPES",
    "NODE_TYPES",
    "RATE_TRACE_HEADER",
    "app_ids",
    "fmt_g",
    "write_app_delays_trace",
    "write_cs_trace",
    "write_drop_trace",
    "write_rate_trace",
]

#: Weight of the newest period in ndnSIM's rate EWMAs: new = ALPHA*rate + (1-ALPHA)*old.
ALPHA = 0.8

RATE_TRACE_HEADER = (
    "Time\tNode\tFaceId\tFaceDescr\tType\tPackets\tKilobytes\tPacketRaw\tKilobytesRaw"
)
APP_DELAYS_HEADER = "Time\tNode\tAppId\tSeqNo\tType\tDelayS\tDelayUS\tRetxCount\tHopCount"
DROP_TRACE_HEADER = "Time\tNode\tInterface\tType\tPackets\tKilobytes\tPacketsRaw\tKilobytesRaw"
# ndnSIM's CsTracer really ends its header with a tab.
CS_TRACE_HEADER = "Time\tNode\tType\tPackets\t"

#: L3RateTracer per-face Types, in print order: (Type, count column, bytes column or None).
#: Satisfied / timed-out rows carry no byte count (0 kilobytes), as in ndnSIM.
FACE_TYPES: tuple[tuple[str, str, str | None], ...] = (
    ("InInterests", "in_interests", "in_interest_bytes"),
    ("OutInterests", "out_interests", "out_interest_bytes"),
    ("InData", "in_data", "in_data_bytes"),
    ("OutData", "out_data", "out_data_bytes"),
    ("InNacks", "in_nacks", "in_nack_bytes"),
    ("OutNacks", "out_nacks", "out_nack_bytes"),
    ("InSatisfiedInterests", "in_satisfied", None),
    ("InTimedOutInterests", "in_timed_out", None),
    ("OutSatisfiedInterests", "out_satisfied", None),
    ("OutTimedOutInterests", "out_timed_out", None),
)

#: L3RateTracer per-node Types (FaceId -1, FaceDescr ``all``): (Type, node_series column).
NODE_TYPES: tuple[tuple[str, str], ...] = (
    ("SatisfiedInterests", "satisfied"),
    ("TimedOutInterests", "timed_out"),
)

_NS_PER_S = 1_000_000_000


def fmt_g(x: float) -> str:
    """Format a number like C++ ``ostream << double`` with default flags (C ``%g``).

    Six significant digits, trailing zeros removed, exponent form below 1e-4 or from 1e6:
    ``0.5``, ``1``, ``12.3457``, ``1.23457e+06``.
    """
    return format(float(x), "g")


def _to_ns(seconds: float) -> int:
    """Seconds (float) to integer nanoseconds, rounded to the nearest nanosecond."""
    return round(float(seconds) * _NS_PER_S)


def _times_ns(times_s: pd.Series | np.ndarray) -> np.ndarray:
    """Bin end times in seconds to integer nanoseconds (int64 array)."""
    return np.rint(np.asarray(times_s, dtype=np.float64) * _NS_PER_S).astype(np.int64)


def _check_period(period_s: float, bin_s: float | None) -> int:
    """Validate a trace period against the bin width; return the period in nanoseconds."""
    period_ns = _to_ns(period_s)
    if period_ns <= 0:
        raise ValueError(f"trace period must be positive, got {period_s!r} s")
    if bin_s is not None:
        bin_ns = _to_ns(bin_s)
        if bin_ns <= 0:
            raise ValueError(f"trace bin must be positive, got {bin_s!r} s")
        if period_ns % bin_ns:
            raise ValueError(
                f"trace period {period_s} s is not a multiple of the result bin {bin_s} s"
            )
    return period_ns


def _complete_periods(frames: Iterable[pd.DataFrame | None], period_ns: int) -> int:
    """Number of complete periods covered by the bins of ``frames`` (by the last bin end)."""
    ends = [int(_times_ns(f["time_s"]).max()) for f in frames if f is not None and len(f)]
    return max(ends) // period_ns if ends else 0


def _period_index(times_s: pd.Series, period_ns: int) -> np.ndarray:
    """Period index (0-based) of each bin, given its end time: a bin ending in
    ``(p*period, (p+1)*period]`` belongs to period ``p``."""
    return (_times_ns(times_s) - 1) // period_ns


def _accumulate(
    period: np.ndarray, slot: np.ndarray, values: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    """Sum ``values`` into a ``(periods, slots)`` float array, ignoring rows whose period
    falls outside ``[0, shape[0])`` (incomplete last period)."""
    out = np.zeros(shape, dtype=np.float64)
    keep = (period >= 0) & (period < shape[0])
    np.add.at(out, (period[keep], slot[keep]), np.asarray(values, dtype=np.float64)[keep])
    return out


def _ewma(raw: np.ndarray, period_s: float, divisor: float = 1.0) -> np.ndarray:
    """ndnSIM's per-period EWMA along axis 0.

    ``new = ALPHA * raw / period_s / divisor + (1 - ALPHA) * old``, evaluated in the same
    order as ndnSIM's C++ (so that results agree to the last bit). ``raw`` is a count or a
    byte amount per period; the result is per second (divided by ``divisor``, 1024 for
    kilobytes).
    """
    out = np.empty(raw.shape, dtype=np.float64)
    old = np.zeros(raw.shape[1:], dtype=np.float64)
    for p in range(raw.shape[0]):
        new = ALPHA * raw[p] / period_s
        if divisor != 1.0:
            new = new / divisor
        old = new + (1 - ALPHA) * old
        out[p] = old
    return out


def _block_time(p: int, period_ns: int) -> str:
    """Printed time of the block closing period ``p`` (seconds, ``fmt_g``)."""
    return fmt_g((p + 1) * period_ns / _NS_PER_S)


def _open_lines(path: str | Path, header: str, lines: Iterable[str]) -> Path:
    """Write ``header`` and ``lines`` (each without its newline) to ``path`` with LF endings."""
    path = Path(path)
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.write(header + "\n")
        for line in lines:
            out.write(line + "\n")
    return path


# --------------------------------------------------------------------------- faces


def _face_order(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Meta faces sorted by (node index, ndnSIM face id): the rate-trace print order."""
    return sorted(meta["faces"], key=lambda f: (int(f["node"]), int(f["face"])))


def _face_slots(face_series: pd.DataFrame, order: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Position in ``order`` of each face_series row, matched on (node, ndnSIM face id)."""
    keys = pd.MultiIndex.from_arrays(
        [[int(f["node"]) for f in order], [int(f["face"]) for f in order]]
    )
    rows = pd.MultiIndex.from_arrays(
        [
            face_series["node"].to_numpy(dtype=np.int64),
            face_series["face"].to_numpy(dtype=np.int64),
        ]
    )
    slots = keys.get_indexer(rows)
    if (slots < 0).any():
        bad = rows[slots < 0][0]
        raise ValueError(f"face_series row for (node {bad[0]}, face {bad[1]}) not in meta.faces")
    return slots


def _face_tables(
    face_series: pd.DataFrame,
    order: Sequence[Mapping[str, Any]],
    period_ns: int,
    n: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-period raw packet counts and byte amounts, shape ``(n, faces, len(FACE_TYPES))``."""
    counts = np.zeros((n, len(order), len(FACE_TYPES)))
    volume = np.zeros_like(counts)
    if n == 0 or face_series is None or not len(face_series):
        return counts, volume
    period = _period_index(face_series["time_s"], period_ns)
    slot = _face_slots(face_series, order)
    for j, (_, count_col, bytes_col) in enumerate(FACE_TYPES):
        counts[:, :, j] = _accumulate(period, slot, face_series[count_col], counts.shape[:2])
        if bytes_col is not None:
            volume[:, :, j] = _accumulate(period, slot, face_series[bytes_col], counts.shape[:2])
    return counts, volume


def _node_table(
    frame: pd.DataFrame | None,
    columns: Sequence[str],
    n_nodes: int,
    period_ns: int,
    n: int,
) -> np.ndarray:
    """Per-period sums of ``columns`` per node, shape ``(n, n_nodes, len(columns))``."""
    out = np.zeros((n, n_nodes, len(columns)))
    if n == 0 or frame is None or not len(frame):
        return out
    period = _period_index(frame["time_s"], period_ns)
    node = frame["node"].to_numpy(dtype=np.int64)
    for j, col in enumerate(columns):
        out[:, :, j] = _accumulate(period, node, frame[col], (n, n_nodes))
    return out


def _active_since(counts: np.ndarray) -> np.ndarray:
    """True from the first period in which an entity had any event (ndnSIM creates a
    tracer entry lazily on its first event and prints it from then on).

    ``counts`` has shape ``(periods, entities, types)``; the result ``(periods, entities)``.
    """
    return np.logical_or.accumulate(counts.sum(axis=2) > 0, axis=0)


def _rate_row(prefix: str, kind: str, vals: Sequence[float]) -> str:
    """One rate-trace line after ``Time Node FaceId FaceDescr`` (``prefix``); ``vals`` =
    (Packets EWMA per s, Kilobytes EWMA per s, packets in the period, bytes in the period).
    """
    pk, kb, raw, raw_bytes = vals
    return f"{prefix}\t{kind}\t{fmt_g(pk)}\t{fmt_g(kb)}\t{fmt_g(raw)}\t{fmt_g(raw_bytes / 1024.0)}"


def write_rate_trace(
    path: str | Path,
    face_series: pd.DataFrame,
    meta: Mapping[str, Any],
    period_s: float,
    bin_s: float | None,
    *,
    node_series: pd.DataFrame | None = None,
) -> Path:
    """Write an ndnSIM L3RateTracer file (``rate-trace.txt``).

    ``face_series`` needs ``time_s`` (bin end, s), ``node`` (node index), ``face`` (ndnSIM
    face id, as in ``meta.faces[i].face``) and the count / byte columns of ``FACE_TYPES``.
    ``node_series`` (``time_s``, ``node``, ``satisfied``, ``timed_out``) feeds the per-node
    ``SatisfiedInterests`` / ``TimedOutInterests`` rows; without it they are left out.
    ``period_s`` (seconds) must be a multiple of ``bin_s`` (the result bin, seconds; ``None``
    skips the check).

    Per block (every period, first at ``t = period_s``, complete periods only), nodes in
    index order; per node its faces in ascending FaceId, ten Types each, then the two
    ``-1``/``all`` rows. ``Packets`` = EWMA of packets/s, ``Kilobytes`` = EWMA of KiB/s
    (bytes / 1024), ``PacketRaw`` / ``KilobytesRaw`` = amounts in the period. As in ndnSIM,
    a face (or a node's ``all`` rows) appears from the first period with an event.
    Returns the path written.
    """
    period_ns = _check_period(period_s, bin_s)
    period = period_ns / _NS_PER_S
    n = _complete_periods([face_series, node_series], period_ns)
    order = _face_order(meta)
    counts, volume = _face_tables(face_series, order, period_ns, n)
    face_stats = (_ewma(counts, period), _ewma(volume, period, 1024.0), counts, volume)
    face_on = _active_since(counts)
    node_cols = [col for _, col in NODE_TYPES]
    node_counts = _node_table(node_series, node_cols, len(meta["nodes"]), period_ns, n)
    zeros = np.zeros_like(node_counts)  # no byte counts for PIT entries
    node_stats = (_ewma(node_counts, period), zeros, node_counts, zeros)
    node_on = _active_since(node_counts)

    slots_of = [[] for _ in meta["nodes"]]
    for slot, face in enumerate(order):
        slots_of[int(face["node"])].append(slot)

    def lines() -> Iterable[str]:
        for p in range(n):
            time = _block_time(p, period_ns)
            stats = [s[p].tolist() for s in face_stats]  # per slot, per type
            totals = [s[p].tolist() for s in node_stats]  # per node, per type
            for node_idx, node_name in enumerate(meta["nodes"]):
                for slot in slots_of[node_idx]:
                    if face_on[p, slot]:
                        face = order[slot]
                        prefix = f"{time}\t{node_name}\t{face['face']}\t{face['descr']}"
                        for j, (kind, _, _) in enumerate(FACE_TYPES):
                            yield _rate_row(prefix, kind, [s[slot][j] for s in stats])
                if node_on[p, node_idx]:
                    prefix = f"{time}\t{node_name}\t-1\tall"
                    for j, (kind, _) in enumerate(NODE_TYPES):
                        yield _rate_row(prefix, kind, [s[node_idx][j] for s in totals])

    return _open_lines(path, RATE_TRACE_HEADER, lines())


# --------------------------------------------------------------------------- apps


def app_ids(meta: Mapping[str, Any]) -> list[int]:
    """ndnSIM AppId of every ``meta.apps`` entry: its 0-based index among the apps installed
    on the same node, in installation (app) order."""
    seen: dict[int, int] = {}
    ids = []
    for app in meta["apps"]:
        node = int(app["node"])
        ids.append(seen.get(node, 0))
        seen[node] = ids[-1] + 1
    return ids


def write_app_delays_trace(path: str | Path, delays: pd.DataFrame, meta: Mapping[str, Any]) -> Path:
    """Write an ndnSIM AppDelayTracer file (``app-delays-trace.txt``).

    ``delays`` needs ``time_s`` (arrival, s), ``app`` (index into ``meta.apps``), ``seq``,
    ``last_delay_s`` / ``full_delay_s`` (s), ``transmissions`` and ``hop_count``. Two rows
    per Data in table order: ``LastDelay`` (RetxCount 1) then ``FullDelay`` (RetxCount =
    transmissions); DelayS in seconds, DelayUS in microseconds. Returns the path written.
    """
    ids = app_ids(meta)
    node_of = [meta["nodes"][int(app["node"])] for app in meta["apps"]]

    def lines() -> Iterable[str]:
        if delays is None or not len(delays):
            return
        cols = [
            "time_s",
            "app",
            "seq",
            "last_delay_s",
            "full_delay_s",
            "transmissions",
            "hop_count",
        ]
        for t, app, seq, last, full, tx, hops in delays[cols].itertuples(index=False):
            head = f"{fmt_g(t)}\t{node_of[int(app)]}\t{ids[int(app)]}\t{int(seq)}"
            yield f"{head}\tLastDelay\t{fmt_g(last)}\t{fmt_g(last * 1e6)}\t1\t{int(hops)}"
            yield (f"{head}\tFullDelay\t{fmt_g(full)}\t{fmt_g(full * 1e6)}\t{int(tx)}\t{int(hops)}")

    return _open_lines(path, APP_DELAYS_HEADER, lines())


# --------------------------------------------------------------------------- L2 and CS


def write_drop_trace(
    path: str | Path,
    face_series: pd.DataFrame,
    meta: Mapping[str, Any],
    period_s: float,
    bin_s: float | None,
) -> Path:
    """Write an ndnSIM L2RateTracer file (``drop-trace.txt``): per block and node one row,
    Interface ``combined``, Type ``Drop`` (queue overflows summed over the node's faces).
    Packets / Kilobytes are EWMAs per second as in the rate trace; PacketsRaw / KilobytesRaw
    the amounts in the period (``drops``, ``drop_bytes`` / 1024). Every node is printed in
    every block, as ndnSIM does. Returns the path written."""
    period_ns = _check_period(period_s, bin_s)
    period = period_ns / _NS_PER_S
    n = _complete_periods([face_series], period_ns)
    table = _node_table(face_series, ["drops", "drop_bytes"], len(meta["nodes"]), period_ns, n)
    pk = _ewma(table[:, :, 0], period)
    kb = _ewma(table[:, :, 1], period, 1024.0)

    def lines() -> Iterable[str]:
        for p in range(n):
            time = _block_time(p, period_ns)
            for i, name in enumerate(meta["nodes"]):
                yield (
                    f"{time}\t{name}\tcombined\tDrop\t{fmt_g(pk[p, i])}\t{fmt_g(kb[p, i])}"
                    f"\t{fmt_g(table[p, i, 0])}\t{fmt_g(table[p, i, 1] / 1024.0)}"
                )

    return _open_lines(path, DROP_TRACE_HEADER, lines())


def write_cs_trace(
    path: str | Path,
    node_series: pd.DataFrame,
    meta: Mapping[str, Any],
    period_s: float,
    bin_s: float | None,
) -> Path:
    """Write an ndnSIM CsTracer file (``cs-trace.txt``): per block and node ``CacheHits``
    then ``CacheMisses``, raw integer counts in the period (``cs_hits``, ``cs_misses``).
    Returns the path written."""
    period_ns = _check_period(period_s, bin_s)
    n = _complete_periods([node_series], period_ns)
    table = _node_table(node_series, ["cs_hits", "cs_misses"], len(meta["nodes"]), period_ns, n)

    def lines() -> Iterable[str]:
        for p in range(n):
            time = _block_time(p, period_ns)
            for i, name in enumerate(meta["nodes"]):
                yield f"{time}\t{name}\tCacheHits\t{int(table[p, i, 0])}"
                yield f"{time}\t{name}\tCacheMisses\t{int(table[p, i, 1])}"

    return _open_lines(path, CS_TRACE_HEADER, lines())
