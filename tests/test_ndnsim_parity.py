"""ndnSIM parity (issue 30 item 2, issue 27 item 2): ndnSIM 2.8's congestion examples and the
seed-004 PCON dumbbell run through ndncc, every figure of docs/ndnsim-parity.md checked against
ndnSIM's (scenarios/ndnsim/reference/ndnsim-2.8.json, so /work/shared is not needed here).

Every row is either asserted within its tolerance or an expected failure (xfail, strict) with
its reason: the stall of PCON's C1 with 100-packet queues (issue 27), the start-up difference
we do not model, and the tail of one ConsumerCbr's delays; with `constant-rate` in the
ConsumerCbr scenario (read from the file) its rows are expected failures too. A row that
starts to hold makes its xfail fail ("XPASS(strict)"): move it to the asserted rows then.

The 30-second dumbbell is in the document only (CPU: the other runs take a few seconds).
"""

from __future__ import annotations

import dataclasses
import gzip

import numpy as np
import pandas as pd
import pytest
from ndncc.experiments import ndnsim_parity as parity
from ndncc.experiments.ndnsim_reference import consumer_figures, face_figures

TESTED = [r.name for r in parity.RUNS if r.name != "seed004-pcon-dumbbell-q100p-30s"]
RUNS = {r.name: r for r in parity.RUNS}
REF = parity.reference()["runs"]

CBR_RUN = "ndn-congestion-topo-plugin"
CBR_TAIL = (
    "phase (see test_cbr_tail_follows_the_phase): Src2's delays agree per number of sends, "
    "but 24 of our Data needed 5 or more sends against ndnSIM's 10, a count set by the two "
    "consumers' sub-millisecond phase at Rtr2's queue"
)
CBR = (
    "waits for ndnSIM's ConsumerCbr (controller ndnsim-cbr: RTO timeouts, re-send queue; "
    "issue 30 item 1): constant-rate never re-sends"
)
PCON = (
    "open (issue 27): with 100-packet queues every Data dropped at start-up is C1's (the two "
    "flows in lock-step), its RTO multiplier reaches 64 and it stalls; ndnSIM spreads the losses"
)
STARTUP = (
    "start-up not modelled (issue 30): ndnSIM's first Interest at 0 s never leaves the "
    "consumer's node and is answered after its re-send"
)
SPLIT = (
    "start-up not modelled (issue 30): ours starts 1 s earlier, one more second of Data and "
    "another phase of the two windows (their sum agrees)"
)
CONSUMER = ["data", "resent", "delay_mean_ms", "delay_p99_ms", "per_second"]
FACE = ["in_data", "out_interests"]


def _outside() -> dict[tuple[str, str, str], str]:
    """The rows beyond tolerance with today's code, and why."""
    out: dict[tuple[str, str, str], str] = {}

    def put(run: str, who: str, metrics: list[str], why: str) -> None:
        out.update({(run, who, m): why for m in metrics})

    def faces(run: str, whos: tuple[str, ...], metrics: list[str], why: str) -> None:
        for who in whos:
            node, mac = who.split()
            put(run, f"{node} netdev://[00:00:00:00:00:{mac}]", metrics, why)

    controllers = set(parity.consumer_controllers(RUNS[CBR_RUN]).values())
    if controllers == {"constant-rate"}:
        for who in ("Src1", "Src2"):
            put(CBR_RUN, who, CONSUMER, CBR)
        faces(CBR_RUN, ("Rtr2 08", "Rtr2 0a"), FACE, CBR)
        faces(CBR_RUN, ("Src1 01", "Src2 03"), ["in_data"], CBR)
    else:
        put(CBR_RUN, "Src2", ["delay_p99_ms"], CBR_TAIL)
    put("ndn-congestion-alt-topo-plugin", "c1", ["first_data_s"], STARTUP)
    for who in ("Src1", "Src2"):
        put("ndn-congestion-topo-plugin-pcon", who, ["first_data_s"], STARTUP)

    every_face = ("C1 01", "C2 03", "R1 05", "R2 07", "R2 09")
    run = "seed004-pcon-dumbbell-q100p-10s"
    put(run, "C1", CONSUMER + ["window_decreases", "longest_gap_s"], PCON)
    put(run, "C2", CONSUMER, PCON)
    faces(run, every_face, FACE, PCON)
    for queue, c1, c2, fs in (
        (200, ["data"], ["data"], every_face),
        (500, [], ["data"], ("C2 03", "R1 05", "R2 09")),
        (1000, ["data"], ["data"], every_face),
    ):
        run = f"seed004-pcon-dumbbell-q{queue}p-10s"
        put(run, "C1", c1, SPLIT)
        put(run, "C2", c2, SPLIT)
        faces(run, fs, FACE, SPLIT)
    for queue in (100, 200, 500, 1000):
        for who in ("C1", "C2"):
            put(f"seed004-pcon-dumbbell-q{queue}p-10s", who, ["first_data_s"], STARTUP)
    return out


