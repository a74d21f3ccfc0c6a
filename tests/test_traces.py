"""ndnSIM-compatible trace writers: formats, row order and EWMA arithmetic."""

from __future__ import annotations

import pytest
from fake_native import make_result
from ndncc import traces
from ndncc.traces import (
    APP_DELAYS_HEADER,
    FACE_TYPES,
    RATE_TRACE_HEADER,
    app_ids,
    fmt_g,
    write_app_delays_trace,
    write_rate_trace,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.5"),
        (1.0, "1"),
        (1, "1"),
        (0, "0"),
        (12.345678, "12.3457"),
        (1234567.0, "1.23457e+06"),
        (1e6, "1e+06"),
        (100000.0, "100000"),
        (123456.7, "123457"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (9.765625, "9.76562"),  # exactly halfway: round half to even, like glibc
        (1.171875, "1.17188"),
        (156.8, "156.8"),
        (-2.5, "-2.5"),
    ],
)
def test_fmt_g(value, text):
    assert fmt_g(value) == text


def _rate_lines(tmp_path, period_s, **kw):
    result = make_result()
    path = write_rate_trace(
        tmp_path / "rate-trace.txt",
        result.face_series,
        result.meta,
        period_s,
        result.bin_s,
        node_series=result.node_series,
        **kw,
    )
    lines = path.read_text().split("\n")
    assert lines[-1] == ""  # file ends with a newline
    return [line.split("\t") for line in lines[:-1]]


def _rows(lines, node, face, kind):
    return [r for r in lines[1:] if r[1] == node and r[2] == str(face) and r[4] == kind]


def test_rate_trace_header_and_order(tmp_path):
    lines = _rate_lines(tmp_path, 0.1)
    assert "\t".join(lines[0]) == RATE_TRACE_HEADER
    assert RATE_TRACE_HEADER.split("\t")[7] == "PacketRaw"
    assert all(len(r) == 9 for r in lines)
    # Blocks at 0.1, 0.2, 0.3 s. Block 1: c1 faces 256, 257 + c1 "all" rows (22), p1 face
    # 256 only (its app face and PIT are idle so far: ndnSIM prints them from their first
    # event on). Blocks 2 and 3: 22 rows per node.
    assert [r[0] for r in lines[1:]] == ["0.1"] * 32 + ["0.2"] * 44 + ["0.3"] * 44
    block1 = lines[1:33]
    assert [r[4] for r in block1[:10]] == [kind for kind, _, _ in FACE_TYPES]
    assert [(r[1], r[2], r[3]) for r in block1[::10][:2]] == [
        ("c1", "256", "netdev://[00:00:00:00:00:01]"),
        ("c1", "257", "appFace://"),
    ]
    assert [(r[1], r[2], r[3], r[4]) for r in block1[20:22]] == [
        ("c1", "-1", "all", "SatisfiedInterests"),
        ("c1", "-1", "all", "TimedOutInterests"),
    ]
    assert {(r[1], r[2]) for r in block1[22:]} == {("p1", "256")}
    block2 = lines[33:77]
    assert [(block2[i][1], block2[i][2]) for i in (0, 10, 20, 22, 32, 42)] == [
        ("c1", "256"),
        ("c1", "257"),
        ("c1", "-1"),
        ("p1", "256"),
        ("p1", "257"),
        ("p1", "-1"),
    ]


def test_rate_trace_ewma_hand_computed(tmp_path):
    lines = _rate_lines(tmp_path, 0.1)
    # c1 face 256 sends 10, 20, 30 Interests of 40 B in the three 100 ms periods:
    #   Packets   0.8*10/0.1 = 80;  0.8*200 + 0.2*80 = 176;  0.8*300 + 0.2*176 = 275.2
    #   Kilobytes 0.8*4000/1024 = 3.125;  6.25 + 0.625 = 6.875;  9.375 + 1.375 = 10.75
    #   raw KB    400/1024 = 0.390625;  800/1024 = 0.78125;  1200/1024 = 1.171875
    assert [r[5:] for r in _rows(lines, "c1", 256, "OutInterests")] == [
        ["80", "3.125", "10", "0.390625"],
        ["176", "6.875", "20", "0.78125"],
        ["275.2", "10.75", "30", "1.17188"],
    ]
    # 8 Data of 1250 B: 64 packets/s, 0.8*100000/1024 = 78.125 KB/s, 10000/1024 KB raw.
    assert _rows(lines, "c1", 256, "InData")[0][5:] == ["64", "78.125", "8", "9.76562"]
    # Satisfied rows carry no bytes; node rows: 8, 18, 29 satisfied PIT entries.
    assert _rows(lines, "c1", 256, "OutSatisfiedInterests")[0][5:] == [
        "64",
        "0",
        "8",
        "0",
    ]
    assert [r[5:] for r in _rows(lines, "c1", -1, "SatisfiedInterests")] == [
        ["64", "0", "8", "0"],
        ["156.8", "0", "18", "0"],
        ["263.36", "0", "29", "0"],
    ]
    # The idle-then-active producer face starts its EWMA from 0 in its first period.
    assert _rows(lines, "p1", 257, "OutInterests")[0][0] == "0.2"
    assert _rows(lines, "p1", 257, "OutInterests")[0][5:] == [
        "160",
        "6.25",
        "20",
        "0.78125",
    ]


