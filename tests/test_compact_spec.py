"""The compact form of a resolved spec's long lists (ndncc.scenario.compact, read by
crates/sim/src/compact.rs), and the deferred freeing of large runs (ndncc._core.settle)."""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time
from pathlib import Path

import ndncc
import pytest
from ndncc import Scenario, _core, bench, workloads
from ndncc.scenario.compact import MIN_ROWS, compact_spec

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted(p for p in (ROOT / "scenarios").rglob("*.toml") if "sweeps" not in p.parts)


def _specs():
    for p in SCENARIOS:
        yield p.relative_to(ROOT).as_posix(), lambda p=p: Scenario.load(p).resolve()
    for name in ("dumbbell-1000", "scale-10", "scale-1000"):
        yield name, lambda name=name: bench.scenario(name, ".").resolve()
    yield "isp-50", _isp


def _isp():
    with tempfile.TemporaryDirectory() as tmp:
        return workloads.isp(50, directory=tmp).resolve()


@pytest.mark.parametrize("name,make", list(_specs()), ids=[n for n, _ in _specs()])
def test_compact_form_reads_as_the_plain_one(name, make):
    spec = make()
    plain = _core.parse_spec(json.dumps(spec))
    # every list compact, however short, and the default threshold
    for min_rows in (1, MIN_ROWS):
        compact = compact_spec(spec, min_rows=min_rows)
        assert _core.parse_spec(json.dumps(compact)) == plain, min_rows
    assert spec == make(), "compact_spec does not change its argument"


def test_long_lists_are_compact_and_much_smaller():
    spec = bench.scenario("scale-1000", ".").resolve()
    compact = compact_spec(spec)
    for key in ("nodes", "links", "apps"):
        assert compact[key]["rows"] == len(spec[key])
    assert len(compact["apps"]["templates"]) == 2  # a consumer and a producer
    assert set(compact["apps"]["columns"]) == {"name", "node", "prefix"}
    assert len(json.dumps(compact)) * 8 < len(json.dumps(spec))


def test_records_that_differ_outside_the_columns_get_templates_of_their_own():
    rows = [{"name": f"n{i}", "strategy": "best-route", "schemes": {}} for i in range(4)]
    rows[2]["schemes"] = {"sf": {}}
    rows[3].pop("strategy")  # missing in one record: not a column, part of the templates
    out = compact_spec({"nodes": rows}, min_rows=1)["nodes"]
    assert out["rows"] == 4 and out["template"] == [0, 0, 1, 2]
    assert out["columns"] == {"name": ["n0", "n1", "n2", "n3"]}
    # records that all differ outside the columns stay a plain list
    rows = [{"name": f"n{i}", "cs_capacity": 0, "schemes": {"sf": {"x": i}}} for i in range(40)]
    assert compact_spec({"nodes": rows}, min_rows=1)["nodes"] is rows


def test_values_a_column_cannot_hold_stay_in_the_templates():
    # a negative integer or a bool is not an unsigned column value: such a field stays in its
    # records' templates, so the simulator reports it as it would in the plain form
    rows = [{"a": 0, "b": 1, "bandwidth_bps": 10, "delay_ns": d} for d in (5, -1, 5, 7)]
    rows += [{"a": 0, "b": 1, "bandwidth_bps": b, "delay_ns": 5} for b in (True, 10)]
    out = compact_spec({"links": rows}, min_rows=1)["links"]
    assert "columns" not in out  # a and b are the same in every record: no column at all
    assert [out["templates"][t]["delay_ns"] for t in out["template"]] == [5, -1, 5, 7, 5, 5]


def test_a_compact_run_gives_the_plain_runs_outputs():
    spec = workloads.dumbbell(40).resolve()
    plain = _core.run(json.dumps(spec), None, True)
    compact = _core.run(json.dumps(compact_spec(spec, min_rows=1)), None, True)
    assert compact["summary"] == plain["summary"] and compact["meta"] == plain["meta"]
    assert compact["tables"] == plain["tables"]


@pytest.mark.parametrize(
    "nodes,message",
    [
        ({"rows": 2, "templates": [{"name": "A"}], "columns": {"name": ["A"]}}, "1 values"),
        ({"rows": 1, "templates": [{"name": "A"}], "columns": {"x": [1]}}, "cannot be a column"),
        ({"rows": 1, "templates": [{"name": "A"}], "template": [3]}, "template 3"),
        ({"rows": 1, "templates": [{"name": 5}]}, "invalid type"),
    ],
)
def test_a_bad_compact_list_is_a_one_line_value_error(nodes, message):
    spec = {"name": "t", "duration_ns": 10**9, "nodes": nodes}
    with pytest.raises(ValueError) as e:
        _core.run(json.dumps(spec), None, False)
    assert message in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError):
        _core.parse_spec(json.dumps(spec))


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def test_large_runs_are_freed_after_the_call_and_memory_does_not_grow():
    # 2 100 pairs: 4 202 nodes, over the deferral threshold (1 024 nodes)
    text = json.dumps(compact_spec(workloads.dumbbell(2100).resolve()))
    _core.settle()
    assert _core.settle() is None
    rss = []
    for _ in range(6):
        out = _core.run(text, None, False)
        assert out["phases"]["free_s"] >= 0
        freed = _core.settle()
        assert freed is not None and freed > 0  # there was a background drop, and it ended
        rss.append(_rss_kb())
    # the first runs set the allocator's high-water mark (a few MB more than freeing inline:
    # the second thread's arena); later ones reuse that memory. Without the freeing each run
    # would add its whole network, ≈ 20 MB at this size.
    assert max(rss[3:]) < max(rss[:3]) + 8_000, rss


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_process_forked_during_a_background_free_does_not_wait_for_it():
    # the child inherits the pending drop's handle but not its thread: joining it failed (a
    # panic, so a PanicException in the child; a hang is caught by the deadline below)
    text = json.dumps(compact_spec(workloads.dumbbell(2100).resolve()))
    _core.settle()
    for _ in range(3):
        _core.run(text, None, False)
        pid = os.fork()  # while the network is being freed (tens of ms)
        if pid == 0:
            code = 1
            try:
                _core.settle()
                _core.run(text, None, False)  # waits for the previous batch first
                _core.settle()
                code = 0
            finally:
                os._exit(code)
        deadline = time.monotonic() + 20  # the child needs well under a second
        while (status := os.waitpid(pid, os.WNOHANG)) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail("the forked child waited for its parent's free thread")
            time.sleep(0.01)
        assert os.waitstatus_to_exitcode(status[1]) == 0
        assert _core.settle() is not None


def test_small_runs_are_freed_within_the_call():
    _core.settle()
    ndncc.run(ROOT / "scenarios" / "icp" / "line.toml", tables=False)
    assert _core.settle() is None
