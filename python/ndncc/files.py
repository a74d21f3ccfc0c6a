"""The folders and files ndncc writes, and the check that what it reads back is what it wrote.

**The manifest.** A folder ndncc writes results into (a run's ``--out``, ``ndncc plot --out``,
a reproduction) gets ``ndncc-manifest.json``: what kind of folder it is (``run``, ``figures``,
``reproduction``), an id of the run it holds (the SHA-256 of its ``summary.json``), and the
SHA-256 and size of every file ndncc wrote there. With it:

* a new save into a folder replaces and removes only the files the manifest lists (an earlier
  run's figures never stay beside a new run's summary), and never touches the others;
* a folder that holds files but no manifest (the user's own, or another tool's) is refused
  unless the caller forces it (``--force``, ``force=True``): then the files ndncc writes
  replace those of the same names and the others are kept;
* a file read back that differs from its recorded hash (damaged, edited, or left by another
  run) is named instead of being used.

**Staged saves.** :func:`save_staged` writes everything into a staging folder
``.ndncc-save-<host>-<pid>-<nonce>`` inside the destination first and moves the files into place at
the end: a failure or a signal while writing leaves the earlier contents whole. SIGTERM,
SIGHUP and SIGINT while writing remove the staging folder before the process ends by the same
signal (or raises ``KeyboardInterrupt``); while the files are being moved into place (a few
renames) they wait until the move is done.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "MANIFEST",
    "DamagedFileWarning",
    "FolderInUseError",
    "check_file",
    "claim",
    "png_problem",
    "read_manifest",
    "record",
    "save_staged",
    "sha256",
]

MANIFEST = "ndncc-manifest.json"
FORMAT = 1
STAGE_PREFIX = ".ndncc-save-"
KINDS = ("run", "figures", "reproduction")


class DamagedFileWarning(UserWarning):
    """A result file that is damaged: named, and left out or recomputed."""


class FolderInUseError(FileExistsError):
    """An output folder that holds files ndncc did not write, or another run's."""


def sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# --------------------------------------------------------------------------------- manifest


def read_manifest(folder: str | Path) -> dict | None:
    """The folder's manifest; None without one. Raises ValueError naming a damaged one."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        raise ValueError(f"{path}: damaged ndncc manifest ({e})") from e
    files = data.get("files") if isinstance(data, dict) else None
    sizes = data.get("bytes", {}) if isinstance(data, dict) else None
    if (
        not isinstance(files, dict)
        or data.get("kind") not in KINDS
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
        or not isinstance(sizes, dict)
        or not all(type(v) is int for v in sizes.values())
    ):
        raise ValueError(f"{path}: damaged ndncc manifest (not the shape ndncc writes)")
    return data


def _write_manifest(folder: Path, manifest: Mapping[str, Any]) -> None:
    tmp = folder / f".{MANIFEST}.{os.getpid()}.tmp"
    text = json.dumps(manifest, sort_keys=True, indent=1) + "\n"
    tmp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(tmp, folder / MANIFEST)


def _manifest(
    kind: str,
    files: Mapping[str, str],
    run: str | None,
    complete: bool,
    folder: Path | None = None,
    **extra: Any,
) -> dict:
    """A manifest; with `folder`, the files' sizes too (``bytes``: a cheap first check)."""
    man = {
        "format": FORMAT,
        "kind": kind,
        "run": run,
        "complete": complete,
        "files": dict(sorted(files.items())),
        **extra,
    }
    if folder is not None:
        man["bytes"] = {n: (folder / n).stat().st_size for n in man["files"]}
    return man


def record(folder: str | Path, kind: str, paths: Iterable[str | Path], **extra: Any) -> Path:
    """Writes the manifest of files just written into `folder` (replacing any earlier one)."""
    folder = Path(folder)
    files = {Path(p).name: sha256(folder / Path(p).name) for p in paths}
    _write_manifest(folder, _manifest(kind, files, None, True, folder, **extra))
    return folder / MANIFEST


