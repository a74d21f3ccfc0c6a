"""What `ndncc run` prints: validation warnings, unwrapped lines off a terminal, tables whose
numbers are never cut, progress while files are written."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from ndncc import cli
from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenarios" / "demo" / "dumbbell.toml"


def test_run_prints_the_warnings_validate_computes(tmp_path, capsys):
    # c3 and c4 start at 4 s and 6 s: after a 3 s run they never run
    code = cli.main(["run", str(DEMO), "--duration", "3s", "--out", str(tmp_path), "--no-figures"])
    assert code == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("warning:")]
    assert len(lines) == 2, err
    assert all("after the run ends" in ln and "it will not run" in ln for ln in lines)


def test_warnings_are_one_line_each_when_piped(tmp_path):
    long_out = tmp_path / ("a-rather-long-directory-name-" * 3)
    p = subprocess.run(
        [sys.executable, "-m", "ndncc.cli", "run", str(DEMO), "--duration", "3s"]
        + ["--out", str(long_out), "--no-figures"],
        capture_output=True,
        text=True,
        check=True,
    )
    warnings = [ln for ln in p.stderr.splitlines() if "warning:" in ln]
    assert len(warnings) == 2 and all(ln.rstrip().endswith("it will not run)") for ln in warnings)
    # the consumers line of the summary is not wrapped either
    assert any(
        ln.startswith("Jain fairness index") and "wall:" in ln for ln in p.stdout.splitlines()
    )


def big_result():
    app = {
        "name": "consumer-with-a-long-name",
        "node": "C1",
        "interests_sent": 123456789,
        "data_received": 123456780,
        "nacks_received": 9,
        "timeouts": 0,
        "throughput_mbps": 98765.432,
        "delivery_ratio": 0.99991,
        "delay_ms": {"mean": 12345.67, "p99": 23456.78},
    }
    summary = {"scenario": "big", "apps": [app], "events": 10**9, "wall_time_s": 1.0}
    return SimpleNamespace(summary=summary)


def test_consumer_tables_never_cut_numbers_in_80_columns():
    for width in (80, 132):
        buf = io.StringIO()
        console = Console(file=buf, width=width, highlight=False)
        cli._print_consumers(console, big_result())
        text = buf.getvalue()
        for number in ("123456789", "123456780", "98765.432", "0.9999", "12345.67", "23456.78"):
            assert number in text, (width, number, text)
        assert "…" not in text
        assert max(len(ln) for ln in text.splitlines()) <= width


def test_run_shows_progress_while_writing_files(tmp_path, monkeypatch):
    buf = io.StringIO()
    made = cli._console

    def console(stderr: bool = False):
        if stderr:
            return Console(file=buf, force_terminal=True, width=100)
        return made(stderr)

    monkeypatch.setattr(cli, "_console", console)
    assert cli.main(["run", str(DEMO), "--duration", "1s", "--out", str(tmp_path)]) == 0
    assert "writing tables and figures" in buf.getvalue()
    assert (tmp_path / "throughput.png").is_file()


def test_command_modules_import_shared_helpers_from_below_not_from_cli():
    """The craft rule: cli.py sits on top; its ``cli_*`` command modules take what they share
    from :mod:`ndncc.cli_common`, never from cli.py (a cycle that broke imports before)."""
    import ast
    from pathlib import Path

    pkg = Path(cli.__file__).parent
    for path in sorted(pkg.glob("cli_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module != "cli", f"{path.name} imports from cli.py"
