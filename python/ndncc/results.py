"""Run results: DataFrames, ``summary.json``, Parquet, ndnSIM-compatible traces, figures.

A ``Result`` is built from the dict the native ``ndncc._core.run`` returns (see
``docs/internals.md``). Units throughout: times in seconds (``time_s`` = end of a bin or
arrival time), sizes in bytes, delays in seconds in the tables (``*_delay_s``) and in
milliseconds in the summary (``delay_ms_*``), throughput in Mbit/s (10^6 bit/s), rates in
Interests per second.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import files, traces
from .folders import check_kind
from .outcomes import delivery_ratio, loss_rate, outcomes

__all__ = [
    "DEFAULT_RATE_TRACE_PERIOD_S",
    "PARQUET_FILES",
    "TABLE_COLUMNS",
    "Result",
    "decode_table",
]

#: Columns of each native table, as documented in docs/internals.md.
TABLE_COLUMNS: dict[str, list[str]] = {
    "app_series": [
        "time_s",
        "app",
        "interests",
        "retransmissions",
        "data",
        "data_bytes",
        "nacks",
        "timeouts",
        "rate",
        "window",
        "in_flight",
        "srtt_ms",
    ],
    "face_series": [
        "time_s",
        "node",
        "face",
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
    ],
    "node_series": [
        "time_s",
        "node",
        "satisfied",
        "timed_out",
        "rejected",
        "pit_entries",
        "cs_entries",
        "cs_hits",
        "cs_misses",
    ],
    "delays": [
        "time_s",
        "app",
        "seq",
        "last_delay_s",
        "full_delay_s",
        "transmissions",
        "hop_count",
    ],
}

#: Result attribute → Parquet file name written by ``Result.save``.
PARQUET_FILES: dict[str, str] = {
    "series": "app_series.parquet",
    "face_series": "face_series.parquet",
    "node_series": "node_series.parquet",
    "delays": "delays.parquet",
}

#: Period used when ``trace_options["rate_trace"]`` (or drop / cs trace) is just ``True``;
#: ndnSIM's default averaging period, seconds.
DEFAULT_RATE_TRACE_PERIOD_S = 0.5

_PARQUET_COMPRESSION = "zstd"
_PARQUET_LEVEL = 3


# --------------------------------------------------------------------------- decoding


def decode_table(columns: Mapping[str, Sequence[Any]] | None, names: Sequence[str]) -> pd.DataFrame:
    """Rebuild one native table: ``{column: (numpy dtype string, little-endian bytes)}``.

    Columns come out in ``names`` order (the documented ones), then any extra native
    columns in their order. A missing table gives an empty frame with the ``names`` columns.
    """
    if not columns:
        return pd.DataFrame({name: np.empty(0, dtype=np.float64) for name in names})
    data = {
        name: np.frombuffer(raw, dtype=np.dtype(dtype)) for name, (dtype, raw) in columns.items()
    }
    lengths = {len(col) for col in data.values()}
    if len(lengths) > 1:
        raise ValueError(f"native table columns differ in length: {sorted(lengths)}")
    missing = [name for name in names if name not in data]
    if missing:
        raise ValueError(f"native table lacks columns {missing}")
    ordered = list(names) + [name for name in data if name not in names]
    return pd.DataFrame({name: data[name] for name in ordered})


def _insert_after(df: pd.DataFrame, after: str, new: Mapping[str, Any]) -> pd.DataFrame:
    """Return ``df`` with the ``new`` columns placed right after column ``after``."""
    out = df.assign(**new)
    cols = [c for c in df.columns if c not in new]
    at = cols.index(after) + 1
    return out[cols[:at] + list(new) + cols[at:]]


def _lookup(values: Sequence[Any], index: pd.Series) -> list[Any]:
    """``[values[i] for i in index]`` (index given as a numeric Series)."""
    return [values[int(i)] for i in index.to_numpy()]


# --------------------------------------------------------------------------- summary frames


def _flatten(record: Mapping[str, Any]) -> dict[str, Any]:
    """Flatten one level of nested dicts: ``{"delay_ms": {"mean": x}}`` → ``delay_ms_mean``."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, Mapping):
            flat.update({f"{key}_{sub}": v for sub, v in value.items()})
        else:
            flat[key] = value
    return flat


def _jain(xs: Sequence[float]) -> float | None:
    """Jain's fairness index (Σx)² / (n·Σx²); None for no values or all zeros."""
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if xs and s2 else None