def check_file(
    folder: str | Path, name: str, manifest: Mapping[str, Any] | None, *, quick: bool = False
) -> str | None:
    """Why `folder/name` is not the file ndncc wrote there, or None (also None without a
    manifest: nothing to compare with). `quick`: by its size only, not its SHA-256."""
    if manifest is None:
        return None
    path = Path(folder) / name
    want = manifest["files"].get(name)
    if want is None:
        return f"{path}: not written with this result (ndncc's manifest does not list it)"
    if not path.is_file():
        return f"{path}: missing"
    size, written = path.stat().st_size, (manifest.get("bytes") or {}).get(name)
    if written is not None and size != written:
        return f"{path}: cut short or changed since ndncc wrote it ({size} bytes of {written})"
    if not quick and sha256(path) != want:
        return f"{path}: changed since ndncc wrote it (damaged, edited, or another run's)"
    return None


# --------------------------------------------------------------------------------- PNG


def png_problem(path: str | Path) -> str | None:
    """Why `path` is not a whole PNG file, or None: the signature, every chunk's length and
    CRC, IHDR first and IEND last (a truncated or altered file fails one of them)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return f"unreadable ({e.strerror or e})"
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "not a PNG file"
    at, first, kind = 8, True, b""
    while at < len(data):
        if at + 8 > len(data):
            return "truncated"
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        end = at + 8 + length + 4
        if end > len(data):
            return f"truncated in chunk {kind.decode('latin-1')}"
        body = data[at + 4 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : end])
        if zlib.crc32(body) != crc:
            return f"damaged (checksum of chunk {kind.decode('latin-1')} does not match)"
        if first and kind != b"IHDR":
            return "damaged (does not start with its header chunk)"
        first = False
        at = end
        if kind == b"IEND":
            break
    if kind != b"IEND":
        return "truncated (no end chunk)"
    if at != len(data):
        return "damaged (bytes after the end chunk)"
    return None


# --------------------------------------------------------------------------------- claiming


def _entries(folder: Path) -> list[str]:
    """What the folder holds, but staging folders of saves and the manifest's temporary."""
    return sorted(
        e
        for e in os.listdir(folder)
        if not e.startswith(STAGE_PREFIX) and not e.startswith(f".{MANIFEST}.")
    )


def claim(
    folder: str | Path, kind: str, *, force: bool = False, run: str | None = None
) -> dict[str, str]:
    """The files of `folder` a save of `kind` may replace (name → SHA-256; {} for an empty or
    missing folder). Raises FolderInUseError for a folder holding files ndncc did not write,
    or files of another kind, unless `force`; figures (`kind` "figures") go into a run folder
    only if it holds the same `run`."""
    return _claim(Path(folder), kind, force, run)[0]


def _claim(folder: Path, kind: str, force: bool, run: str | None) -> tuple[dict[str, str], str]:
    """claim(), and the kind the folder keeps (figures drawn into a run's folder leave it a
    run folder)."""
    if not folder.is_dir():
        return {}, kind
    try:
        man = read_manifest(folder)
    except ValueError as e:
        if not force:
            raise FolderInUseError(f"{e}; pass --force (force=True) to write into it") from e
        man = None
    if man is None:
        entries = _entries(folder)
        if entries and not force:
            shown = ", ".join(entries[:4]) + (", …" if len(entries) > 4 else "")
            raise FolderInUseError(
                f"{folder}: holds files ndncc did not write ({shown}; no {MANIFEST} lists "
                "them); choose another folder, or pass --force (force=True) to write into it "
                "anyway (files of the names ndncc writes are replaced, the others kept)"
            )
        return {}, kind
    theirs = man["kind"]
    if theirs == kind:
        return dict(man["files"]), kind
    if kind == "figures" and theirs == "run" and man.get("run") == run:
        return dict(man["files"]), theirs
    if force:  # the files listed become the user's: kept, unless of a name written now
        return {}, kind
    what = "another run's files" if theirs == "run" and kind == "figures" else f"a {theirs}"
    raise FolderInUseError(
        f"{folder}: holds {what} (see its {MANIFEST}); choose another folder, or pass "
        "--force (force=True) to write into it anyway"
    )


def _clean_dead_stages(folder: Path) -> None:
    """Removes staging folders this host's saves left when killed (SIGKILL) and gone."""
    from .procs import pid_alive

    host = socket.gethostname()
    for e in os.listdir(folder):
        if not e.startswith(STAGE_PREFIX):
            continue
        parts = e[len(STAGE_PREFIX) :].rsplit("-", 2)
        try:
            pid = int(parts[1])
        except (IndexError, ValueError):
            continue
        if parts[0] == host and pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(folder / e, ignore_errors=True)


# --------------------------------------------------------------------------------- signals


