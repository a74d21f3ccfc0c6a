"""Doc tables generated from a reproduction's comparison.csv (no number typed by hand)."""

from __future__ import annotations

import pytest
from ndncc.experiments import docgen
from ndncc.experiments.common import Row, write_comparison


def results(tmp_path):
    rows = [
        Row("linear", "throughput", "ideal", 8.75, 8.759, "Mbps", "±5 %", True),
        Row("linear", "rate", "x", None, 590.0, "/s", "±10 %", False, 600, "theory: C/n"),
        Row("other", "goodput", "y", None, 1.0, "Mbps", "reported", None),
    ]
    (tmp_path / "sf-clock").mkdir(parents=True)
    write_comparison(rows, tmp_path / "sf-clock" / "comparison.csv")
    (tmp_path / "sf-clock" / "report.md").write_text("# t\n\n`ndncc reproduce sf-clock` — 3 runs\n")
    return tmp_path


def test_blocks_are_replaced_from_the_csv_and_stay_stable(tmp_path):
    res = results(tmp_path / "res")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "intro\n<!-- BEGIN GENERATED sf-clock: linear -->\nstale 1.23\n<!-- END GENERATED -->\n"
        "middle\n<!-- BEGIN GENERATED sf-clock: * -->\n<!-- END GENERATED -->\nend\n"
    )
    assert docgen.update(doc, res)
    text = doc.read_text()
    assert "stale" not in text and text.startswith("intro\n") and text.endswith("end\n")
    first = text.split("middle")[0]
    assert "| throughput | ideal | 8.75 | — | 8.759 |" in first
    assert "| rate | x | — | 600 (theory: C/n) | 590 |" in first and "goodput" not in first
    everything = text.split("middle")[1]  # two experiments: a column names each row's
    assert (
        "| experiment | metric |" in everything
        and "|---|---|---|---|---|---|---|---|---|\n" in everything
    )
    assert "| other | goodput | y | — | — | 1 | Mbps | reported | — |" in everything
    assert "_`ndncc reproduce sf-clock` — 3 runs_" in text
    assert not docgen.update(doc, res)  # idempotent


def test_unknown_experiment_or_unclosed_block_is_an_error(tmp_path):
    res = results(tmp_path / "res")
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- BEGIN GENERATED sf-clock: nope -->\n<!-- END GENERATED -->\n")
    with pytest.raises(ValueError, match="nope"):
        docgen.update(doc, res)
    doc.write_text("<!-- BEGIN GENERATED sf-clock: linear -->\n")
    with pytest.raises(ValueError, match="END"):
        docgen.update(doc, res)
    assert docgen.main(["--results", str(res), str(doc)]) == 3
