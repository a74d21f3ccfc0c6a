"""The scheme registry seen from Python: `ndncc schemes`, the generated parameter docs, and
defaults and bounds that come from the core's declarations only."""

import copy
import json
from pathlib import Path

import ndncc
import pytest
from ndncc import cli
from ndncc.scenario import Scenario, ScenarioError, schemes
from ndncc.schemes_doc import markdown

ROOT = Path(__file__).parent.parent

LINE = """
[scenario]
duration = "1s"
[[links]]
between = ["C", "R"]
bandwidth = "10Mbps"
delay = "10ms"
[[links]]
between = ["R", "P"]
bandwidth = "10Mbps"
delay = "10ms"
[nodes.R.schemes.sf]
initial_rate = 50
[[apps]]
node = "P"
kind = "producer"
prefix = "/p"
payload = "1250B"
[[apps]]
node = "C"
kind = "consumer"
prefix = "/p"
controller = "sf-aimd"
rate = 100
"""


def test_parameters_doc_is_generated_from_the_registry():
    doc = (ROOT / "docs" / "schemes" / "parameters.md").read_text(encoding="utf-8")
    assert doc == markdown(), "regenerate: ndncc schemes --markdown > docs/schemes/parameters.md"


def test_schemes_command(capsys):
    assert cli.main(["schemes", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in s["routers"]][:2] == ["sf", "mircc"]
    assert {"constant-rate", "fixed-window", "sf-aimd", "mircc"} <= {
        e["name"] for e in s["controllers"]
    }
    assert cli.main(["schemes", "sf"]) == 0
    assert "depth" in capsys.readouterr().out
    assert cli.main(["schemes", "nope"]) == 3
    assert "unknown scheme 'nope'" in capsys.readouterr().err


def test_resolved_defaults_are_the_registry_defaults():
    spec = Scenario.from_toml_str(LINE).resolve()
    sf = next(n for n in spec["nodes"] if n["name"] == "R")["schemes"]["sf"]
    params = schemes.routers()["sf"]["params"]
    # data_size's default, "producers", is resolved to what the producer sends
    derived = {"initial_rate": 50.0, "data_size": 1250}
    assert sf == {p["name"]: p["default"] for p in params} | derived


def test_a_default_changed_in_core_is_the_one_a_run_uses(monkeypatch):
    """Python keeps no copy of a default: change the one the core exports and both the resolved
    spec and the run follow."""
    changed = copy.deepcopy(schemes.schema())
    sf = next(e for e in changed["routers"] if e["name"] == "sf")
    depth = next(p for p in sf["params"] if p["name"] == "depth")
    depth["default"] = 2.0
    monkeypatch.setattr(schemes, "schema", lambda: changed)
    spec = Scenario.from_toml_str(LINE).resolve()
    assert next(n for n in spec["nodes"] if n["name"] == "R")["schemes"]["sf"]["depth"] == 2.0
    shallow = ndncc.run(Scenario.from_toml_str(LINE))
    monkeypatch.undo()
    deep = ndncc.run(Scenario.from_toml_str(LINE))
    # R's bucket starts leaking at 50/s under 100 Interests/s: a 2-deep bucket refuses some
    # (and the consumer halves its rate), a 50-deep one absorbs the excess for the whole second
    assert shallow.summary["apps"][0]["nacks_received"] > 0
    assert deep.summary["apps"][0]["nacks_received"] == 0


def test_bounds_come_from_the_registry(monkeypatch):
    changed = copy.deepcopy(schemes.schema())
    sf = next(e for e in changed["routers"] if e["name"] == "sf")
    depth = next(p for p in sf["params"] if p["name"] == "depth")
    depth["kind"]["min"] = 100.0
    monkeypatch.setattr(schemes, "schema", lambda: changed)
    with pytest.raises(ScenarioError, match="depth: must be at least 100"):
        text = LINE.replace("[nodes.R.schemes.sf]", "[nodes.R.schemes.sf]\ndepth = 50")
        Scenario.from_toml_str(text).resolve()


def test_rust_checks_the_same_bounds_for_a_hand_written_spec():
    spec = Scenario.from_toml_str(LINE).resolve()
    next(n for n in spec["nodes"] if n["name"] == "R")["schemes"]["sf"]["decrease"] = 1.5
    with pytest.raises(ValueError, match="schemes.sf.decrease"):
        ndncc._core.run(json.dumps(spec), None, False)