def _python_fields(summary: dict[str, Any]) -> None:
    """The summary fields Python computes over the Rust ones (docs/internals.md):

    * per consumer, what became of its sequence numbers (:mod:`ndncc.outcomes`):
      ``in_flight_at_end``, those whose outcome the run did not see; ``delivery_ratio`` and
      ``loss_rate`` over those whose outcome is known — still in flight at the end is neither
      delivered nor lost (Rust's ratios count them as not delivered);
    * ``fairness_jain``: over the consumers that sent at least one Interest (a consumer that
      never ran, e.g. one starting after the run ends, is left out), ``fairness_consumers``
      says how many.
    """
    apps = summary.get("apps") or []
    for a in apps:
        o = outcomes(a)
        a["in_flight_at_end"] = o.in_flight
        a["delivery_ratio"] = delivery_ratio(o)
        a["loss_rate"] = loss_rate(o)
    ran = [a.get("throughput_mbps") or 0.0 for a in apps if a.get("interests_sent", 0) > 0]
    summary["fairness_jain"] = _jain(ran)
    summary["fairness_consumers"] = len(ran)


def _apps_frame(summary: Mapping[str, Any]) -> pd.DataFrame:
    """One row per consumer from ``summary["apps"]``; ``delay_ms_*`` in ms (NaN if no Data)."""
    df = pd.DataFrame([_flatten(app) for app in summary.get("apps", [])])
    for col in [c for c in df.columns if c.startswith("delay_ms_")]:
        df[col] = pd.to_numeric(df[col]).astype(np.float64)
    return df


def _faces_frame(summary: Mapping[str, Any]) -> pd.DataFrame:
    """One row per face from ``summary["faces"]`` (node / peer are names there)."""
    return pd.DataFrame(list(summary.get("faces", [])))


# --------------------------------------------------------------------------- series frames


def _bin_widths(df: pd.DataFrame, key: str) -> pd.Series:
    """Width in seconds of every bin: difference of consecutive ``time_s`` per ``key``,
    the first bin starting at 0. Rows must be sorted by (key, time_s). NaN if not > 0."""
    width = df.groupby(key, sort=False)["time_s"].diff()
    width = width.fillna(df["time_s"])
    return width.where(width > 0)


def _app_series(table: pd.DataFrame, meta: Mapping[str, Any]) -> pd.DataFrame:
    """``app_series`` sorted by (app, time_s), with ``app_name``, ``node_name`` and the
    derived ``throughput_mbps`` (Data wire Mbit/s in the bin) and ``interest_rate``
    (Interests sent per second in the bin, retransmissions included)."""
    df = table.sort_values(["app", "time_s"], kind="stable").reset_index(drop=True)
    apps = meta["apps"]
    names = {
        "app_name": _lookup([a["name"] for a in apps], df["app"]),
        "node_name": _lookup([meta["nodes"][int(a["node"])] for a in apps], df["app"]),
    }
    df = _insert_after(df, "app", names)
    width = _bin_widths(df, "app")
    df["throughput_mbps"] = df["data_bytes"].astype(np.float64) * 8.0 / width / 1e6
    df["interest_rate"] = df["interests"].astype(np.float64) / width
    return df