OUTSIDE = _outside()


def _row_keys() -> list[tuple[str, str, str]]:
    """The rows each run's comparison produces (known from ndnSIM's side alone; the faces
    idle on ndnSIM's side are checked separately)."""
    keys = []
    for name in TESTED:
        empty = {"consumers": {}, "faces": {}}
        keys += [(r.run, r.who, r.metric) for r in parity.compare(RUNS[name], REF[name], empty)]
    return keys


KEYS = _row_keys()


@pytest.fixture(scope="module")
def rows() -> dict[tuple[str, str, str], parity.ParityRow]:
    by_run = parity.run_parity(TESTED)
    return {(r.run, r.who, r.metric): r for rs in by_run.values() for r in rs}


def _param(key):
    marks = [pytest.mark.xfail(strict=True, reason=OUTSIDE[key])] if key in OUTSIDE else []
    return pytest.param(key, marks=marks, id=" / ".join(key))


@pytest.mark.parametrize("key", [_param(k) for k in KEYS])
def test_row_within_tolerance(rows, key):
    r = rows[key]
    assert r.within, (
        f"{r.key}: ndnSIM {r.ndnsim}, ours {r.ours} ({r.difference}; tolerance {r.tolerance})"
    )


def test_every_row_is_judged_and_no_face_is_busy_only_in_ours(rows):
    assert set(rows) == set(KEYS)
    assert all(r.within is not None for r in rows.values())
    assert set(OUTSIDE) <= set(KEYS), sorted(set(OUTSIDE) - set(KEYS))


def test_low_load_data_within_two_percent(rows):
    """Issue 30's acceptance for the low-load example, said outright: ndnSIM 188 / 170 / 148 /
    130 Data, ours within 2 % per consumer."""
    run = "ndn-congestion-alt-topo-plugin"
    got = {c: rows[(run, c, "data")] for c in ("c1", "c2", "c3", "c4")}
    assert [got[c].ndnsim for c in got] == [188, 170, 148, 130]
    assert all(abs(r.ours / r.ndnsim - 1) <= 0.02 for r in got.values())


def test_low_load_delays_are_ndnsims_to_the_microsecond(rows):
    """Nothing queues in the low-load example, so each Data's delay is propagation plus
    serialisation: with the wire sizes measured from ndnSIM's runs (scenarios/ndnsim/), ours
    are ndnSIM's to the microsecond (p99: the start-up re-send does not reach it)."""
    run = "ndn-congestion-alt-topo-plugin"
    for c in ("c1", "c2", "c3", "c4"):
        r = rows[(run, c, "delay_p99_ms")]
        assert r.ours == pytest.approx(r.ndnsim, abs=1e-3), c


def test_every_row_beyond_tolerance_is_explained(rows):
    by_run: dict[str, list[parity.ParityRow]] = {}
    for r in rows.values():
        by_run.setdefault(r.run, []).append(r)
    for name, rs in by_run.items():
        controllers = parity.consumer_controllers(RUNS[name])
        for r in rs:
            if r.within is False:
                assert not parity.explain(r, controllers).startswith("unexplained"), r.key
    text = parity.markdown(by_run)
    assert "unexplained" not in text
    assert text.count("| ❌ |") == sum(r.within is False for r in rows.values())


