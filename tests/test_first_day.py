"""What a newcomer meets on a first day (issue 26, item 7): docs that say what holds now and
lists that come from the registry, help examples that name real controllers, `ndncc schemes`
output, rich output that keeps square brackets, report wording, readable sweep figures."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import pandas as pd
import pytest
from ndncc import cli, schemes_doc
from ndncc.scenario import Scenario, ScenarioError, schemes

ROOT = Path(__file__).resolve().parents[1]


def text(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


# ---- docs --------------------------------------------------------------------------------------


def test_readme_says_what_holds_now():
    readme = text("README.md")
    for stale in ("coming with the real-time driver", "Next: CHoPCoP", "once registered"):
        assert stale not in readme, f"README still says {stale!r}"
    # what it claims instead exists: the daemon, the real-time apps, emulation
    assert (ROOT / "crates" / "rt" / "src" / "bin" / "ndnccd.rs").is_file()
    for command in ("consumer", "producer", "emulate"):
        assert f"ndncc {command}" in readme
        assert command in cli.build_parser()._subparsers._group_actions[0].choices
    # every reproduction the CLI knows is in its table
    from ndncc.experiments import PAPERS

    for paper in PAPERS:
        assert f"| `{paper}` |" in readme


def test_registry_lists_in_the_docs_are_current():
    """docs/scenario.md and docs/realtime.md name the router schemes from the registry (and
    realtime.md the ones emulation runs): regenerate with python -m ndncc.schemes_doc."""
    routers = [e["name"] for e in schemes.schema()["routers"]]
    for rel in schemes_doc.REGISTRY_DOCS:
        doc = text(rel)
        assert "<!-- REGISTRY routers -->" in doc, rel
        assert schemes_doc.fill_registry_blocks(doc) == doc, (
            f"regenerate: python -m ndncc.schemes_doc {rel}"
        )
        block = re.search(r"<!-- REGISTRY routers -->(.*?)<!--", doc)[1]
        assert re.findall(r"`([\w-]+)`", block) == routers
    assert "<!-- REGISTRY emulate-modules -->" in text("docs/realtime.md")


def test_realtime_doc_says_modules_take_scenario_units():
    doc = text("docs/realtime.md")
    assert "takes a scenario's keys **and units**" in doc
    block = doc[doc.index("[forwarder.module.sf]") :].split("\n\n")[0]
    assert re.search(r'= "\d+m?s"', block), "the example module writes a time with its unit"


def test_emulated_module_tables_are_written_in_scenario_units():
    """What `ndncc emulate` writes as [forwarder.module.<scheme>] reads back, through the
    scenario's own converters, as the resolved values: ndnccd is given scenario units."""
    from ndncc.emulate.plan import module_table

    for name, entry in schemes.routers().items():
        resolved = {p["name"]: p["example"] for p in entry["params"]}
        written = module_table(name, resolved)
        for p in entry["params"]:
            value = written[p["name"]]
            if p["kind"]["type"] in ("time", "size", "size_or") and p["example"]:
                assert isinstance(value, str) and value[-1] in "sB", (name, p["name"], value)
            assert schemes.converter(p)(value) == resolved[p["name"]], (name, p["name"])


def _paragraphs(doc: str) -> list[str]:
    doc = re.sub(r"```.*?```", "", doc, flags=re.S)  # code blocks repeat on purpose
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", doc) if len(p.split()) > 12]


@pytest.mark.parametrize("rel", ["docs/internals.md", "README.md", "docs/realtime.md"])
def test_no_sentence_is_said_twice(rel):
    """A paragraph's first sentence is not repeated in another paragraph (internals.md said
    what Python adds to summary.json twice)."""
    firsts = [re.split(r"(?<=[.:])\s", p)[0] for p in _paragraphs(text(rel))]
    repeated = {f for f in firsts if firsts.count(f) > 1 and len(f) > 40}
    assert not repeated, repeated
    heads = [p[:60] for p in _paragraphs(text(rel)) if not p.startswith("|")]
    assert len(heads) == len(set(heads)), [h for h in heads if heads.count(h) > 1]


def test_sieve_beta_gain_bound_is_declared_once():
    """The doc's bound is the validator's: (0, 1], from the declaration alone."""
    sieve = schemes.routers()["sieve"]
    beta = next(p for p in sieve["params"] if p["name"] == "beta_gain")
    assert schemes_doc.kind_text(beta) == "number in (0, 1]"
    assert "| `beta_gain` | number in (0, 1] |" in text("docs/schemes/parameters.md")
    convert = schemes.converter(beta)
    assert convert(1) == 1
    assert convert(0.25) == 0.25
    for bad in (1.01, 0, -1):
        with pytest.raises(Exception, match=r"\(0, 1\]"):
            convert(bad)


def test_beta_gain_above_one_is_refused_by_the_scenario():
    sc = Scenario.load(ROOT / "scenarios" / "sieve" / "dumbbell.toml")
    with pytest.raises(ScenarioError, match=r"beta_gain.*\(0, 1\]"):
        sc.with_overrides(overrides={"defaults.node.schemes.sieve.beta_gain": 1.5}).resolve()


# ---- help and `ndncc schemes` ------------------------------------------------------------------


def _help_texts() -> list[str]:
    parser = cli.build_parser()
    out = [parser.format_help()]
    for action in parser._subparsers._group_actions:
        for sub in action.choices.values():
            out.append(sub.format_help())
    return out


