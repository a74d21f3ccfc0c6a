"""Result: decoding the native dict, DataFrames, deterministic summary.json and Parquet."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from fake_native import EXTRA_SUMMARY, FACES, make_native, make_result
from ndncc.results import PARQUET_FILES, TABLE_COLUMNS, Result, decode_table

NO_FILES = {"parquet": False, "figures": False}


def test_summary_merges_python_fields():
    result = make_result()
    for key, value in EXTRA_SUMMARY.items():
        assert result.summary[key] == value
    assert result.summary["scenario"] == "fake"
    assert result.summary["seed"] == 1
    assert result.meta["nodes"] == ["c1", "p1"]


def test_apps_and_faces_frames():
    result = make_result()
    assert result.apps.shape[0] == 1
    assert "delay_ms" not in result.apps.columns
    delay_cols = ["delay_ms_mean", "delay_ms_std", "delay_ms_p50", "delay_ms_p99"]
    assert set(delay_cols) <= set(result.apps.columns)
    assert result.apps.loc[0, "delay_ms_p50"] == 20.75
    assert list(result.faces["face"]) == [256, 257, 256, 257]
    assert result.faces.shape[0] == len(FACES)


def test_apps_with_null_delays_are_nan():
    native = make_native()
    summary = json.loads(native["summary"])
    summary["apps"][0]["delay_ms"] = {
        "mean": None,
        "std": None,
        "p50": None,
        "p99": None,
    }
    native["summary"] = json.dumps(summary)
    result = Result.from_native(native, scenario_name="fake", trace_options={}, extra_summary={})
    assert result.apps["delay_ms_mean"].dtype == np.float64
    assert result.apps["delay_ms_mean"].isna().all()


def test_series_names_and_derived_rates():
    series = make_result().series
    assert series.shape[0] == 3
    assert set(TABLE_COLUMNS["app_series"]) <= set(series.columns)
    assert list(series["app_name"]) == ["cons"] * 3
    assert list(series["node_name"]) == ["c1"] * 3
    # 8, 18, 29 Data of 1250 B in 100 ms bins: 0.8, 1.8, 2.9 Mbit/s.
    np.testing.assert_allclose(series["throughput_mbps"], [0.8, 1.8, 2.9])
    np.testing.assert_allclose(series["interest_rate"], [100.0, 200.0, 300.0])


def test_series_bin_width_uses_consecutive_times():
    native = make_native()
    raw = {"time_s": ("<f8", np.array([0.1, 0.2, 0.25]).tobytes())}
    native["tables"]["app_series"] = {**native["tables"]["app_series"], **raw}
    series = Result.from_native(
        native, scenario_name="x", trace_options={}, extra_summary={}
    ).series
    # The last bin is 50 ms long: 30 Interests in it are 600 Interests/s.
    np.testing.assert_allclose(series["interest_rate"], [100.0, 200.0, 600.0])


def test_face_series_sorted_and_named():
    fs = make_result().face_series
    assert fs.shape[0] == 12
    assert list(fs.columns[:8]) == [
        "time_s",
        "node",
        "node_name",
        "face",
        "descr",
        "kind",
        "peer_name",
        "in_interests",
    ]
    keys = list(zip(fs["node"], fs["face"], fs["time_s"], strict=True))
    assert keys == sorted(keys)
    first = fs.iloc[0]
    assert (first["node_name"], first["face"], first["kind"], first["peer_name"]) == (
        "c1",
        256,
        "net",
        "p1",
    )
    assert fs[fs["kind"] == "app"]["peer_name"].isna().all()


def test_face_series_accepts_meta_indices():
    """If the simulator wrote meta.faces indices in ``face``, ids are restored."""
    native = make_native()
    table = native["tables"]["face_series"]
    faces = np.frombuffer(table["face"][1], dtype=table["face"][0])
    nodes = np.frombuffer(table["node"][1], dtype=table["node"][0])
    index = {(f["node"], f["face"]): i for i, f in enumerate(FACES)}
    as_index = np.array([index[(n, f)] for n, f in zip(nodes, faces, strict=True)], "<u4")
    table["face"] = ("<u4", as_index.tobytes())
    by_index = Result.from_native(
        native, scenario_name="fake", trace_options={}, extra_summary={}
    ).face_series
    pd.testing.assert_frame_equal(by_index, make_result().face_series)


def test_node_series_and_delays():
    result = make_result()
    assert result.node_series.shape == (6, len(TABLE_COLUMNS["node_series"]) + 1)
    assert list(result.node_series["node_name"]) == ["c1"] * 3 + ["p1"] * 3
    assert result.delays.shape == (4, len(TABLE_COLUMNS["delays"]) + 2)
    assert list(result.delays["seq"]) == [0, 1, 2, 3]
    assert set(result.delays["app_name"]) == {"cons"}


def test_without_tables_frames_are_empty():
    result = make_result(tables=False)
    assert result.series.empty and result.face_series.empty
    assert result.node_series.empty and result.delays.empty
    assert set(TABLE_COLUMNS["face_series"]) <= set(result.face_series.columns)
    assert result.bin_s is None


def test_decode_table_checks_lengths_and_columns():
    cols = {
        "time_s": ("<f8", np.zeros(2).tobytes()),
        "app": ("<u4", np.zeros(3, "<u4").tobytes()),
    }
    with pytest.raises(ValueError, match="length"):
        decode_table(cols, ["time_s", "app"])
    with pytest.raises(ValueError, match="lacks"):
        decode_table({"time_s": cols["time_s"]}, ["time_s", "app"])


def test_bin_s_inferred_or_given():
    assert make_result().bin_s == pytest.approx(0.1)
    assert make_result({"bin_ns": 50_000_000}).bin_s == pytest.approx(0.05)


def test_summary_json_is_byte_identical(tmp_path):
    a = make_result(NO_FILES).save(tmp_path / "a")
    b = make_result(NO_FILES).save(tmp_path / "b")
    assert [p.name for p in a] == ["summary.json", "meta.json"] == [p.name for p in b]
    text = a[0].read_bytes()
    assert text == b[0].read_bytes()
    assert text.endswith(b"}\n")
    assert json.loads(text)["wall_time_s"] == EXTRA_SUMMARY["wall_time_s"]
    assert text.decode() == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"


def test_parquet_is_byte_identical_and_round_trips(tmp_path):
    opts = {"figures": False}
    a = make_result(opts).save(tmp_path / "a")
    make_result(opts).save(tmp_path / "b")
    names = sorted(PARQUET_FILES.values())
    assert sorted(p.name for p in a if p.suffix == ".parquet") == names
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    again = make_result(opts)
    again.save(tmp_path / "a")  # overwriting gives the same bytes too
    assert (tmp_path / "a" / names[0]).read_bytes() == (tmp_path / "b" / names[0]).read_bytes()
    back = pd.read_parquet(tmp_path / "a" / "app_series.parquet")
    assert list(back.columns) == list(again.series.columns)
    np.testing.assert_allclose(back["throughput_mbps"], again.series["throughput_mbps"])


def test_save_follows_trace_options(tmp_path):
    opts = {
        "parquet": False,
        "figures": False,
        "rate_trace": 0.1,
        "app_delays_trace": True,
    }
    paths = make_result(opts).save(tmp_path)
    assert [p.name for p in paths] == [
        "summary.json",
        "meta.json",
        "rate-trace.txt",
        "app-delays-trace.txt",
    ]
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    everything = make_result({"rate_trace": True, "drop_trace": 0.1, "cs_trace": 0.1})
    names = {p.name for p in everything.save(tmp_path / "all")}
    assert {
        "rate-trace.txt",
        "drop-trace.txt",
        "cs-trace.txt",
        "throughput.png",
    } <= names
    assert "app-delays-trace.txt" not in names
