"""What an output folder already holds, so that one kind of result is never written into another
kind's folder (a run's files into a sweep's result store, a reproduction into a run's folder).

A folder's kind is first what its manifest says (``ndncc-manifest.json``, :mod:`ndncc.files`:
``run``, ``figures`` — figures drawn into a folder of their own — or ``reproduction``); a folder
without one (a result store, or one written before manifests) is told by the files each command
writes at its top:

* ``run`` — ``summary.json`` (``ndncc run``, :meth:`ndncc.Result.save`);
* ``sweep`` — ``sweep.json`` (``ndncc sweep``: a result store with its spec);
* ``reproduction`` — ``comparison.csv`` (``ndncc reproduce``);
* ``store`` — ``campaign.json`` or ``runs/`` without either of the two above: a result store
  that a sweep or a reproduction began (both may go on with it).

:func:`check_kind` refuses to write one kind into a folder of another.
"""

from __future__ import annotations

from pathlib import Path

from .files import read_manifest

KINDS = ("run", "sweep", "reproduction")
_WHAT = {
    "run": "a run's results (summary.json)",
    "sweep": "a sweep's result store (sweep.json, runs/)",
    "reproduction": "a reproduction (comparison.csv, report.md)",
    "store": "a result store (campaign.json, runs/)",
}
_WRITER = {"run": "a run", "sweep": "a sweep", "reproduction": "a reproduction"}


class FolderKindError(ValueError):
    """An output folder that holds another kind of result than the one to be written."""


def folder_kind(path: str | Path) -> str | None:
    """The kind of results `path` holds ("run", "sweep", "reproduction", "store"), or None
    (not a folder, empty, or none of them)."""
    path = Path(path)
    if not path.is_dir():
        return None
    try:
        manifest = read_manifest(path)
    except ValueError:
        manifest = None  # damaged: the files at the top still tell (the save names the damage)
    if manifest is not None and manifest["kind"] in ("run", "reproduction"):
        return manifest["kind"]
    if (path / "summary.json").is_file():
        return "run"
    if (path / "comparison.csv").is_file():
        return "reproduction"
    if (path / "sweep.json").is_file():
        return "sweep"
    if (path / "campaign.json").is_file() or (path / "runs").is_dir():
        return "store"
    return None


def check_kind(path: str | Path, kind: str, flag: str = "--out") -> None:
    """Raises :class:`FolderKindError` when `path` holds results of another kind than `kind`
    (one of :data:`KINDS`; "reproductions": ``reproduce --all``'s folder, beside no kind)."""
    found = folder_kind(path)
    if found is None or found == kind:
        return
    if found == "store" and kind in ("sweep", "reproduction"):
        return
    writer = _WRITER.get(kind, "reproductions")
    raise FolderKindError(
        f"{flag} {path}: holds {_WHAT[found]}; the files of {writer} would mix with them "
        "(choose another folder)"
    )
