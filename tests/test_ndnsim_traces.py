"""ndnSIM's tracer files as `ndncc run` writes them, beside ndnSIM 2.8's own (issue 30 item 3):
an ndnSIM user's plotting script runs unchanged on both, and the columns, row layout, face
numbering and number formats are ndnSIM's. ndnSIM's side: the first 3 s of its
ndn-congestion-topo-plugin run (tests/data/ndnsim/, README there)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from ndncc import cli

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "ndnsim"
SCRIPT = DATA / "rate_graph.py"
THEIR_RATE = DATA / "topo-plugin-rate-trace-3s.txt.gz"
THEIR_DELAYS = DATA / "topo-plugin-app-delays-trace-3s.txt.gz"


@pytest.fixture(scope="module")
def ours(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ours")
    scenario = ROOT / "scenarios" / "ndnsim" / "ndn-congestion-topo-plugin.toml"
    argv = ["run", str(scenario), "--out", str(out), "--duration", "3s", "--no-figures", "-q"]
    assert cli.main(argv) == 0
    return out


def _script(rate: Path, delays: Path, out: Path, node: str, face: int) -> pd.DataFrame:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(rate), str(delays), str(out), node, str(face)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "rates.png").stat().st_size > 0 and (out / "face.png").stat().st_size > 0
    return pd.read_csv(out / "summary.csv")


def test_the_plotting_script_runs_unchanged_on_theirs_and_ours(ours, tmp_path):
    """Node Src1's face 258 is its app face in both (a script picks faces by ndnSIM id)."""
    theirs = _script(THEIR_RATE, THEIR_DELAYS, tmp_path / "theirs", "Src1", 258)
    mine = _script(
        ours / "rate-trace.txt", ours / "app-delays-trace.txt", tmp_path / "ours", "Src1", 258
    )
    assert list(theirs.columns) == list(mine.columns)
    assert list(theirs["Node"]) == list(mine["Node"]) == ["Src1", "Src2"]
    assert list(theirs["hops"]) == list(mine["hops"]) == [3, 3]
    # the app face hands the consumer every Data its net face received, in both
    assert theirs["face_in_data"].iloc[0] == 0 and mine["face_in_data"].iloc[0] == 0


def _table(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def _header(path: Path) -> str:
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return f.readline()


def _is_g(cell: str) -> bool:
    """Printed as C++'s default ostream << double (C's %g, 6 significant digits)."""
    return format(float(cell), "g") == cell


def test_rate_trace_columns_layout_and_formats_are_ndnsims(ours):
    mine_path = ours / "rate-trace.txt"
    assert _header(mine_path) == _header(THEIR_RATE)
    theirs, mine = _table(THEIR_RATE), _table(mine_path)
    assert list(theirs.columns) == list(mine.columns)
    for t in (theirs, mine):
        for col in ("Time", "Packets", "Kilobytes", "PacketRaw", "KilobytesRaw"):
            bad = t.loc[~t[col].map(_is_g), col]
            assert bad.empty, (col, bad.head().tolist())
        assert t["FaceId"].map(lambda s: s.lstrip("-").isdigit()).all()
    # the same Types in the same order for every face, and the node rows
    block = {name: t[t["Time"] == "2"] for name, t in (("theirs", theirs), ("mine", mine))}
    order = {
        name: b.groupby(["Node", "FaceId"], sort=False)["Type"].apply(tuple).unique().tolist()
        for name, b in block.items()
    }
    assert order["theirs"] == order["mine"]
    # ndnSIM 2.8's face numbering: every net and app face has the same id in both (theirs
    # also print NFD's internal faces 1, 2 and 256, which ndncc has not)
    faces = {}
    for name, b in block.items():
        real = b[b["FaceDescr"] != "internal://"]
        faces[name] = set(zip(real["Node"], real["FaceId"], real["FaceDescr"], strict=True))
    assert faces["theirs"] == faces["mine"]
    assert ("Src1", "257", "netdev://[00:00:00:00:00:01]") in faces["mine"]
    assert ("Src1", "258", "appFace://") in faces["mine"]
    assert ("Rtr1", "259", "netdev://[00:00:00:00:00:05]") in faces["mine"]
    # the node rows, face -1 "all"
    for t in (theirs, mine):
        all_rows = t[t["FaceId"] == "-1"]
        assert set(all_rows["FaceDescr"]) == {"all"}
        assert set(all_rows["Type"]) == {"SatisfiedInterests", "TimedOutInterests"}


def test_app_delays_trace_columns_and_formats_are_ndnsims(ours):
    mine_path = ours / "app-delays-trace.txt"
    assert _header(mine_path) == _header(THEIR_DELAYS)
    theirs, mine = _table(THEIR_DELAYS), _table(mine_path)
    assert list(theirs.columns) == list(mine.columns)
    for t in (theirs, mine):
        for col in ("Time", "DelayS", "DelayUS"):
            assert t[col].map(_is_g).all(), col
        for col in ("AppId", "SeqNo", "RetxCount", "HopCount"):
            assert t[col].str.isdigit().all(), col
        # a LastDelay row then a FullDelay row per Data; LastDelay's RetxCount is 1
        assert (t["Type"].iloc[::2] == "LastDelay").all()
        assert (t["Type"].iloc[1::2] == "FullDelay").all()
        assert (t.loc[t["Type"] == "LastDelay", "RetxCount"] == "1").all()
        assert set(t["Node"]) == {"Src1", "Src2"} and set(t["AppId"]) == {"0"}