def test_rate_trace_aggregates_bins_into_periods(tmp_path):
    lines = _rate_lines(tmp_path, 0.2)
    # One complete 200 ms period (the bin ending at 0.3 s starts an incomplete one).
    assert {r[0] for r in lines[1:]} == {"0.2"}
    # 30 Interests, 1200 B: 0.8*30/0.2 = 120 packets/s, 0.8*1200/0.2/1024 = 4.6875 KB/s.
    assert _rows(lines, "c1", 256, "OutInterests")[0][5:] == [
        "120",
        "4.6875",
        "30",
        "1.17188",
    ]
    assert _rows(lines, "c1", -1, "TimedOutInterests")[0][5:] == ["0", "0", "0", "0"]


def test_rate_trace_period_must_be_multiple_of_bin(tmp_path):
    with pytest.raises(ValueError, match="multiple"):
        _rate_lines(tmp_path, 0.15)
    with pytest.raises(ValueError, match="positive"):
        _rate_lines(tmp_path, 0.0)


def test_rate_trace_without_node_series(tmp_path):
    result = make_result()
    path = write_rate_trace(tmp_path / "r.txt", result.face_series, result.meta, 0.1, 0.1)
    assert "\tall\t" not in path.read_text()


def test_app_ids_follow_installation_order_per_node():
    meta = {"apps": [{"node": n} for n in [0, 1, 0, 0, 1]]}
    assert app_ids(meta) == [0, 0, 1, 2, 1]


def test_app_delays_trace(tmp_path):
    result = make_result()
    path = write_app_delays_trace(tmp_path / "d.txt", result.delays, result.meta)
    lines = path.read_text().split("\n")
    assert lines[0] == APP_DELAYS_HEADER
    assert lines[-1] == ""
    rows = lines[1:-1]
    assert len(rows) == 2 * len(result.delays)
    assert [r.split("\t")[4] for r in rows] == ["LastDelay", "FullDelay"] * 4
    # seq 2 was sent twice: last delay 30 ms, full delay 130 ms.
    assert rows[4:6] == [
        "0.15\tc1\t0\t2\tLastDelay\t0.03\t30000\t1\t1",
        "0.15\tc1\t0\t2\tFullDelay\t0.13\t130000\t2\t1",
    ]


def test_app_delays_trace_empty(tmp_path):
    result = make_result(delays=False)
    path = write_app_delays_trace(tmp_path / "d.txt", result.delays, result.meta)
    assert path.read_text() == APP_DELAYS_HEADER + "\n"


def test_drop_and_cs_traces(tmp_path):
    result = make_result()
    drop = (
        traces.write_drop_trace(tmp_path / "drop.txt", result.face_series, result.meta, 0.1, 0.1)
        .read_text()
        .splitlines()
    )
    assert drop[0] == traces.DROP_TRACE_HEADER
    assert len(drop) == 1 + 3 * 2
    # p1 drops one 1250 B packet in the second period: 0.8*1/0.1 = 8 packets/s.
    assert drop[4] == "0.2\tp1\tcombined\tDrop\t8\t9.76562\t1\t1.2207"
    assert drop[6] == "0.3\tp1\tcombined\tDrop\t1.6\t1.95312\t0\t0"
    cs = (
        traces.write_cs_trace(tmp_path / "cs.txt", result.node_series, result.meta, 0.2, 0.1)
        .read_text()
        .splitlines()
    )
    assert cs == [
        "Time\tNode\tType\tPackets\t",
        "0.2\tc1\tCacheHits\t0",
        "0.2\tc1\tCacheMisses\t30",
        "0.2\tp1\tCacheHits\t0",
        "0.2\tp1\tCacheMisses\t30",
    ]
