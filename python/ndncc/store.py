"""The result store of a sweep or a reproduction: one directory per run, and a Parquet index.

Layout of a store ``DIR`` (``docs/sweeps.md``)::

    DIR/campaign.json        ndncc version and git commit the store was made with
    DIR/runs/<key>/          one finished run: run.json (its manifest), summary.json, meta.json,
                             Parquet tables (and figures when asked for)
    DIR/failed/<key>.json    one failed run: its error (retried by the next sweep)
    DIR/index.parquet        one row per run: parameters, summary metrics, status
    DIR/timings.parquet      one row per run: wall time, when and where it ran
    DIR/.staging/            runs being written; DIR/.lock: held by the sweep writing here

A run's *key* hashes its resolved scenario, its seed and run and what is stored of it. A worker
writes the run under ``.staging/`` and renames the directory into ``runs/<key>`` as its last
step (``rename(2)`` is atomic): a run directory exists whole or not at all, so a sweep killed
at any instant loses no finished run and leaves nothing half-written that looks finished. The
index is derived from the run directories (a deleted ``index.parquet`` is rebuilt) and holds no
wall times, so the same runs give the same bytes whatever the number or order of workers.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from . import files
from .files import DamagedFileWarning
from .outcomes import delivery_ratio, total
from .procs import pid_alive

__all__ = ["Store", "StoreError", "load_sweep", "run_key", "summary_row"]

FORMAT = 1
#: summary fields per consumer summed over consumers (as numbers)
APP_SUMS = (
    "interests_sent",
    "data_received",
    "nacks_received",
    "timeouts",
    "retransmissions",
    "data_bytes",
    "throughput_mbps",
)
#: per-consumer fields copied as ``apps.<name>.<field>``
APP_FIELDS = (
    *APP_SUMS,
    "delivery_ratio",
    "loss_rate",
    "max_burst",
    "delay_ms_mean",
    "delay_ms_std",
    "delay_ms_p50",
    "delay_ms_p99",
)
TOP_FIELDS = ("sim_time_s", "events", "packet_hops", "link_losses", "fairness_jain")
FIRST_COLUMNS = ("key", "point", "status", "label", "scenario", "seed", "run")
LAST_COLUMNS = ("error", "ndncc_version", "git_commit", "scenario_hash", "command")
TIMING_FIELDS = ("wall_time_s", "finished_at", "host")


class StoreError(Exception):
    """A store that cannot be used as asked (another commit, another sweep writing, damage)."""


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def run_key(spec: Mapping[str, Any], outputs: Mapping[str, Any], seed: int, run: int) -> str:
    """The key of a run: sha256 of the canonical JSON of the resolved spec, the seed, the run
    and the stored outputs (Parquet, figures, traces), first 20 hex digits (80 bits)."""
    text = _canonical(
        {"format": FORMAT, "scenario": spec, "seed": seed, "run": run, "outputs": outputs}
    )
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _delivery_ratio(apps: list) -> float:
    """Sequence numbers delivered over those whose outcome is known, every consumer together
    (:mod:`ndncc.outcomes`, as each consumer's own ``delivery_ratio``); NaN when none is."""
    ratio = delivery_ratio(total(apps))
    return float("nan") if ratio is None else ratio


def summary_row(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The index's metric columns of one run: run-level summary fields, sums over consumers
    (throughput_mbps is the total), the overall delivery ratio, the Data-weighted mean delay,
    face totals (drops, marks, the largest queue) and ``apps.<name>.<field>`` per consumer."""
    row: dict[str, Any] = {k: summary.get(k) for k in TOP_FIELDS}
    apps = list(summary.get("apps") or [])
    for k in APP_SUMS:
        row[k] = sum(_num(a.get(k, 0)) for a in apps) if apps else float("nan")
    for k in (
        "interests_sent",
        "data_received",
        "nacks_received",
        "timeouts",
        "retransmissions",
        "data_bytes",
    ):
        row[k] = int(row[k]) if row[k] == row[k] else row[k]
    row["delivery_ratio"] = _delivery_ratio(apps)
    weights = [(a.get("data_received") or 0, (a.get("delay_ms") or {}).get("mean")) for a in apps]
    total = sum(w for w, m in weights if m is not None)
    row["delay_ms_mean"] = (
        sum(w * m for w, m in weights if m is not None) / total if total else float("nan")
    )
    faces = list(summary.get("faces") or [])
    row["drops"] = sum(int(f.get("drops", 0)) for f in faces)
    row["marks"] = sum(int(f.get("marks", 0)) for f in faces)
    row["max_queue_pkts"] = max((int(f.get("max_queue_pkts", 0)) for f in faces), default=0)
    for a in apps:
        flat = dict(a)
        for k, v in (a.get("delay_ms") or {}).items():
            flat[f"delay_ms_{k}"] = v
        for k in APP_FIELDS:
            if k in flat:
                row[f"apps.{a['name']}.{k}"] = _num(flat[k]) if k.startswith("delay") else flat[k]
    return row


def _write_json(path: Path, data: Any) -> None:
    """Writes JSON beside and renames it into place (never a half-written file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, sort_keys=True, indent=1, default=str) + "\n", "utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict | None:
    return _json_or_why(path)[0]


def _json_or_why(path: Path) -> tuple[dict | None, str]:
    """A JSON object from `path`, or None and why not ("missing", "damaged (…)")."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "missing"
    except (OSError, ValueError, RecursionError) as e:
        return None, f"damaged ({type(e).__name__}: {e})"
    if not isinstance(data, dict):
        return None, "damaged (not a JSON object)"
    return data, ""


def _record_or_why(path: Path, key: str) -> tuple[dict | None, str]:
    """A run's record (run.json, failed/<key>.json), or None and why it cannot be used."""
    rec, why = _json_or_why(path)
    if rec is not None and rec.get("key") != key:
        return None, f"damaged (names run {rec.get('key')!r}, not {key!r})"
    if rec is not None and rec.get("status") not in ("ok", "failed"):
        return None, "damaged (no status)"
    return rec, why


def damaged_record(key: str, problem: str) -> dict:
    """The record of a run whose files are damaged (`problem` names the file and what is
    wrong): reported as such, and recomputed by the next sweep."""
    return {
        "key": key,
        "status": "damaged",
        "damage": problem,
        "error": f"{problem}; the next sweep (or reproduction) into this store recomputes it",
    }


def _tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Columns Parquet can hold: a column mixing kinds of values (numbers and strings, say)
    becomes strings; lists and tables become JSON."""
    for col in df.columns:
        if df[col].dtype != object:
            continue
        vals = [v for v in df[col] if v is not None and v == v]
        kinds = {type(v) for v in vals}
        if kinds <= {int, float} and kinds:
            df[col] = pd.to_numeric(df[col])
        elif any(isinstance(v, dict | list | tuple) for v in vals):
            df[col] = [None if v is None else _canonical(v) for v in df[col]]
        elif len(kinds) > 1:
            df[col] = [None if v is None or v != v else str(v) for v in df[col]]
    return df


def _write_parquet(df: pd.DataFrame, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    table = pa.Table.from_pandas(df, preserve_index=False)
    pq.write_table(table, tmp, compression="zstd", compression_level=3)
    os.replace(tmp, path)


class Store:
    """A result store directory (see the module doc)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.failed = self.root / "failed"
        self.staging = self.root / ".staging"
        self.index_path = self.root / "index.parquet"
        self.timings_path = self.root / "timings.parquet"
        self.campaign_path = self.root / "campaign.json"
        self._lock_fd: int | None = None

    # ---- opening ------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.campaign_path.is_file() or self.runs.is_dir()

    def create(self, name: str, version: str, commit: str | None) -> dict:
        """Makes the directories and campaign.json (kept if present; a damaged one is named and
        written anew, its commits recomputed from the runs); returns campaign.json."""
        for d in (self.root, self.runs, self.failed, self.staging):
            d.mkdir(parents=True, exist_ok=True)
        info, why = _json_or_why(self.campaign_path)
        if info is None:
            commits = [commit]
            if why != "missing":
                runs = {r.get("git_commit") for r in self._records().values() if _counts(r)}
                commits = sorted(runs - {commit, None}) + [commit]
                warnings.warn(
                    f"{self.campaign_path}: {why}; written anew (its commits recomputed from "
                    "the runs; the store's creation time is lost)",
                    DamagedFileWarning,
                    stacklevel=2,
                )
            info = {
                "format": FORMAT,
                "name": name,
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "ndncc_version": version,
                "git_commit": commit,
                "commits": commits,
            }
            _write_json(self.campaign_path, info)
        elif info.get("format", FORMAT) != FORMAT:
            raise StoreError(f"{self.root}: a store of format {info.get('format')}, not {FORMAT}")
        return info

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Holds DIR/.lock for the time of a sweep: two sweeps never write into one store."""
        import fcntl

        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(
                f"{self.root}: another ndncc sweep is writing into this directory (wait for it, "
                "or choose another --out)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{socket.gethostname()} {os.getpid()}\n".encode())
        self._lock_fd = fd
        try:
            yield
        finally:
            self._lock_fd = None
            os.close(fd)

    def check_commit(self, version: str, commit: str | None, mix: bool) -> None:
        """Refuses to add runs of another commit (or version) to a store, unless `mix`."""
        info = _read_json(self.campaign_path) or {}
        seen = {
            (r.get("ndncc_version"), r.get("git_commit"))
            for r in self._records().values()
            if _counts(r)
        }
        seen.add((info.get("ndncc_version", version), info.get("git_commit", commit)))
        other = sorted({c or f"ndncc {v}" for v, c in seen if (v, c) != (version, commit)})
        if other and not mix:
            here = commit or f"ndncc {version}"
            raise StoreError(
                f"{self.root}: holds runs of {', '.join(other)}, and this is {here}: pass "
                "--mix-commits to add to them anyway, --fresh to discard them, or choose "
                "another --out"
            )
        if other:
            commits = list(info.get("commits") or [])
            if commit not in commits:
                info["commits"] = [*commits, commit]
                _write_json(self.campaign_path, info)

    def discard(self) -> None:
        """Removes every run, failure and index (``--fresh``); campaign.json is made anew."""
        for d in (self.runs, self.failed, self.staging):
            shutil.rmtree(d, ignore_errors=True)
        for f in (self.index_path, self.timings_path, self.campaign_path):
            f.unlink(missing_ok=True)

    def clean_staging(self) -> int:
        """Removes what killed runs left under .staging/ (this host's dead processes, or
        anything a day old); returns how many."""
        if not self.staging.is_dir():
            return 0
        host, n = socket.gethostname(), 0
        for entry in self.staging.iterdir():
            parts = entry.name.split(".")
            try:
                pid = int(parts[-2])
            except (IndexError, ValueError):
                pid = -1
            same_host = len(parts) >= 4 and ".".join(parts[1:-2]) == host
            age = time.time() - entry.stat().st_mtime
            if (same_host and not pid_alive(pid)) or age > 86400:
                shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink()
                n += 1
        return n

    # ---- runs -----------------------------------------------------------------------------

    def done(self, key: str) -> bool:
        return (self.runs / key / "run.json").is_file()

    def stage_dir(self, key: str) -> Path:
        """A fresh staging directory for a run: ``<key>.<host>.<pid>.<nonce>``."""
        self.staging.mkdir(parents=True, exist_ok=True)
        nonce = os.urandom(4).hex()
        d = self.staging / f"{key}.{socket.gethostname()}.{os.getpid()}.{nonce}"
        d.mkdir()
        return d

    def publish(self, stage: Path, key: str) -> bool:
        """Renames a complete staging directory to runs/<key>; False if the run was already
        there (another worker did it), in which case the staging copy is dropped."""
        self.runs.mkdir(parents=True, exist_ok=True)
        dest = self.runs / key
        if dest.exists() and not (dest / "run.json").is_file():
            shutil.rmtree(dest, ignore_errors=True)  # not a run: left by hand
        try:
            os.rename(stage, dest)
        except OSError:
            if not (dest / "run.json").is_file():
                raise
            shutil.rmtree(stage, ignore_errors=True)
            return False
        (self.failed / f"{key}.json").unlink(missing_ok=True)
        return True

    def record_failure(self, record: dict) -> None:
        self.failed.mkdir(parents=True, exist_ok=True)
        _write_json(self.failed / f"{record['key']}.json", record)

    def manifest(self, key: str) -> dict | None:
        return _read_json(self.runs / key / "run.json")

    def outcome_files(self, key: str) -> Path:
        return self.runs / key

    # ---- index ------------------------------------------------------------------------------

    def _records(self) -> dict[str, dict]:
        """Every run's record: run.json of finished runs, then failures not since finished, then
        runs whose record is damaged or missing (status "damaged", the file named in
        ``error``)."""
        out: dict[str, dict] = {}
        damaged: dict[str, dict] = {}
        if self.runs.is_dir():
            for d in sorted(os.listdir(self.runs)):
                if not (self.runs / d).is_dir():
                    continue
                rec, why = _record_or_why(self.runs / d / "run.json", d)
                if rec is not None:
                    out[d] = rec
                else:
                    damaged[d] = damaged_record(d, f"{self.runs / d / 'run.json'}: {why}")
        if self.failed.is_dir():
            for f in sorted(os.listdir(self.failed)):
                k = f.removesuffix(".json")
                if f.endswith(".json") and k not in out:
                    rec, why = _record_or_why(self.failed / f, k)
                    if rec is not None:
                        out[k] = rec
                        damaged.pop(k, None)
                    else:
                        damaged.setdefault(k, damaged_record(k, f"{self.failed / f}: {why}"))
        out.update((k, v) for k, v in damaged.items() if k not in out)
        return out

    def records(self) -> dict[str, dict]:
        return self._records()

    def write_index(self, records: Mapping[str, dict] | None = None) -> pd.DataFrame:
        """Writes index.parquet and timings.parquet from the records (all of the store's when
        None); returns the index."""
        records = self._records() if records is None else records
        index = index_frame(records)
        timings = pd.DataFrame(
            [{"key": k, **{f: records[k].get(f) for f in TIMING_FIELDS}} for k in sorted(records)],
            columns=["key", *TIMING_FIELDS],
        )
        self.root.mkdir(parents=True, exist_ok=True)
        _write_parquet(index, self.index_path)
        _write_parquet(_tidy(timings), self.timings_path)
        return index

    def read_index(self, records: Mapping[str, dict] | None = None) -> pd.DataFrame:
        """The index of the runs on disk, built from their records (all of the store's when
        None; index.parquet is what the last sweep wrote: a record damaged since would not
        show there). Each damaged record is a row of status "damaged" and a
        DamagedFileWarning naming its file."""
        records = self._records() if records is None else records
        for rec in records.values():
            if rec.get("status") == "damaged":
                warnings.warn(rec["error"], DamagedFileWarning, stacklevel=3)
        return index_frame(records)

    def discard_run(self, key: str) -> None:
        """Removes runs/<key> (a damaged run about to be recomputed): moved under .staging/
        first, so runs/ never holds a half-removed run."""
        d = self.runs / key
        if not d.exists():
            return
        trash = self.stage_dir(f"{key}-damaged")
        os.rename(d, trash)  # onto the empty staging directory
        shutil.rmtree(trash, ignore_errors=True)

    def damaged_files(self, records: Mapping[str, dict] | None = None) -> list[str]:
        """The store's files that cannot be read back, each named with what repairs it: its
        own files (campaign.json, sweep.json, index.parquet) by reading them, and the tables of
        every finished run (of `records`, all of the store's when None) by their sizes against
        the run's manifest (cheap; a same-size change is found where the table is read).
        Records (run.json) are named by ``read_index``."""
        records = self._records() if records is None else records
        out = []
        for path in (self.campaign_path, self.root / "sweep.json"):
            info, why = _json_or_why(path)
            if info is None and why != "missing":
                out.append(f"{path}: {why}; the next sweep into the store writes it anew")
        index = self.root / "index.parquet"
        if index.is_file():
            import pyarrow.parquet as pq

            try:
                pq.read_metadata(index)
            except Exception as e:  # noqa: BLE001 - pyarrow raises several types
                out.append(
                    f"{index}: unreadable Parquet file ({e}); the rows come from the runs' "
                    "records, and the next sweep into the store writes it anew"
                )
        for key, rec in sorted(records.items()):
            if rec.get("status") == "ok":
                problem = self.check_run(key, quick=True)
                if problem:
                    out.append(f"{problem}; the next sweep into the store recomputes the run")
        return out

    def check_run(self, key: str, names: Iterable[str] | None = None, quick: bool = False):
        """Why the files `names` (None: all its manifest lists) of finished run `key` cannot be
        read back, or None: by the run's manifest (``ndncc.files``; `quick`: by their sizes
        only) when it has one, else by reading them."""
        d = self.runs / key
        try:
            manifest = files.read_manifest(d)
        except ValueError as e:
            return str(e)
        if names is None:
            names = sorted(manifest["files"]) if manifest is not None else []
        for name in names:
            problem = files.check_file(d, name, manifest, quick=quick)
            if problem:
                return problem
            if manifest is None and not (d / name).is_file():
                return f"{d / name}: missing"
            if manifest is None and name.endswith(".json"):
                data, why = _json_or_why(d / name)
                if data is None:
                    return f"{d / name}: {why}"
            if manifest is None and name.endswith(".parquet"):
                import pyarrow.parquet as pq

                try:
                    pq.read_metadata(d / name)
                except Exception as e:  # noqa: BLE001 - pyarrow raises several types
                    return f"{d / name}: unreadable Parquet file ({e})"
        return None

    def timings(self) -> dict[str, float]:
        """Wall time in seconds of every run the store remembers (for longest-first order)."""
        out = {}
        if self.timings_path.is_file():
            try:
                df = pd.read_parquet(self.timings_path)
                out = {
                    k: float(w) for k, w in zip(df["key"], df["wall_time_s"], strict=True) if w == w
                }
            except Exception as e:  # noqa: BLE001 - pyarrow raises several types
                warnings.warn(
                    f"{self.timings_path}: damaged ({type(e).__name__}: {e}); the runs' wall "
                    "times are unknown (the next sweep into the store writes it anew)",
                    DamagedFileWarning,
                    stacklevel=2,
                )
        return out


def index_row(rec: Mapping[str, Any]) -> dict[str, Any]:
    row = {k: rec.get(k) for k in FIRST_COLUMNS}
    for k, v in (rec.get("params") or {}).items():
        row.setdefault(k, v)
    for k, v in (rec.get("metrics") or {}).items():
        row.setdefault(k, v)
    for k in LAST_COLUMNS:
        row[k] = rec.get(k)
    return row


def index_frame(records: Mapping[str, dict]) -> pd.DataFrame:
    """The index: one row per record, sorted by key; columns: FIRST_COLUMNS, the parameters,
    the metrics, LAST_COLUMNS."""
    rows = [index_row(records[k]) for k in sorted(records)]
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in FIRST_COLUMNS + LAST_COLUMNS})
    cols = list(FIRST_COLUMNS)
    for r in rows:
        cols += [c for c in r if c not in cols and c not in LAST_COLUMNS]
    cols += list(LAST_COLUMNS)
    df = pd.DataFrame(rows, columns=cols)
    return _tidy(df)


def _counts(rec: Mapping[str, Any]) -> bool:
    """Whether a record says which ndncc made it (a damaged one does not)."""
    return rec.get("status") != "damaged"


def load_sweep(path: str | Path) -> pd.DataFrame:
    """One row per run of a sweep's (or a reproduction's) result store: the parameters
    (one column per grid axis, plus seed and run), the summary metrics, the status and error,
    the version, commit and scenario hash, and the run's wall time (``wall_time_s``).

    A run whose record (``runs/<key>/run.json``) is damaged is a row of status ``damaged``
    whose ``error`` names the file, with a :class:`ndncc.files.DamagedFileWarning`; the next
    sweep into the store recomputes it."""
    store = Store(path)
    if not store.exists():
        raise FileNotFoundError(f"{path}: not an ndncc result store (no campaign.json, no runs/)")
    records = store.records()  # read once: the index and the check of the runs' files
    df = store.read_index(records)
    for problem in store.damaged_files(records):
        warnings.warn(problem, DamagedFileWarning, stacklevel=2)
    t = store.timings()
    df["wall_time_s"] = [t.get(k, float("nan")) for k in df["key"]]
    return df
