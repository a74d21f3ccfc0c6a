"""Writes reproduction tables into Markdown docs from the runs, so no number is typed by hand.

A doc marks each generated block with a pair of comments::

    <!-- BEGIN GENERATED sf-clock: linear; linear, Fig. 4-5 -->
    (anything here is replaced)
    <!-- END GENERATED -->

``sf-clock`` names the reproduction, the text after the colon the experiments whose rows go in
the table (``;``-separated; ``*`` for all). The rows come from ``<results>/<paper>/comparison.csv``
and the provenance line from the report beside it::

    python -m ndncc.experiments.docgen --results results docs/schemes/sf.md docs/schemes/mircc.md

after ``ndncc reproduce <paper> --out results/<paper>`` for each paper the docs name.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

from .common import mark, parse_verdict

BEGIN = re.compile(r"<!-- BEGIN GENERATED (?P<paper>[\w-]+): (?P<what>.*?) -->")
END = "<!-- END GENERATED -->"


def read_rows(csv_path: Path) -> list[dict[str, str]]:
    with open(csv_path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def provenance(report: Path) -> str:
    """The report's line saying which command, commit and seed made the numbers."""
    if report.is_file():
        for line in report.read_text(encoding="utf-8").splitlines():
            if line.startswith("`ndncc reproduce"):
                return line
    return f"from {report.parent / 'comparison.csv'}"


def table(rows: list[dict[str, str]]) -> str:
    """The rows as Markdown; with an `experiment` column when they come from several."""
    several = len({r["experiment"] for r in rows}) > 1
    head = "| metric | condition | paper | expected (source) | ours | unit | tolerance | within |"
    if several:
        head = "| experiment " + head
    lines = [head, "|---" * head.count(" | ") + "|---|"]
    for r in rows:
        expected = f"{r['expected']} ({r['expected_source']})" if r["expected"] else "—"
        lines.append(
            ("| " + r["experiment"] + " " if several else "")
            + f"| {r['metric']} | {r['condition']} | {r['paper'] or '—'} | {expected} | "
            f"{r['ours']} | {r['unit']} | {r['tolerance']} | {mark(parse_verdict(r['within']))} |"
        )
    return "\n".join(lines)


def block(results: Path, paper: str, what: str) -> str:
    csv_path = results / paper / "comparison.csv"
    if not csv_path.is_file():
        raise FileNotFoundError(
            f"{csv_path}: run `ndncc reproduce {paper} --out {results / paper}`"
        )
    rows = read_rows(csv_path)
    wanted = [w.strip() for w in what.split(";")]
    if wanted != ["*"]:
        missing = [w for w in wanted if not any(r["experiment"] == w for r in rows)]
        if missing:
            raise ValueError(f"{csv_path}: no rows of experiment {missing[0]!r}")
        rows = [r for r in rows if r["experiment"] in wanted]
    return f"{table(rows)}\n\n_{provenance(results / paper / 'report.md')}_"


def update(doc: Path, results: Path) -> bool:
    """Rewrites every generated block of `doc`; True if the file changed."""
    text = doc.read_text(encoding="utf-8")
    out, pos = [], 0
    for m in BEGIN.finditer(text):
        if m.start() < pos:
            continue
        end = text.find(END, m.end())
        if end < 0:
            raise ValueError(f"{doc}: {m.group(0)} has no {END}")
        out += [text[pos : m.end()], "\n", block(results, m["paper"], m["what"]), "\n"]
        pos = end
    out.append(text[pos:])
    new = "".join(out)
    if new != text:
        doc.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ndncc.experiments.docgen", description=__doc__)
    p.add_argument("--results", default="results", help="folder of reproduction outputs")
    p.add_argument("docs", nargs="+", type=Path)
    args = p.parse_args(argv)
    for doc in args.docs:
        try:
            changed = update(doc, Path(args.results))
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 3
        print(f"{doc}: {'updated' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