def test_cbr_tail_follows_the_phase():
    """CBR_TAIL's claim: Src2's p99 follows the two consumers' sub-millisecond phase at Rtr2's
    queue, not a rule of the consumer. Beyond tolerance as the scenario stands (Src2's Data
    needing 5+ sends: 24 against ndnSIM's 10), within it with Src2 starting 0.5 ms later
    (14), and Src2 starves at 0.9 ms — while Data and mean delay stay close in the first two."""
    run, ref = RUNS[CBR_RUN], REF[CBR_RUN]
    theirs = ref["consumers"]["Src2"]
    tol = run.tolerances

    def src2(start: str | None) -> dict:
        overrides = dict(run.overrides) | ({"apps[Src2].start": start} if start else {})
        ours = parity.run_ours(dataclasses.replace(run, overrides=overrides), ref)
        return ours["consumers"]["Src2"]

    def p99(figures: dict) -> float:
        return figures["delay_p99_ms"] / theirs["delay_p99_ms"] - 1

    now, later, starved = src2(None), src2("500us"), src2("900us")
    assert p99(now) > tol.delay_p99
    assert abs(p99(later)) <= tol.delay_p99
    for figures in (now, later):
        assert abs(figures["data"] / theirs["data"] - 1) <= tol.data
        assert abs(figures["delay_mean_ms"] / theirs["delay_mean_ms"] - 1) <= tol.delay_mean
    assert starved["data"] < theirs["data"] / 2


def test_the_controller_is_read_from_the_scenario(tmp_path):
    """The ConsumerCbr scenarios name their controller in one key per consumer; the test and
    the generator read it from the file."""
    for name in ("ndn-congestion-topo-plugin", "ndn-congestion-alt-topo-plugin"):
        controllers = parity.consumer_controllers(RUNS[name])
        assert set(controllers.values()) <= {"constant-rate", "ndnsim-cbr"}, controllers
    root = parity.scenario_root()
    (tmp_path / "ndnsim").mkdir()
    for f in ("ndn-congestion-topo-plugin.toml", "topo-6-node.txt"):
        text = (root / "ndnsim" / f).read_text()
        (tmp_path / "ndnsim" / f).write_text(text.replace('"ndnsim-cbr"', '"fixed-window"'))
    got = parity.consumer_controllers(RUNS[CBR_RUN], tmp_path)
    assert got == {"Src1": "fixed-window", "Src2": "fixed-window"}


# ---- the reader of tracer files, on hand-made traces ---------------------------------------


def _delays(rows: list[tuple[float, str, int, float, int]]) -> pd.DataFrame:
    """AppDelayTracer rows (Time, Node, SeqNo, DelayS, RetxCount) with their LastDelay twins."""
    out = []
    for t, node, seq, delay, retx in rows:
        out.append((t, node, 0, seq, "LastDelay", 0.05, 50000.0, 1, 3))
        out.append((t, node, 0, seq, "FullDelay", delay, delay * 1e6, retx, 3))
    cols = ["Time", "Node", "AppId", "SeqNo", "Type", "DelayS", "DelayUS", "RetxCount", "HopCount"]
    return pd.DataFrame(out, columns=cols)


