"""CHoPCoP (seed 001) through the registry: REM marks on the bottleneck, RIC's window follows."""

from pathlib import Path

import ndncc
import pytest
from ndncc.scenario import Scenario, ScenarioError

BASELINE = Path(__file__).parent.parent / "scenarios" / "chopcop" / "baseline.toml"


def _short(**overrides):
    s = Scenario.load(BASELINE)
    return s.with_overrides(overrides={"scenario.duration": "12s", **overrides})


def test_baseline_marks_at_the_bottleneck_and_keeps_the_link_busy():
    r = ndncc.run(_short())
    app = r.summary["apps"][0]
    assert app["timeouts"] == 0
    assert app["throughput_mbps"] > 37.0  # of 40 Mbit/s, slow start included
    marks = {(f["node"], f["peer"]): f["marks"] for f in r.summary["faces"]}
    assert marks[("B", "C")] > 5, marks  # REM on B's queue towards C
    assert marks[("A", "B")] == 0  # the 200 Mbit/s link never queues
    w = r.series["window"].dropna().to_numpy()
    steady = w[len(w) // 3 :]
    assert 17 < steady.mean() < 30, steady.mean()  # paper: 23.27
    cuts = sum(1 for a, b in zip(w, w[1:], strict=False) if b < 0.9 * a)
    assert cuts >= 2, w
    # FISP is on but never delays here: Q stays below Q_min
    assert r.face_series["scheme_fisp_delayed"].fillna(0).max() == 0


def test_chopcop_keys_are_checked():
    s = Scenario.load(BASELINE)
    with pytest.raises(ScenarioError, match=r"beta1"):
        s.with_overrides(overrides={"apps[receiver].beta1": 0.9}).resolve()
    with pytest.raises(ScenarioError, match=r"q_min"):
        s.with_overrides(overrides={"defaults.node.schemes.chopcop.q_min": 0.5}).resolve()
    spec = s.resolve()
    assert spec["apps"][0]["app"]["controller"]["delta"] == 6.0


def _ictp(extra: str) -> Scenario:
    txt = BASELINE.read_text().replace(
        'controller = "chopcop"\nchunk_segments = 32\nmax_seq = 10000',
        'controller = "ictp"\nmax_seq = 320000\n' + extra,
    )
    return Scenario.from_toml_str(txt).with_overrides(overrides={"scenario.duration": "10s"})


def test_ictp_over_segments_slow_start_then_one_per_rtt():
    r = ndncc.run(_ictp("initial_ssthresh = 64"))
    app = r.summary["apps"][0]
    assert app["timeouts"] == 0 and app["data_received"] > 5_000
    w = r.series["window"].dropna().to_numpy()
    assert 64 <= w[10] < 80  # slow start stopped at ssthresh 64
    # congestion avoidance: about +1 per round trip (≈ 0.11 s) — ≈ +9 per second
    per_s = (w[-1] - w[10]) / ((len(w) - 11) * 0.1)
    assert 6 < per_s < 10, per_s


def test_ictp_keys_are_checked():
    with pytest.raises(ScenarioError, match=r"dup_threshold"):
        _ictp("dup_threshold = -1").resolve()


def _non_cooperative(rate: int, fisp: bool) -> Scenario:
    """Seed 001's Table I set-up: C asks 10 s of chunks at a constant rate, deaf to marks,
    never re-asks; a long lifetime, so FISP's delayed Interests do not expire."""
    txt = BASELINE.read_text().replace(
        'controller = "chopcop"',
        f'controller = "constant-rate"\nrate = {rate}',
    )
    txt = txt.replace("max_seq = 10000", f"max_seq = {rate * 10}")
    txt = txt.replace('lifetime = "4s"', 'lifetime = "60s"')
    txt = txt.replace(
        "\n[defaults.node.schemes.chopcop]\n",
        f"\n[defaults.node.schemes.chopcop]\nfisp = {str(fisp).lower()}\n",
    )
    return Scenario.from_toml_str(txt).with_overrides(overrides={"scenario.duration": "15s"})


def test_fisp_holds_interests_of_a_non_cooperative_receiver():
    runs = {fisp: ndncc.run(_non_cooperative(200, fisp)) for fisp in (True, False)}
    faces = {
        fisp: {(f["node"], f["peer"]): f for f in r.summary["faces"]} for fisp, r in runs.items()
    }
    # without FISP B's queue towards C overflows; with it, Q = q_d + q_i is held near
    # Q_min (1 040 KB), q_d (the queue) below it
    assert faces[False][("B", "C")]["drops"] > 1000
    assert faces[True][("B", "C")]["drops"] == 0
    assert 300_000 < faces[True][("B", "C")]["max_queue_bytes"] < 1_040_000
    f = runs[True].face_series
    f = f[(f["node_name"] == "B") & (f["peer_name"] == "C")]
    f = f[(f["time_s"] > 5) & (f["time_s"] <= 10)]  # while the receiver asks
    q = (f["queue_bytes"] + f["scheme_fisp_owed"]).mean()
    assert 0.85 * 1_040_000 < q < 1.15 * 1_040_000, q
    thr = {fisp: r.summary["apps"][0]["throughput_mbps"] for fisp, r in runs.items()}
    assert thr[True] > 34.0, thr  # 2 000 chunks in 15 s: 35 Mbit/s
    # every chunk complete with FISP; without, almost none (Table I: 100 % vs 1.91 %)
    apps = {fisp: r.summary["apps"][0] for fisp, r in runs.items()}
    ratio = {fisp: a["completed"] / a["requested"] for fisp, a in apps.items()}
    assert ratio[True] == 1.0 and ratio[False] < 0.2, ratio
    # the incomplete chunks wait for segments that never come: in flight, no outcome yet
    assert apps[False]["in_flight_at_end"] == apps[False]["requested"] - apps[False]["completed"]
    # below the bottleneck's 152 chunks/s FISP never acts
    calm = {
        fisp: ndncc.run(_non_cooperative(140, fisp)).summary["apps"][0] for fisp in (True, False)
    }
    assert calm[True] == calm[False]


def test_hbh_quota_caps_a_flow_at_quota_chunks_per_round_trip():
    txt = BASELINE.read_text().replace(
        "\n[defaults.node.schemes.chopcop]\n", "\n[defaults.node.schemes.hbh]\nquota = 4\n"
    )
    txt = txt.replace('controller = "chopcop"', 'controller = "icp"\ntau = "2s"')
    r = ndncc.run(
        Scenario.from_toml_str(txt).with_overrides(overrides={"scenario.duration": "10s"})
    )
    app = r.summary["apps"][0]
    # 4 chunks of 32 KB per 110 ms round trip ≈ 9.3 Mbit/s, whatever ICP's window
    assert 8.0 < app["throughput_mbps"] < 9.6, app
    assert app["timeouts"] == 0
    held = r.face_series.groupby("node_name")["scheme_hbh_queued"].max()
    assert held["C"] > 10  # C's Interests wait in its per-flow queue towards B


MULTI = BASELINE.parent / "multi-source.toml"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("share = 0.5\n", "share = 1.5\n", r"share: must be at most 1"),
        ("share = 0.5\n", "share = 0.7\n", r"add up to 1.2, more than 1"),
        ("share = 0.5\n", "placement_block = 32\n", r"placement_block: needs share"),
    ],
)
def test_producer_shares_are_checked(old, new, message):
    txt = MULTI.read_text().replace(old, new, 1)
    with pytest.raises(ScenarioError, match=message):
        Scenario.from_toml_str(txt).resolve()


def test_multi_source_chunks_come_from_both_sources():
    """Shares ½ / ½: each source serves about half the chunks, each chunk once."""
    r = ndncc.run(Scenario.load(MULTI).with_overrides(overrides={"scenario.duration": "3s"}))
    sent = {p["name"]: p["data_sent"] for p in r.summary["producers"]}
    app = r.summary["apps"][0]
    served = (sent["sourceA"] + sent["sourceB"]) / 32  # chunks
    # both sources get every Interest (multicast at C), only the holder answers: at most one
    # chunk per Interest, and every chunk received was served
    assert app["interests_sent"] >= served >= app["data_received"] / 32
    # (less those still on their way at the end)
    assert all(
        p["interests_received"] >= 0.9 * app["interests_sent"] for p in r.summary["producers"]
    )
    assert 0.35 < sent["sourceA"] / (sent["sourceA"] + sent["sourceB"]) < 0.65, sent
    assert app["timeouts"] == 0