class _Terminated(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _SignalGuard:
    """While writing, SIGTERM / SIGHUP left at their default (ending the process) raise
    _Terminated instead, so that clean-up runs. After `defer()`, SIGTERM, SIGHUP and SIGINT
    wait for the end of the block whatever their handler (one the program installed too,
    e.g. the CLI's Ctrl-C handler); ignored ones stay ignored. On leaving the block the former
    handlers are back and a signal that arrived is delivered again (SIGTERM at its default
    then ends the process, as it would have). Only in the main thread: handlers live there."""

    SIGNALS = tuple(
        getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, n)
    )

    def __init__(self) -> None:
        self.old: dict[int, Any] = {}
        self.main = threading.current_thread() is threading.main_thread()
        self.deferring = False
        self.pending: list[int] = []

    def _handler(self, signum, frame) -> None:
        if self.deferring:
            self.pending.append(signum)
        elif signum == signal.SIGINT:
            raise KeyboardInterrupt
        else:
            raise _Terminated(signum)

    def defer(self) -> None:
        if self.deferring:
            return
        self.deferring = True
        if not self.main:
            return
        for sig in self.SIGNALS:
            now = signal.getsignal(sig)
            if sig not in self.old and now not in (signal.SIG_IGN, None):
                self.old[sig] = now
                signal.signal(sig, self._handler)

    def __enter__(self) -> _SignalGuard:
        if not self.main:
            return self
        for sig in self.SIGNALS:
            now = signal.getsignal(sig)
            if now in (signal.SIG_DFL, signal.default_int_handler):
                self.old[sig] = now
                signal.signal(sig, self._handler)
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self.deferring = True
        for sig, handler in self.old.items():
            signal.signal(sig, handler)
        again = list(dict.fromkeys(self.pending))
        if isinstance(exc, _Terminated):
            again.insert(0, exc.signum)
        for sig in again:
            signal.raise_signal(sig)  # the former handler: SIG_DFL ends the process
        if isinstance(exc, _Terminated):  # a handler that did not end the process
            raise SystemExit(128 + exc.signum) from None


# --------------------------------------------------------------------------------- saving


def save_staged(
    folder: str | Path,
    write: Callable[[Path], list[Path]],
    *,
    kind: str,
    run: str | None = None,
    force: bool = False,
    replaces: Callable[[str], bool] = lambda name: True,
) -> list[Path]:
    """Writes files into `folder` through a staging folder and records them in its manifest;
    returns their final paths.

    `write(stage)` writes the files into `stage` and returns their paths. Files of the former
    manifest for which `replaces(name)` holds are superseded: replaced, or removed when the
    new save does not write them; the manifest keeps the others. See :func:`claim` for which
    folders are refused and the module doc for signals."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    old, kind = _claim(out, kind, force, run)
    _clean_dead_stages(out)
    stage = out / f"{STAGE_PREFIX}{socket.gethostname()}-{os.getpid()}-{os.urandom(4).hex()}"
    with _SignalGuard() as guard:
        stage.mkdir()
        try:
            staged = write(stage)
            new = {p.relative_to(stage).as_posix(): sha256(p) for p in staged}
            guard.defer()
            kept = {n: h for n, h in old.items() if not replaces(n) and n not in new}
            # while files move, the manifest claims old and new ones, marked incomplete: an
            # interrupted move leaves a folder named as such, never one that looks whole
            _write_manifest(out, _manifest(kind, {**old, **new}, run, False))
            final = []
            for name in new:
                dest = out / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(stage / name, dest)
                final.append(dest)
            for name in old:
                if name not in new and name not in kept:
                    with contextlib.suppress(FileNotFoundError):
                        (out / name).unlink()
            kept = {n: h for n, h in kept.items() if (out / n).is_file()}  # gone since
            _write_manifest(out, _manifest(kind, {**kept, **new}, run, True, out))
        finally:
            guard.defer()
            shutil.rmtree(stage, ignore_errors=True)
    return final


@contextlib.contextmanager
def collected(category: type[Warning] = DamagedFileWarning) -> Iterator[list[str]]:
    """Collects the warnings of `category` raised in the block (as their texts)."""
    import warnings

    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", category)
        try:
            yield texts
        finally:
            for w in caught:
                if issubclass(w.category, category):
                    if str(w.message) not in texts:  # a file named twice is one damage
                        texts.append(str(w.message))
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