def test_consumer_figures_by_hand():
    d = _delays(
        [
            (0.5, "a", 0, 0.5, 3),  # sent three times
            (0.6, "a", 1, 0.1, 1),
            (1.9, "a", 2, 0.3, 2),
            (2.0, "a", 3, 0.1, 1),
            (0.2, "b", 0, 0.2, 1),
        ]
    )
    cwnd = pd.DataFrame(
        {"Time": [0.5, 0.6, 0.7, 1.0, 1.1, 1.2], "Node": "a", "Window": [2, 3, 4, 2, 3, 1.5]}
    )
    got = consumer_figures(d, 4, cwnd, until_s={"b": 3})
    a, b = got["a"], got["b"]
    assert (a["data"], a["resent"], a["resent_interests"]) == (4, 2, 3)
    assert a["delay_mean_ms"] == pytest.approx(250.0)
    assert a["delay_p99_ms"] == pytest.approx(np.percentile([500, 100, 300, 100], 99))
    assert a["first_data_s"] == 0.5
    assert a["longest_gap_s"] == pytest.approx(2.0)  # from the last Data (2.0 s) to the end, 4 s
    assert a["per_second"] == [2, 1, 1, 0]
    assert (a["window_decreases"], a["first_decrease_s"], a["largest_window"]) == (2, 1.0, 4)
    assert b["longest_gap_s"] == pytest.approx(2.8)  # b stops at 3 s
    assert "window_decreases" not in b


def test_a_window_trace_line_that_repeats_the_window_is_no_decrease():
    """ndnSIM's window trace can print the same window twice (a change it traces that keeps
    the value): only a smaller window is a decrease."""
    d = _delays([(0.5, "a", 0, 0.1, 1)])
    cwnd = pd.DataFrame({"Time": [0.5, 0.6, 0.7, 0.8], "Node": "a", "Window": [3, 3, 2, 2]})
    got = consumer_figures(d, 2, cwnd)["a"]
    assert (got["window_decreases"], got["first_decrease_s"]) == (1, 0.7)


def test_compare_by_hand():
    """Each row's figure, difference and verdict on made-up figures."""
    tol = parity.Tolerances(0.10, 0.25, 10, 0.15, 0.25, 0.25, 2, 0.10)
    run = parity.ParityRun("x", "none.toml", tol, (1, 3))

    def consumer(data, resent, mean, p99, per_second, dec, first, gap):
        return {
            "data": data,
            "resent": resent,
            "delay_mean_ms": mean,
            "delay_p99_ms": p99,
            "per_second": per_second,
            "window_decreases": dec,
            "first_data_s": first,
            "longest_gap_s": gap,
        }

    face = {"in_data": 100, "out_interests": 120}
    idle = {"in_data": 0, "out_interests": 0}
    ref = {
        "consumers": {"a": consumer(100, 40, 100.0, 200.0, [0, 10, 10, 5], 4, 1.0, 0.2)},
        "faces": {"R f1": face, "R f2": idle},
    }
    ours = {
        "consumers": {"a": consumer(111, 51, 85.0, 251.0, [3, 13, 7, 0], 7, 1.06, 0.31)},
        "faces": {"R f1": {"in_data": 109, "out_interests": 133}, "R f2": idle},
    }
    rows = {
        r.metric if r.who == "a" else (r.who, r.metric): r for r in parity.compare(run, ref, ours)
    }
    assert [(rows[m].difference, rows[m].within) for m in ("data", "resent")] == [
        ("+11.0%", False),  # 10 %
        ("+11", False),  # max(25 % of 40, 10) = 10
    ]
    assert (rows["delay_mean_ms"].within, rows["delay_p99_ms"].within) == (True, False)
    # seconds [1, 3): ndnSIM 10, 10 and ours 13, 7: RMS 3 over a mean of 10
    ps = rows["per_second"]
    assert (ps.ndnsim, ps.ours, ps.difference, ps.within) == (
        10,
        10,
        "RMS 30.0% over [1, 3) s",
        False,
    )
    assert (rows["window_decreases"].difference, rows["window_decreases"].within) == ("+3", False)
    assert (rows["first_data_s"].within, rows["longest_gap_s"].within) == (False, False)
    assert rows[("R f1", "in_data")].within and not rows[("R f1", "out_interests")].within
    assert ("R f2", "in_data") not in rows  # idle on both sides
    assert ("all consumers", "per_second") not in rows  # one consumer: nothing to add up