def _face_meta_index(table: pd.DataFrame, faces: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Index into ``meta.faces`` of every face_series row.

    The contract names the column ``face`` like ``meta.faces[i].face`` (the ndnSIM face id,
    unique per node), so rows are matched on (node, face id). If that fails for some row,
    ``face`` is read as an index into ``meta.faces`` instead (checked against ``node``).
    """
    n = len(table)
    node = table["node"].to_numpy(dtype=np.int64)
    face = table["face"].to_numpy(dtype=np.int64)
    keys = pd.MultiIndex.from_arrays(
        [[int(f["node"]) for f in faces], [int(f["face"]) for f in faces]]
    )
    pos = keys.get_indexer(pd.MultiIndex.from_arrays([node, face])) if n else np.empty(0, int)
    if (pos >= 0).all():
        return pos.astype(np.int64)
    face_nodes = np.array([int(f["node"]) for f in faces], dtype=np.int64)
    valid = (face >= 0) & (face < len(faces))
    if valid.all() and (face_nodes[face] == node).all():
        return face
    raise ValueError("face_series (node, face) pairs match neither meta.faces ids nor indices")


def _face_series(table: pd.DataFrame, meta: Mapping[str, Any]) -> pd.DataFrame:
    """``face_series`` sorted by (node, face, time_s); ``face`` is the ndnSIM face id; adds
    ``node_name``, ``descr``, ``kind`` ("net" / "app") and ``peer_name`` (None on app faces)."""
    faces = meta["faces"]
    idx = pd.Series(_face_meta_index(table, faces))
    nodes = meta["nodes"]
    names = {"node_name": _lookup(nodes, table["node"])}
    extra = {
        "descr": _lookup([f["descr"] for f in faces], idx),
        "kind": _lookup([f["kind"] for f in faces], idx),
        "peer_name": _lookup(
            [None if f.get("peer") is None else nodes[int(f["peer"])] for f in faces],
            idx,
        ),
    }
    ids = np.array([int(f["face"]) for f in faces], dtype=np.int64)
    df = table.assign(face=ids[idx.to_numpy(dtype=np.int64)].astype(table["face"].dtype))
    df = _insert_after(df, "node", names)
    df = _insert_after(df, "face", extra)
    return df.sort_values(["node", "face", "time_s"], kind="stable").reset_index(drop=True)


def _node_series(table: pd.DataFrame, meta: Mapping[str, Any]) -> pd.DataFrame:
    """``node_series`` sorted by (node, time_s) with ``node_name``."""
    df = _insert_after(table, "node", {"node_name": _lookup(meta["nodes"], table["node"])})
    return df.sort_values(["node", "time_s"], kind="stable").reset_index(drop=True)


def _delays(table: pd.DataFrame, meta: Mapping[str, Any]) -> pd.DataFrame:
    """``delays`` in arrival order (stable by ``time_s``) with ``app_name``, ``node_name``."""
    apps = meta["apps"]
    names = {
        "app_name": _lookup([a["name"] for a in apps], table["app"]),
        "node_name": _lookup([meta["nodes"][int(a["node"])] for a in apps], table["app"]),
    }
    df = _insert_after(table, "app", names)
    return df.sort_values("time_s", kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- writing


def _write_parquet(df: pd.DataFrame, path: Path) -> Path:
    """Write ``df`` to Parquet deterministically: no index column, zstd at a fixed level,
    no timestamps (pyarrow writes none); identical frames give identical bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    pq.write_table(
        table,
        path,
        compression=_PARQUET_COMPRESSION,
        compression_level=_PARQUET_LEVEL,
    )
    return path


def _trace_period(value: Any) -> float | None:
    """A trace option as a period in seconds: ``None`` / ``False`` → off, ``True`` → the
    ndnSIM default (0.5 s), a number → that many seconds."""
    if value is None or value is False:
        return None
    if value is True:
        return DEFAULT_RATE_TRACE_PERIOD_S
    return float(value)


class Result:
    """The outcome of one simulation run.

    Attributes:
        summary: Rust summary merged with the Python fields (``wall_time_s``,
            ``ndncc_version``, ``scenario_hash``, ``source``); see docs/internals.md.
        meta: ``{"nodes": [...], "faces": [...], "apps": [...]}`` from the simulator.
        apps: one row per consumer (summary["apps"], ``delay_ms_*`` flattened, ms).
        faces: one row per face (summary["faces"]).
        series: app_series per consumer per bin + ``app_name``, ``node_name``,
            ``throughput_mbps`` (Mbit/s) and ``interest_rate`` (Interests/s).
        face_series: per face per bin; ``face`` = ndnSIM face id; + ``node_name``, ``descr``,
            ``kind``, ``peer_name``.
        node_series: per node per bin + ``node_name``.
        delays: per Data received + ``app_name``, ``node_name`` (delays in seconds).
        scenario_name: the scenario's name.
        trace_options: which outputs ``save`` writes (see ``save``).
    """

    def __init__(
        self,
        *,
        summary: dict[str, Any],
        meta: dict[str, Any],
        apps: pd.DataFrame,
        faces: pd.DataFrame,
        series: pd.DataFrame,
        face_series: pd.DataFrame,
        node_series: pd.DataFrame,
        delays: pd.DataFrame,
        scenario_name: str,
        trace_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.summary = summary
        self.meta = meta
        self.apps = apps
        self.faces = faces
        self.series = series
        self.face_series = face_series
        self.node_series = node_series
        self.delays = delays
        self.scenario_name = scenario_name
        self.trace_options: dict[str, Any] = dict(trace_options or {})

    @classmethod
    def from_native(
        cls,
        native: Mapping[str, Any],
        *,
        scenario_name: str,
        trace_options: Mapping[str, Any] | None = None,
        extra_summary: Mapping[str, Any] | None = None,
    ) -> Result:
        """Build a Result from the dict returned by ``ndncc._core.run``.

        ``extra_summary`` fields override same-named Rust summary fields. If the Rust summary
        has no ``scenario`` field, ``scenario_name`` fills it. A native dict without
        ``tables`` (``tables=False``) gives empty series frames.
        """
        summary = dict(json.loads(native["summary"]))
        _python_fields(summary)
        summary.update(extra_summary or {})
        summary.setdefault("scenario", scenario_name)
        meta = json.loads(native["meta"])
        tables = native.get("tables") or {}
        raw = {name: decode_table(tables.get(name), cols) for name, cols in TABLE_COLUMNS.items()}
        return cls(
            summary=summary,
            meta=meta,
            apps=_apps_frame(summary),
            faces=_faces_frame(summary),
            series=_app_series(raw["app_series"], meta),
            face_series=_face_series(raw["face_series"], meta),
            node_series=_node_series(raw["node_series"], meta),
            delays=_delays(raw["delays"], meta),
            scenario_name=scenario_name,
            trace_options=trace_options,
        )

    @classmethod
    def load(cls, out_dir: str | Path) -> Result:
        """Read a result written by ``save`` (summary.json, meta.json and the Parquet files).

        Raises ``FileNotFoundError`` naming the missing file, ``ValueError`` for a damaged one,
        or one that is not the file ndncc wrote with this run (by the folder's manifest: a file
        changed since, a table left by another run, a save that was interrupted).
        """
        out = Path(out_dir)
        manifest = files.read_manifest(out)  # ValueError names a damaged manifest
        if manifest is not None and manifest["kind"] != "run":
            kind = manifest["kind"]
            raise ValueError(f"{out}: not a run folder (holds {kind}, see its manifest)")
        if manifest is not None and not manifest.get("complete", False):
            raise ValueError(f"{out}: a save into it was interrupted; run the scenario again")
        for name in ("summary.json", "meta.json"):
            if not (out / name).is_file():
                raise FileNotFoundError(f"{out / name}: missing (is {out} an ndncc run directory?)")
        docs = {}
        for name in ("summary.json", "meta.json"):
            try:
                docs[name] = json.loads((out / name).read_text(encoding="utf-8"))
            except (ValueError, RecursionError) as e:  # bad JSON or not UTF-8
                raise ValueError(f"{out / name}: damaged JSON file ({e})") from e
            if not isinstance(docs[name], dict):
                raise ValueError(f"{out / name}: damaged (expected a JSON object)")
        summary, meta = docs["summary.json"], docs["meta.json"]
        frames = {}
        for attr, name in PARQUET_FILES.items():
            path = out / name
            if not path.is_file():
                raise FileNotFoundError(f"{path}: missing (run with trace.parquet = true)")
            try:
                frames[attr] = pd.read_parquet(path)
            except Exception as e:  # pyarrow raises several types for truncated files
                raise ValueError(f"{path}: unreadable Parquet file ({e})") from e
            table = name.removesuffix(".parquet")
            missing = [c for c in TABLE_COLUMNS[table] if c not in frames[attr].columns]
            if missing:
                raise ValueError(
                    f"{path}: not an ndncc {table} table (no column {missing[0]!r}); "
                    "run the scenario again"
                )
        for name in ("summary.json", "meta.json", *PARQUET_FILES.values()):
            problem = files.check_file(out, name, manifest)
            if problem:
                raise ValueError(f"{problem}; run the scenario again")
        try:
            return cls(
                summary=summary,
                meta=meta,
                apps=_apps_frame(summary),
                faces=_faces_frame(summary),
                scenario_name=summary.get("scenario", out.name),
                trace_options={"figures": True},
                **frames,
            )
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            # files of the wrong shape: swapped, edited, or from another tool
            raise ValueError(
                f"{out}: the run's files do not fit together ({type(e).__name__}: {e}); "
                "run the scenario again"
            ) from e

    def __repr__(self) -> str:
        return (
            f"Result(scenario={self.scenario_name!r}, consumers={len(self.apps)}, "
            f"faces={len(self.faces)}, bins={self.series['time_s'].nunique()}, "
            f"delays={len(self.delays)})"
        )

    @property
    def bin_s(self) -> float | None:
        """Width of the result bins in seconds: ``trace_options["bin_s"]`` (or ``bin_ns``)
        if given, else the end of the first bin in the tables; None without any bin."""
        opts = self.trace_options
        if opts.get("bin_s") is not None:
            return float(opts["bin_s"])
        if opts.get("bin_ns") is not None:
            return float(opts["bin_ns"]) / 1e9
        ends = [
            df["time_s"].min()
            for df in (self.face_series, self.node_series, self.series)
            if len(df)
        ]
        return float(min(ends)) if ends else None

    def summary_json(self) -> str:
        """``summary`` as written to summary.json: sorted keys, 2-space indent, final LF."""
        return json.dumps(self.summary, sort_keys=True, indent=2) + "\n"

    @property
    def run_id(self) -> str:
        """The run's identity in the manifest of its folders: SHA-256 of summary.json."""
        return hashlib.sha256(self.summary_json().encode("utf-8")).hexdigest()

    def save(self, out_dir: str | Path, *, force: bool = False) -> list[Path]:
        """Write the run's files into ``out_dir`` (created if needed); return their paths.

        Always ``summary.json``, ``meta.json`` and ``ndncc-manifest.json`` (the files ndncc
        wrote there and their SHA-256, see ``ndncc.files``). Then, by ``trace_options``:
        ``parquet`` (default True) → app_series / face_series / node_series / delays
        ``.parquet``; ``rate_trace`` (period in s, ``True`` = 0.5 s, default off) →
        ``rate-trace.txt``; ``app_delays_trace`` (default False) → ``app-delays-trace.txt``;
        ``drop_trace`` / ``cs_trace`` (periods, default off) → ``drop-trace.txt`` /
        ``cs-trace.txt``; ``figures`` (default True) → PNG figures (see ``ndncc.plots``).

        A folder that holds an earlier run's files (by its manifest) has them replaced: files
        the new run does not write (figures, tables) are removed. A folder holding files
        ndncc did not write raises ``ndncc.files.FolderInUseError`` unless ``force`` (then
        files of the same names are replaced and the others kept). Everything is written
        beside and moved into place at the end: a failure or a signal midway leaves the
        earlier contents whole.
        """
        check_kind(Path(out_dir), "run", "out_dir")
        return files.save_staged(out_dir, self._write_all, kind="run", run=self.run_id, force=force)

    def _write_all(self, out: Path) -> list[Path]:
        opts = self.trace_options
        summary_path = out / "summary.json"
        summary_path.write_text(self.summary_json(), encoding="utf-8", newline="\n")
        meta_path = out / "meta.json"
        meta_path.write_text(
            json.dumps(self.meta, sort_keys=True, indent=2) + "\n", encoding="utf-8", newline="\n"
        )
        written = [summary_path, meta_path]
        if opts.get("parquet", True):
            written += [
                _write_parquet(getattr(self, attr), out / name)
                for attr, name in PARQUET_FILES.items()
            ]
        written += self._write_traces(out)
        if opts.get("figures", True):
            from . import plots

            written += plots.plot_result(self, out)
        return written

    def _write_traces(self, out: Path) -> list[Path]:
        """Write the ndnSIM-compatible trace files ``trace_options`` asks for."""
        opts = self.trace_options
        written = []
        period = _trace_period(opts.get("rate_trace"))
        if period is not None:
            written.append(
                traces.write_rate_trace(
                    out / "rate-trace.txt",
                    self.face_series,
                    self.meta,
                    period,
                    self.bin_s,
                    node_series=self.node_series,
                )
            )
        if opts.get("app_delays_trace"):
            written.append(
                traces.write_app_delays_trace(out / "app-delays-trace.txt", self.delays, self.meta)
            )
        period = _trace_period(opts.get("drop_trace"))
        if period is not None:
            written.append(
                traces.write_drop_trace(
                    out / "drop-trace.txt",
                    self.face_series,
                    self.meta,
                    period,
                    self.bin_s,
                )
            )
        period = _trace_period(opts.get("cs_trace"))
        if period is not None:
            written.append(
                traces.write_cs_trace(
                    out / "cs-trace.txt",
                    self.node_series,
                    self.meta,
                    period,
                    self.bin_s,
                )
            )
        return written

    def plot(
        self, out_dir: str | Path | None = None, show: bool = False, *, force: bool = False
    ) -> list[Path]:
        """Draw the standard figures (``ndncc.plots``): save PNGs into ``out_dir`` when
        given (returning their paths), and display them with pyplot when ``show``.

        ``out_dir`` may be this run's own folder (its figures are replaced), an empty folder,
        or one that holds figures ndncc drew (replaced); any other folder raises
        ``ndncc.files.FolderInUseError`` unless ``force`` (see ``save``)."""
        from . import plots

        paths = []
        if out_dir is not None:
            paths = files.save_staged(
                out_dir,
                lambda stage: plots.plot_result(self, stage),
                kind="figures",
                run=self.run_id,
                force=force,
                replaces=lambda name: name.endswith(".png"),
            )
        if show:
            plots.show_result(self)
        return paths