def test_help_names_only_registered_controllers():
    known = set(schemes.controllers())
    named = []
    for h in _help_texts():
        named += re.findall(r'controller\s*=\s*"?([a-z][\w-]*)', " ".join(h.split()))
    assert named, "the help shows a controller example"
    assert set(named) <= known, set(named) - known


@pytest.mark.parametrize("kind", ["consumer", "producer"])
def test_app_help_examples_resolve(kind):
    """Each KEY=VALUE example in consumer/producer --help is a valid app setting."""
    from ndncc.cli_apps import app_spec

    sub = cli.build_parser()._subparsers._group_actions[0].choices[kind]
    flat = " ".join(sub.format_help().split())
    example = flat.split("(docs/scenario.md), e.g. ")[1].split(" -")[0]
    for alternative in example.split(", or "):
        pairs = [w.rstrip(",") for w in alternative.split() if "=" in w]
        assert pairs, example
        app_spec(kind, "/p", pairs)  # raises on a bad example


def test_schemes_json_of_one_name_prints_only_it(capsys):
    assert cli.main(["schemes", "sf", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    names = {e["name"] for part in ("routers", "controllers", "components") for e in s[part]}
    assert names == {"sf"}
    assert cli.main(["schemes", "sieve", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert [len(s[p]) for p in ("routers", "controllers", "components")] == [1, 1, 1]
    assert cli.main(["schemes", "nope", "--json"]) == 3
    assert "unknown scheme 'nope'" in capsys.readouterr().err


def test_unknown_scheme_lists_each_name_once(capsys):
    assert cli.main(["schemes", "foo"]) == 3
    err = capsys.readouterr().err
    known = err.split("known: ")[1].strip().split(", ")
    assert len(known) == len(set(known)), known
    assert {"sf", "sieve", "icp", "constant-rate"} <= set(known)


def test_rich_output_keeps_square_brackets(capsys):
    assert cli.main(["schemes", "sf"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "[packets]" in out
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    cells = [["flow[1]", "R[a]"] + ["1"] * (len(cli._CONSUMER_COLUMNS) - 2)]
    for t in cli._consumer_tables(console, "run [x]", cells):
        console.print(t)
    shown = console.export_text()
    assert "flow[1]" in shown and "R[a]" in shown and "run [x]" in shown


# ---- reports and figures -----------------------------------------------------------------------


def test_report_md_counts_runs_and_jobs_in_words(tmp_path):
    from ndncc.experiments import write_report

    mod = types.SimpleNamespace(TITLE="t", PAPER="p", report_sections=lambda o, q: [])
    path = write_report(mod, [], [], {}, tmp_path, False, 1, 0.5, 1)
    head = path.read_text(encoding="utf-8")
    assert "1 run in" in head and "(1 job)" in head
    path = write_report(mod, [], [], {}, tmp_path, False, 3, 0.5, 2)
    assert "3 runs in" in path.read_text() and "(2 jobs)" in path.read_text()
    path = write_report(mod, [], [], {}, tmp_path, False, 3, 0.5, None)
    assert "(all jobs)" in path.read_text()


def _grid(n_lines: int) -> pd.DataFrame:
    rows = []
    for i in range(n_lines):
        for depth in (50, 100, 500):
            for seed in (1, 2):
                rows.append(
                    {
                        "defaults.node.schemes.sf.depth": depth,
                        "engine": f"e{i}",
                        "seed": seed,
                        "throughput_mbps": 1.0 + i + depth / 1000 + seed / 100,
                    }
                )
    return pd.DataFrame(rows)


def test_sweep_figures_label_axes_readably_and_tell_lines_apart():
    from matplotlib.colors import to_rgb
    from ndncc import report

    fig = report._metric_plot(
        _grid(8), "throughput_mbps", "defaults.node.schemes.sf.depth", ["engine"]
    )
    ax = fig.axes[0]
    assert ax.get_xlabel() == "sf depth, every node (Interests)"
    assert ax.get_ylabel() == "Throughput, all consumers (Mbit/s)"
    lines = ax.get_lines()
    assert len(lines) == 8
    looks = {(to_rgb(ln.get_color()), ln.get_marker(), ln.get_linestyle()) for ln in lines}
    assert len({c for c, _, _ in looks}) == 8  # eight colours
    assert len({m for _, m, _ in looks}) == 8  # and eight markers: apart also in greyscale


def test_line_styles_stay_distinct_for_many_lines():
    from matplotlib.colors import to_rgb
    from ndncc.labels import line_styles

    for n in (1, 8, 12, 20, 40):
        styles = line_styles(n)
        assert len({(s["marker"], s["linestyle"]) for s in styles}) == n
        if n <= 20:
            assert len({to_rgb(s["color"]) for s in styles}) == n


@pytest.mark.parametrize(
    "column, label",
    [
        ("delay_ms_mean", "Mean delay (ms)"),
        ("apps[c1].rate", "rate, app c1 (Interests/s)"),
        ("defaults.link.loss", "loss probability, every link"),
        ("nodes.R1.schemes.mircc.interval", "mircc interval, node R1"),
        ("engine", "engine"),
    ],
)
def test_axis_labels(column, label):
    from ndncc.labels import axis_label

    assert axis_label(column) == label


# ---- benches -----------------------------------------------------------------------------------


def test_benches_readme_puts_the_current_figures_first():
    readme = text("benches/README.md")
    heads = re.findall(r"^## (.+)$", readme, flags=re.M)
    assert heads[:2] == ["Current figures", "Reproducing them"], heads[:3]
    assert len(readme.splitlines()) < 400
    history = text("benches/HISTORY.md")
    assert "sitting" in history and "benches/HISTORY.md" in readme