def test_face_figures_by_hand():
    rows = []
    for t, in_data in ((0.5, 4), (1.0, 6), (1.5, 10), (2.0, 2)):
        for kind, n in (("InData", in_data), ("OutInterests", in_data + 1)):
            rows.append((t, "R", 257, "netdev://[00:00:00:00:00:01]", kind, 0, 0, n, 0))
        rows.append((t, "R", 258, "appFace://", "InData", 0, 0, 99, 0))
    cols = ["Time", "Node", "FaceId", "FaceDescr", "Type", "Packets", "Kilobytes"]
    rate = pd.DataFrame(rows, columns=cols + ["PacketRaw", "KilobytesRaw"])
    period, faces = face_figures(rate, until_s=1.5)
    assert period == 0.5
    assert list(faces) == ["R netdev://[00:00:00:00:00:01]"]  # net faces only
    f = faces["R netdev://[00:00:00:00:00:01]"]
    assert (f["in_data"], f["out_interests"], f["out_data"]) == (20, 23, 0)  # blocks ≤ 1.5 s
    assert f["in_data_per_second"] == [10]  # whole seconds only: [0, 1)


def test_reference_figures_are_the_reference_readme_s():
    """The stored figures reproduce the table of ../shared/reference/ndnsim/README.md (Data,
    re-sent, first Data, longest gap, window decreases, first decrease, largest window)."""
    table = {
        "seed004-pcon-dumbbell-q100p-10s": {
            "C1": (5667, 143, 1.0627, 0.078, 4, 1.7500, 257),
            "C2": (4433, 91, 1.0635, 0.105, 4, 1.6994, 176),
        },
        "seed004-pcon-dumbbell-q200p-10s": {
            "C1": (5752, 232, 1.0627, 0.199, 4, 1.8500, 281),
            "C2": (4348, 1, 1.0635, 0.069, 5, 1.7671, 252),
        },
        "seed004-pcon-dumbbell-q500p-10s": {
            "C1": (6843, 67, 1.0627, 0.063, 5, 2.2066, 519),
            "C2": (3220, 9, 1.0635, 0.216, 6, 1.7671, 252),
        },
        "seed004-pcon-dumbbell-q1000p-10s": {
            "C1": (6150, 1, 1.0627, 0.063, 5, 2.2066, 519),
            "C2": (3950, 1, 1.0635, 0.216, 5, 1.7671, 252),
        },
        "seed004-pcon-dumbbell-q100p-30s": {
            "C1": (17158, 143, 1.0627, 0.078, 11, 1.7500, 257),
            "C2": (16241, 91, 1.0635, 0.105, 11, 1.6994, 176),
        },
    }
    keys = ["data", "resent", "first_data_s", "longest_gap_s", "window_decreases"]
    keys += ["first_decrease_s", "largest_window"]
    for run, consumers in table.items():
        for who, want in consumers.items():
            got = REF[run]["consumers"][who]
            assert [got[k] for k in keys] == pytest.approx(list(want), abs=6e-4), (run, who)
    ex = {
        "ndn-congestion-topo-plugin": {"Src1": (1287, 668), "Src2": (1045, 703)},
        "ndn-congestion-topo-plugin-pcon": {"Src1": (1136, 56), "Src2": (1070, 41)},
        "ndn-congestion-alt-topo-plugin": {
            "c1": (188, 1),
            "c2": (170, 0),
            "c3": (148, 0),
            "c4": (130, 0),
        },
    }
    for run, consumers in ex.items():
        for who, want in consumers.items():
            got = REF[run]["consumers"][who]
            assert (got["data"], got["resent"]) == want, (run, who)


def test_reading_a_gzip_trace_as_users_do(tmp_path):
    """read_trace reads the reference's gzip'd files and plain ones alike (pandas infers the
    compression from the name)."""
    from ndncc.experiments.ndnsim_reference import read_trace

    text = "Time\tNode\tWindow\n1.5\tC1\t2\n"
    (tmp_path / "w.txt").write_text(text)
    with gzip.open(tmp_path / "w.txt.gz", "wt") as f:
        f.write(text)
    a, b = read_trace(tmp_path / "w.txt"), read_trace(tmp_path / "w.txt.gz")
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["Time", "Node", "Window"]
