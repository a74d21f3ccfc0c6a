"""Bad input, the way a new user gives it: a few hundred cases run against the CLI and the
Python API, each classified by what the user gets back.

    .venv/bin/python benches/bad_inputs.py                 # every case, counts and the failures
    .venv/bin/python benches/bad_inputs.py --only flags    # one category (see --list)
    .venv/bin/python benches/bad_inputs.py --json out.json # every case's outcome as JSON

Categories: ``scenario`` (malformed TOML, wrong types, units, NaN, negative values, unknown keys),
``schemes`` (every parameter of every scheme table that ``ndncc schemes --json`` lists, given a
wrong value, and an unknown key per table), ``flags`` (every subcommand: an unknown flag and a
wrong value for each typed or chosen option, missing or wrong files), ``damaged`` (truncated or
garbage summary.json, run.json, campaign.json, index and run Parquet, comparison.csv, PNG),
``signals`` (SIGINT / SIGTERM mid-run, two SIGINTs to a sweep), ``api`` (the Python API with
wrong types and values), ``out`` (an --out folder that holds the user's own files, a reused
--out).

Outcomes, for an input that is wrong:

* **clear** — a non-zero exit with a message and no ``Traceback`` / ``panicked`` / ``internal
  error``, or exit 0 with a warning about it; from the API, an exception of a user-facing type
  (ValueError, TypeError, OSError, ScenarioError …) whose message is not an internal error;
* **traceback** — a traceback, a Rust panic or "internal error" (the API: an unexpected exception
  type such as AttributeError, KeyError or a panic);
* **silent** — exit 0 (the API: a return) with no warning, or a failure without a word, or a run
  that leaves a wrong state behind without saying so (stale figures, a staging folder);
* **hang** — no answer within the timeout;
* **data loss** — a file of the user's was changed or removed.

A few control cases (valid input) check that the harness itself works; they are not counted.
Light on the machine: one case at a time, 1-second scenarios, no figures unless a case needs
them, short timeouts. Not part of the test suite (``tests/test_bad_inputs_harness.py`` runs a
handful of cases and the classifier).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

OUTCOMES = ("clear", "traceback", "silent", "hang", "data loss")
CATEGORIES = ("scenario", "schemes", "flags", "damaged", "signals", "api", "out")
CRASH_MARKERS = ("Traceback", "panicked", "internal error", "PanicException", "bug in ndncc")
# exception types the API may raise at a user for bad input
CLEAR_EXCEPTIONS = {
    "ValueError",
    "TypeError",
    "FileNotFoundError",
    "NotADirectoryError",
    "IsADirectoryError",
    "FileExistsError",
    "PermissionError",
    "OSError",
    "ScenarioError",
    "FolderInUseError",
    "StoreError",
    "UnitError",
    "InputError",
    "ResultError",
    "EmulateError",
}

# messages that come from inside Python or a library, not from a check of the user's input
INTERNAL_MESSAGES = (
    "dictionary update sequence",
    "string pattern on a bytes-like",
    "has no attribute",
    "is not subscriptable",
    "is not iterable",
    "unsupported operand",
    "not supported between instances",
    "'NoneType'",
    "index out of range",
    "unhashable type",
    "object cannot be interpreted as",
    "argument must be",
)

TINY = """\
[scenario]
name = "tiny"
duration = "1s"

[[links]]
between = ["C", "R"]
bandwidth = "10Mbps"
delay = "5ms"

[[links]]
between = ["R", "P"]
bandwidth = "10Mbps"
delay = "5ms"

[[apps]]
name = "p"
node = "P"
kind = "producer"
prefix = "/p"
payload = "1000B"
"""

CONSUMER = """
[[apps]]
name = "c"
node = "C"
kind = "consumer"
prefix = "/p"
"""


def tiny(consumer: str = "rate = 100\n", extra: str = "", duration: str = "1s") -> str:
    """The 1-second line C–R–P with one consumer (its extra keys in `consumer`)."""
    return TINY.replace('"1s"', f'"{duration}"') + CONSUMER + consumer + extra


# ---------------------------------------------------------------------------------------------
# cases


@dataclass
class Case:
    category: str
    name: str
    argv: list[str] | None = None  # arguments after `ndncc`
    code: str | None = None  # Python API: statements; the last expression's value is shown
    files: dict[str, str | bytes] = field(default_factory=dict)  # written in the case's folder
    guard: list[str] = field(default_factory=list)  # the user's files: must stay as they were
    expect: str = "error"  # "error": bad input; "ok": a control case (valid input)
    setup: Callable[[Path], None] | None = None
    check: Callable[[Path, str], str | None] | None = None  # (folder, output) -> problem
    signals: list[tuple[float, int]] = field(default_factory=list)  # (after s, signal)
    timeout: float = 30.0


@dataclass
class Outcome:
    case: Case
    outcome: str
    reason: str
    rc: int | None
    output: str
    seconds: float


def classify(
    case: Case,
    rc: int | None,
    output: str,
    timed_out: bool,
    lost: list[str],
    problem: str | None,
) -> tuple[str, str]:
    """(outcome, reason) of one finished case; `output` is stdout + stderr, `lost` the user's
    files changed or removed, `problem` what the case's own check found."""
    if lost:
        return "data loss", "changed or removed: " + ", ".join(lost)
    if timed_out:
        return "hang", f"no answer in {case.timeout:g} s"
    crash = next((m for m in CRASH_MARKERS if m in output), None)
    if crash:
        return "traceback", f"output holds {crash!r}"
    if case.code is not None:
        if case.expect == "ok":
            returned = "\nRETURNED" in "\n" + output and not problem
            return ("clear", "control: ok") if returned else ("silent", "control failed")
        return _classify_api(output, problem)
    if problem:
        return "silent", problem
    if problem == "":  # the case's own check verified the outcome (a repair, a clean stop)
        return "clear", "verified: " + (first_line(output) or f"exit {rc}")
    if case.expect == "ok":
        return ("clear", "control: ok") if rc == 0 else ("silent", f"control failed ({rc})")
    if rc == 0:
        if "warning" in output.lower():
            return "clear", "warned"
        return "silent", "exit 0 without a warning"
    if not output.strip():
        return "silent", f"exit {rc} without a message"
    return "clear", first_line(output)


def _classify_api(output: str, problem: str | None) -> tuple[str, str]:
    lines = [ln for ln in output.splitlines() if ln.startswith(("RAISED ", "RETURNED", "WARNED"))]
    if not lines:
        return "traceback", "the interpreter died: " + first_line(output)
    last = lines[-1]
    if last.startswith("RAISED "):
        _, kind, message = (last.split(" ", 2) + [""])[:3]
        if kind not in CLEAR_EXCEPTIONS:
            return "traceback", f"{kind}: {message}"
        internal = next((m for m in INTERNAL_MESSAGES if m in message), None)
        if internal:
            return "traceback", f"{kind} from inside Python, not about the input: {message}"
        return "clear", f"{kind}: {message}"
    if problem:
        return "silent", problem
    if any(ln.startswith("WARNED") for ln in lines):
        return "clear", "warned"
    return "silent", "returned without a warning: " + last[len("RETURNED ") :]


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


# ---- scenario files -------------------------------------------------------------------------


def scenario_cases() -> list[Case]:
    good = tiny()
    texts: dict[str, str | bytes] = {
        "unclosed table header": good.replace("[scenario]", "[scenario"),
        "unterminated string": good.replace('"tiny"', '"tiny'),
        "duplicate key": good.replace('name = "tiny"', 'name = "tiny"\nname = "again"'),
        "invalid UTF-8": good.encode() + b"\n# \xff\xfe\n",
        "binary garbage": bytes(range(256)) * 4,
        "empty file": "",
        "only a comment": "# nothing here\n",
        "array nested 200 deep": good + "x = " + "[" * 200 + "]" * 200 + "\n",
        "duration without unit": good.replace('duration = "1s"', "duration = 5"),
        "duration true": good.replace('duration = "1s"', "duration = true"),
        "duration negative": good.replace('duration = "1s"', 'duration = "-1s"'),
        "duration nan": good.replace('duration = "1s"', "duration = nan"),
        "duration inf": good.replace('duration = "1s"', "duration = inf"),
        "duration zero": good.replace('duration = "1s"', 'duration = "0s"'),
        "duration 1000 years": good.replace('duration = "1s"', 'duration = "8760000h"'),
        "bandwidth a word": good.replace('bandwidth = "10Mbps"', 'bandwidth = "fast"', 1),
        "bandwidth in bytes unit": good.replace('"10Mbps"', '"10MB"', 1),
        "bandwidth zero": good.replace('"10Mbps"', '"0Mbps"', 1),
        "bandwidth nan": good.replace('bandwidth = "10Mbps"', "bandwidth = nan", 1),
        "delay negative": good.replace('delay = "5ms"', 'delay = "-5ms"', 1),
        "delay a rate": good.replace('delay = "5ms"', 'delay = "5Mbps"', 1),
        "loss above 1": good.replace('delay = "5ms"', 'delay = "5ms"\nloss = 2', 1),
        "loss negative": good.replace('delay = "5ms"', 'delay = "5ms"\nloss = -0.1', 1),
        "loss nan": good.replace('delay = "5ms"', 'delay = "5ms"\nloss = nan', 1),
        "queue zero": good.replace('delay = "5ms"', 'delay = "5ms"\nqueue = "0p"', 1),
        "queue without unit": good.replace('delay = "5ms"', 'delay = "5ms"\nqueue = 100', 1),
        "link to itself": good.replace('between = ["C", "R"]', 'between = ["C", "C"]'),
        "link with one end": good.replace('between = ["C", "R"]', 'between = ["C"]'),
        "link between a number": good.replace('between = ["C", "R"]', 'between = ["C", 5]'),
        "unknown top-level table": good + "\n[scenari]\nname = 'x'\n",
        "unknown key in a link": good.replace('delay = "5ms"', 'delay = "5ms"\nbandwith = 1', 1),
        "unknown key in an app": tiny("rate = 100\nrat = 5\n"),
        "unknown app kind": tiny("rate = 100\n").replace('kind = "consumer"', 'kind = "eater"'),
        "consumer prefix nobody serves": tiny('prefix = "/q"\nrate = 100\n').replace(
            'kind = "consumer"\nprefix = "/p"\n', 'kind = "consumer"\n'
        ),
        "prefix not a name": tiny().replace('prefix = "/p"', 'prefix = "p q"'),
        "app on a missing node": tiny().replace('node = "C"', 'node = "Z"'),
        "rate zero": tiny("rate = 0\n"),
        "rate negative": tiny("rate = -5\n"),
        "rate nan": tiny("rate = nan\n"),
        "rate a string": tiny('rate = "lots"\n'),
        "rate inf": tiny("rate = inf\n"),
        "max_seq negative": tiny("rate = 100\nmax_seq = -1\n"),
        "start after the run": tiny('rate = 100\nstart = "5s"\n'),
        "stop before start": tiny('rate = 100\nstart = "0.5s"\nstop = "0.2s"\n'),
        "unknown controller": tiny('controller = "fastest"\n'),
        "unknown engine": tiny('rate = 100\nengine = "warp"\n'),
        "tick without unit": tiny('rate = 100\nengine = "tick"\ntick = 5\n'),
        "tick longer than the run": tiny('rate = 100\nengine = "tick"\ntick = "5s"\n'),
        "fixed-window at the documented maximum": tiny(
            'controller = "fixed-window"\nwindow = 4294967295\n'
        ),
        "window controller given a rate": tiny('controller = "icp"\nrate = 100\n'),
        "unknown strategy": tiny(extra='\n[nodes.R]\nstrategy = "fastest"\n'),
        "cs negative": tiny(extra="\n[nodes.R]\ncs = -1\n"),
        "two schemes on a node": tiny(extra="\n[nodes.R.schemes.sf]\n\n[nodes.R.schemes.mircc]\n"),
        "unknown scheme": tiny(extra="\n[nodes.R.schemes.fastest]\n"),
        "scheme table is a number": tiny(extra="\n[nodes.R.schemes]\nsf = 5\n"),
        "static route loop to no producer": tiny(
            extra='\n[[routes]]\nnode = "R"\nprefix = "/q"\nnext_hop = "C"\n'
            '\n[[routes]]\nnode = "C"\nprefix = "/q"\nnext_hop = "R"\n'
        ),
        "unknown report metric": tiny(extra='\n[report]\nmetrics = ["speediness"]\n'),
        "mircc multipath without its strategy": tiny(
            extra="\n[defaults.node.schemes.mircc]\nmultipath = true\n"
        ),
        "seed a string": good.replace('name = "tiny"', 'name = "tiny"\nseed = "x"'),
        "seed negative": good.replace('name = "tiny"', 'name = "tiny"\nseed = -1'),
        "a file of 10 000 links": TINY
        + "".join(
            f'\n[[links]]\nbetween = ["X{i}", "X{i + 1}"]\nbandwidth = "1Mbps"\ndelay = "1ms"\n'
            for i in range(10_000)
        )
        + CONSUMER
        + 'rate = 100\nstart = "2s"\n',
    }
    cases = [
        Case("scenario", name, ["validate", "s.toml"], files={"s.toml": text})
        for name, text in texts.items()
    ]
    # the ones whose trouble shows only when the run starts
    for name in (
        "fixed-window at the documented maximum",
        "tick longer than the run",
        "static route loop to no producer",
        "start after the run",
    ):
        cases.append(
            Case(
                "scenario",
                f"run: {name}",
                ["run", "s.toml", "--out", "o", "--no-figures", "-q"],
                files={"s.toml": texts[name]},
                timeout=60,
            )
        )
    cases.append(  # a BOM is what some editors write: valid, not bad input
        Case(
            "scenario",
            "control: a UTF-8 BOM before the tiny scenario",
            ["validate", "s.toml"],
            files={"s.toml": "\ufeff" + good},
            expect="ok",
        )
    )
    cases.append(Case("scenario", "missing file", ["validate", "nope.toml"]))
    cases.append(Case("scenario", "a directory", ["validate", "."]))
    cases.append(
        Case(
            "scenario",
            "control: the tiny scenario",
            ["validate", "s.toml"],
            files={"s.toml": good},
            expect="ok",
        )
    )
    return cases


# ---- scheme tables ---------------------------------------------------------------------------


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    return json.dumps(v)


def scenario_value(param: dict):
    """A valid value of a parameter as a scenario writes it (its example)."""
    kind, v = param["kind"], param["example"]
    if v is None:
        return kind.get("word", 1)
    if kind["type"] == "time":
        return f"{v}ns"
    if kind["type"] in ("size", "size_or"):
        return f"{v}B"
    return v


def bad_values(param: dict) -> list[tuple[str, object]]:
    """Wrong values for a parameter, by its kind: (what, value)."""
    k = param["kind"]
    t = k["type"]
    if t == "number":
        out = [("a string", "abc"), ("nan", float("nan")), ("true", True)]
        out.append(("below its minimum", k["min"] - 1.0 if not k["min_open"] else k["min"]))
        if k.get("max") is not None:
            out.append(("above its maximum", k["max"] + 1.0))
        return out
    if t == "positive":
        return [("zero", 0), ("negative", -1.0), ("nan", float("nan")), ("inf", float("inf"))]
    if t == "rate_or":
        return [("a misspelt word", k["word"] + "x"), ("negative", -5.0), ("nan", float("nan"))]
    if t == "integer":
        return [("a fraction", 1.5), ("negative", -1), ("above its maximum", k["max"] + 1)]
    if t == "bool":
        return [("a string", "yes"), ("a number", 1)]
    if t == "time":
        out = [("a bare number", 5), ("negative", "-1ms"), ("an unknown unit", "10parsecs")]
        if k["min_ns"] > 1:
            out.append(("below its minimum", f"{k['min_ns'] - 1}ns"))
        return out
    if t == "size":
        return [("a bare number", 100), ("bits", "12Kb"), ("negative", "-1B")]
    if t == "size_or":
        return [("a misspelt word", k["word"] + "z"), ("zero", "0B"), ("bits", "12Kb")]
    return [("a table", {"x": 1})]


def scheme_contexts(name: str, role: str, schema: dict) -> tuple[str, str]:
    """(consumer keys, extra tables) of a scenario that runs part `name` of role `role`."""

    def required(entry: dict) -> str:
        return "".join(
            f"{p['name']} = {toml_value(scenario_value(p))}\n"
            for p in entry["params"]
            if p["required"]
        )

    controllers = {e["name"]: e for e in schema["controllers"]}
    routers = {e["name"] for e in schema["routers"]}
    if role == "controllers":
        consumer = f'controller = "{name}"\n' + required(controllers[name])
        extra = f"\n[defaults.node.schemes.{name}]\n" if name in routers else ""
        return consumer, extra
    consumer = "rate = 100\n"
    if name in controllers:  # a scheme with both parts runs both
        consumer = f'controller = "{name}"\n' + required(controllers[name])
    extra = f"\n[defaults.node.schemes.{name}]\n"
    if role == "components":
        extra += f"\n[sdn.{name}]\n"
    elif name == "pcon":
        extra = extra.replace(
            "[defaults.node.schemes.pcon]",
            '[defaults.node]\nstrategy = "pcon"\n\n[defaults.node.schemes.pcon]',
        )
    return consumer, extra


def scheme_cases(schema: dict) -> list[Case]:
    cases = []
    for role in ("routers", "controllers", "components"):
        for entry in schema.get(role, []):
            name = entry["name"]
            consumer, extra = scheme_contexts(name, role, schema)
            if role == "components" and f"[sdn.{name}]" not in extra:
                extra += f"\n[sdn.{name}]\n"

            def place(line: str, consumer=consumer, extra=extra, role=role, name=name) -> str:
                if role == "controllers":
                    return tiny(consumer + line, extra)
                header = (
                    f"[sdn.{name}]\n"
                    if role == "components"
                    else f"[defaults.node.schemes.{name}]\n"
                )
                return tiny(consumer, extra.replace(header, header + line, 1))

            base = place("")
            cases.append(
                Case(
                    "schemes",
                    f"control: {role} {name}",
                    ["validate", "s.toml"],
                    files={"s.toml": base},
                    expect="ok",
                )
            )
            for p in entry["params"]:
                for what, value in bad_values(p)[:2]:
                    text = place(f"{p['name']} = {toml_value(value)}\n")
                    cases.append(
                        Case(
                            "schemes",
                            f"{role} {name}.{p['name']}: {what}",
                            ["validate", "s.toml"],
                            files={"s.toml": text},
                        )
                    )
            if entry["params"]:
                key = entry["params"][0]["name"] + "x"
                cases.append(
                    Case(
                        "schemes",
                        f"{role} {name}: unknown key {key}",
                        ["validate", "s.toml"],
                        files={"s.toml": place(f"{key} = 1\n")},
                    )
                )
    return cases


# ---- flags -----------------------------------------------------------------------------------

# a wrong value for options whose value is free text, by option string
BAD_TEXT = {
    "--duration": "soon",
    "--stop": "-1s",
    "--seed": "-1",
    "--jobs": "0",
    "--repeat": "0",
    "--prefix": "abc",
    "--forwarder": "carrier-pigeon://x",
    "--dask": "nonsense:///",
    "--until-ci": "throughput_mbps",
    "--set": "nokey",
    "--workload": "nope",
    "--rate": "fast",
    "--size": "-3",
    "--load": "garbage",
    "--bin": "-1ms",
    "--tick": "5",
    "--window": "0",
    "--faces": "carrier",
    "--payload": "-1",
    "--warmup": "x",
    "--threads": "0",
    "--mode": "nope",
    "--spec": "nope.json",
    "--data-wire-size": "-1",
    "--interval": "0s",
    "--samples": "-5",
    "--wakeups": "-5",
}
POSITIONAL = {
    "run": "s.toml",
    "validate": "s.toml",
    "emulate": "s.toml",
    "plot": "run",
    "sweep": "sw.toml",
    "report": "run",
}


# `ndncc bench forwarder`'s own flags (the others are the simulator benchmark's)
BENCH_FORWARDER = {"--forwarder", "--faces", "--window", "--payload", "--duration", "--warmup"}
BENCH_FORWARDER |= {"--threads"}


def _context(cmd: str, flag: str) -> list[str]:
    """Valid arguments beside the bad one, so that a bad value accepted without a word costs a
    moment (a 1-second scenario, a short benchmark), never a long run or the network."""
    if cmd == "run":
        return ["--out", "o", "--no-figures", "-q"]
    if cmd == "sweep":
        return ["--out", "o", "-q"]
    if cmd == "bench":
        if flag in BENCH_FORWARDER:
            keep = [] if flag in ("--duration", "--warmup") else ["--duration", "0.3s"]
            return ["forwarder", *keep, *([] if flag == "--warmup" else ["--warmup", "0s"])]
        return [] if flag == "--workload" else ["--workload", "scale-10"]
    if cmd in ("sendloop", "clock-probe") and flag != "--duration":
        return ["--duration", "0.2s"]
    if cmd in ("consumer", "producer"):
        extra = [] if flag == "--prefix" else ["--prefix", "/p"]
        if flag != "--forwarder":
            extra += ["--forwarder", "unix:///nonexistent/ndncc-bad-inputs.sock"]
        return extra
    return []


def flag_cases(parser: argparse.ArgumentParser) -> list[Case]:
    cases = []
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for cmd, p in sub.choices.items():
        pos = [POSITIONAL[cmd]] if cmd in POSITIONAL else []
        files = {"s.toml": tiny(), "sw.toml": SWEEP_SPEC}
        cases.append(Case("flags", f"{cmd} --bogus", [cmd, *pos, "--bogus"], files=files))
        for a in p._actions:
            if not a.option_strings or a.nargs == 0 or isinstance(a, argparse._HelpAction):
                continue
            flag = a.option_strings[-1]
            if a.choices:
                values = ["not-a-choice"]
            elif a.type in (int, float):
                values = ["x1"] + ([] if cmd == "emulate" else ["-1"])
            elif flag in BAD_TEXT:
                values = [BAD_TEXT[flag]]
            else:
                continue
            for value in values:
                argv = [cmd, *pos, *_context(cmd, flag), flag, value]
                cases.append(Case("flags", f"{cmd} {flag} {value}", argv, files=files, timeout=60))
        if pos and cmd not in ("plot", "report"):
            cases.append(Case("flags", f"{cmd} on a missing file", [cmd, "missing.toml"]))
    cases.append(Case("flags", "no command", []))
    cases.append(Case("flags", "unknown command", ["frobnicate"]))
    cases.append(
        Case(
            "flags",
            "run --set a key that does not exist",
            ["run", "s.toml", "--set", "scenario.nope=1", "--out", "o", "-q"],
            files={"s.toml": tiny()},
        )
    )
    cases.append(
        Case(
            "flags",
            "run --out under a file",
            ["run", "s.toml", "--out", "s.toml/x", "-q"],
            files={"s.toml": tiny()},
        )
    )
    cases.append(
        Case(
            "flags",
            "sweep spec with bad TOML",
            ["sweep", "sw.toml", "--out", "o"],
            files={"sw.toml": "[sweep\n"},
        )
    )
    cases.append(
        Case(
            "flags",
            "control: sweep spec without a grid (one point)",
            ["sweep", "sw.toml", "--out", "o"],
            files={"sw.toml": "[sweep]\nscenario = 's.toml'\n", "s.toml": tiny()},
            expect="ok",
        )
    )
    cases.append(Case("flags", "reproduce an unknown paper", ["reproduce", "nope"]))
    cases.append(
        Case(
            "flags",
            "consumer --stop after --duration",
            [
                "consumer",
                "--prefix",
                "/p",
                "--duration",
                "1s",
                "--stop",
                "5s",
                "--forwarder",
                "udp://127.0.0.1:9",
            ],
        )
    )
    cases.append(
        Case(
            "flags",
            "consumer to a refused UDP port",
            ["consumer", "--prefix", "/p", "--duration", "1s", "--forwarder", "udp://127.0.0.1:9"],
            timeout=20,
        )
    )
    cases.append(
        Case(
            "flags",
            "consumer to a missing Unix socket",
            [
                "consumer",
                "--prefix",
                "/p",
                "--duration",
                "1s",
                "--forwarder",
                "unix:///nonexistent/x.sock",
            ],
            timeout=20,
        )
    )
    cases.append(
        Case(
            "flags",
            "consumer KEY=VALUE malformed",
            [
                "consumer",
                "--prefix",
                "/p",
                "--forwarder",
                "unix:///nonexistent/x.sock",
                "controller",
            ],
        )
    )
    cases.append(
        Case("flags", "schemes --json --markdown together", ["schemes", "--json", "--markdown"])
    )
    return cases


SWEEP_SPEC = """\
[sweep]
name = "tiny"
scenario = "s.toml"
seeds = 1
figures = false

[grid]
"apps[c].rate" = [50, 100]
"""


# ---- damaged result files --------------------------------------------------------------------


@dataclass
class Fixtures:
    """A finished run, a small sweep store and a reproduction-like folder, made once."""

    root: Path
    run: Path
    store: Path
    repro: Path


def make_fixtures(root: Path, python: str, env: dict) -> Fixtures:
    (root / "s.toml").write_text(tiny(), encoding="utf-8")
    (root / "sw.toml").write_text(SWEEP_SPEC, encoding="utf-8")
    ndncc = [python, "-m", "ndncc"]
    for argv in (
        ["run", "s.toml", "--out", "run", "-q"],
        ["sweep", "sw.toml", "--out", "store", "-q", "--jobs", "1"],
    ):
        r = subprocess.run(
            ndncc + argv, cwd=root, env=env, capture_output=True, text=True, timeout=300
        )
        if r.returncode != 0:
            raise SystemExit(f"fixture {' '.join(argv)} failed: {r.stderr.strip()[-400:]}")
    repro = root / "repro"
    repro.mkdir()
    rows = [
        "experiment,metric,condition,paper,expected,expected_source,ours,unit,tolerance,within",
        *(f"e1,m{i},c,{10 + i},,,{10 + i + 0.1},Mbit/s,±5 %,true" for i in range(5)),
        "e1,m9,c,1,,,3,Mbit/s,±5 %,false",
    ]
    (repro / "comparison.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (repro / "report.md").write_text("# A reproduction\n", encoding="utf-8")
    png = next((root / "run").glob("*.png"), None)
    if png is not None:
        shutil.copy(png, repro / "fig-1.png")
    return Fixtures(root, root / "run", root / "store", repro)


def _damage(kind: str, data: bytes) -> bytes:
    if kind == "truncated":
        return data[: max(1, len(data) // 2)]
    if kind == "empty":
        return b""
    return b"\x00garbage\xff" * 16


def damaged_cases(fx: Fixtures) -> list[Case]:
    cases = []
    store_runs = sorted((fx.store / "runs").iterdir()) if (fx.store / "runs").is_dir() else []

    def copying(src: Path, rel: str, kind: str, name: str):
        def setup(d: Path) -> None:
            shutil.copytree(src, d / name)
            target = d / name / rel
            if kind == "missing":
                target.unlink()
            else:
                target.write_bytes(_damage(kind, target.read_bytes()))

        return setup

    run_files = ["summary.json", *sorted(p.name for p in fx.run.glob("*.parquet"))[:2]]
    for rel in run_files:
        for kind in (
            ("truncated", "garbage", "missing") if rel == "summary.json" else ("truncated",)
        ):
            setup = copying(fx.run, rel, kind, "run")
            cases.append(Case("damaged", f"plot: {kind} {rel}", ["plot", "run"], setup=setup))
            cases.append(
                Case(
                    "damaged",
                    f"Result.load: {kind} {rel}",
                    code="import ndncc\nr = ndncc.Result.load('run')\nr.apps, r.series",
                    setup=setup,
                )
            )
    if store_runs:
        key = store_runs[0].name
        for rel in ("run.json", *sorted(p.name for p in store_runs[0].glob("*.parquet"))[:1]):
            for kind in ("truncated", "garbage"):
                setup = copying(fx.store, f"runs/{key}/{rel}", kind, "store")
                cases.append(
                    Case(
                        "damaged",
                        f"report: {kind} runs/<key>/{rel}",
                        ["report", "store"],
                        setup=setup,
                        timeout=90,
                    )
                )
                cases.append(
                    Case(
                        "damaged",
                        f"load_sweep: {kind} runs/<key>/{rel}",
                        code="import ndncc\nlen(ndncc.load_sweep('store'))",
                        setup=setup,
                    )
                )
                cases.append(
                    Case(
                        "damaged",
                        f"re-sweep: {kind} runs/<key>/{rel}",
                        ["sweep", "sw.toml", "--out", "store", "-q", "--jobs", "1"],
                        files={"s.toml": tiny(), "sw.toml": SWEEP_SPEC},
                        setup=setup,
                        check=_store_repaired,
                        timeout=120,
                    )
                )
        for rel in ("campaign.json", "index.parquet", "sweep.json"):
            if not (fx.store / rel).is_file():
                continue
            for kind in ("truncated", "garbage"):
                setup = copying(fx.store, rel, kind, "store")
                cases.append(
                    Case(
                        "damaged",
                        f"report: {kind} {rel}",
                        ["report", "store"],
                        setup=setup,
                        timeout=90,
                    )
                )
                cases.append(
                    Case(
                        "damaged",
                        f"load_sweep: {kind} {rel}",
                        code="import ndncc\nlen(ndncc.load_sweep('store'))",
                        setup=setup,
                    )
                )
    for rel, kinds in (
        ("comparison.csv", ("truncated", "garbage", "empty")),
        ("fig-1.png", ("garbage",)),
    ):
        if not (fx.repro / rel).is_file():
            continue
        for kind in kinds:
            setup = copying(fx.repro, rel, kind, "repro")
            cases.append(
                Case(
                    "damaged", f"report: {kind} {rel}", ["report", "repro"], setup=setup, timeout=90
                )
            )
    cases.append(
        Case(
            "damaged",
            "control: report of the intact store",
            ["report", "store"],
            setup=lambda d: shutil.copytree(fx.store, d / "store"),
            expect="ok",
            timeout=90,
        )
    )
    cases.append(
        Case(
            "damaged",
            "control: report of the intact reproduction",
            ["report", "repro"],
            setup=lambda d: shutil.copytree(fx.repro, d / "repro"),
            expect="ok",
            timeout=90,
        )
    )
    return cases


def _store_repaired(d: Path, output: str) -> str | None:
    """After a re-sweep over a damaged run: every run's files read again ("" when they do)."""
    import pyarrow.parquet as pq

    for f in sorted((d / "store" / "runs").glob("*/*")):
        try:
            if f.suffix == ".json":
                json.loads(f.read_text(encoding="utf-8"))
            elif f.suffix == ".parquet":
                pq.read_table(f)
        except Exception:  # noqa: BLE001 - any failure to read is damage
            return f"{f.parent.name}/{f.name} still damaged after a re-sweep"
    return ""


# ---- signals ---------------------------------------------------------------------------------


def _no_staging(d: Path, output: str) -> str | None:
    """After a signal: no staging folder left ("" when none: a clean stop, whatever it
    printed — a process ended by SIGTERM may say nothing)."""
    left = [p.name for p in d.rglob(".ndncc-save-*")]
    return f"left {', '.join(left)}" if left else ""


def signal_cases() -> list[Case]:
    # ≈ 2–4 s of simulation: 10 consumers at 20 000 Interests/s for 20 s on the line
    heavy = tiny(
        "rate = 20000\n",
        "".join(
            f'\n[[apps]]\nname = "c{i}"\nnode = "C"\nkind = "consumer"\nprefix = "/p"\n'
            "rate = 20000\n"
            for i in range(9)
        ),
        duration="20s",
    )
    heavy = heavy.replace('"10Mbps"', '"1Gbps"')
    sweep = SWEEP_SPEC.replace("[50, 100]", "[20000, 20001, 20002, 20003]").replace(
        'scenario = "s.toml"', 'scenario = "h.toml"'
    )
    cases = []
    for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
        for after in (0.8, 2.5):
            cases.append(
                Case(
                    "signals",
                    f"run: {name} after {after:g} s",
                    ["run", "h.toml", "--out", "o", "-q"],
                    files={"h.toml": heavy},
                    signals=[(after, sig)],
                    check=_no_staging,
                    timeout=60,
                )
            )
    cases.append(
        Case(
            "signals",
            "sweep --jobs 2: two SIGINTs",
            ["sweep", "sw.toml", "--out", "o", "--jobs", "2", "-q"],
            files={"h.toml": heavy, "sw.toml": sweep},
            signals=[(2.0, signal.SIGINT), (2.6, signal.SIGINT)],
            check=_no_staging,
            timeout=60,
        )
    )
    cases.append(
        Case(
            "signals",
            "sweep --jobs 2: SIGTERM",
            ["sweep", "sw.toml", "--out", "o", "--jobs", "2", "-q"],
            files={"h.toml": heavy, "sw.toml": sweep},
            signals=[(2.0, signal.SIGTERM)],
            check=_no_staging,
            timeout=60,
        )
    )
    return cases


# ---- the Python API ----------------------------------------------------------------------------


def api_cases() -> list[Case]:
    s = {"s.toml": tiny()}
    sc = "ndncc.Scenario.load('s.toml')"
    calls = {
        "run(123)": "ndncc.run(123)",
        "run(None)": "ndncc.run(None)",
        "run(a missing file)": "ndncc.run('nope.toml')",
        "run(a directory)": "ndncc.run('.')",
        "run(seed='x')": "ndncc.run('s.toml', seed='x')",
        "run(seed=-1)": "ndncc.run('s.toml', seed=-1)",
        "run(seed=1.5)": "ndncc.run('s.toml', seed=1.5)",
        "run(seed=2**70)": "ndncc.run('s.toml', seed=2**70)",
        "run(a bad keyword)": "ndncc.run('s.toml', sed=1)",
        "Scenario.from_toml_str(bytes)": "ndncc.Scenario.from_toml_str(open('s.toml','rb').read())",
        "Scenario.from_toml_str(None)": "ndncc.Scenario.from_toml_str(None)",
        "Scenario.from_toml_str(bad TOML)": "ndncc.Scenario.from_toml_str('[x')",
        "Scenario.load(a missing file)": "ndncc.Scenario.load('nope.toml')",
        "Scenario.load(a directory)": "ndncc.Scenario.load('.')",
        "Scenario.load(123)": "ndncc.Scenario.load(123)",
        "with_overrides(overrides='x')": f"{sc}.with_overrides(overrides='x')",
        "with_overrides(overrides=[1])": f"{sc}.with_overrides(overrides=[1])",
        "with_overrides(an unknown path)": (
            f"{sc}.with_overrides(overrides={{'scenario.nope': 1}}).resolve()"
        ),
        "with_overrides(a bad value)": (
            f"{sc}.with_overrides(overrides={{'scenario.duration': 'soon'}}).resolve()"
        ),
        "Result.load(a missing folder)": "ndncc.Result.load('nope')",
        "Result.load(a file)": "ndncc.Result.load('s.toml')",
        "Result.load(None)": "ndncc.Result.load(None)",
        "load_sweep(a missing folder)": "ndncc.load_sweep('nope')",
        "load_sweep(a file)": "ndncc.load_sweep('s.toml')",
        "load_sweep(an empty folder)": "import os\nos.mkdir('e')\nndncc.load_sweep('e')",
        "load_sweep(123)": "ndncc.load_sweep(123)",
        "Result.save(123)": "ndncc.run('s.toml').save(123)",
        "Result.save(under a file)": "ndncc.run('s.toml').save('s.toml/x')",
    }
    cases = [
        Case("api", name, code=f"import ndncc\n{call}", files=dict(s), timeout=60)
        for name, call in calls.items()
    ]
    cases.append(
        Case(
            "api",
            "control: run and save",
            code="import ndncc\nndncc.run('s.toml').save('o')",
            files=dict(s),
            expect="ok",
            timeout=60,
        )
    )
    return cases


# ---- --out folders with the user's files ---------------------------------------------------------


def _no_stale_figures(d: Path, output: str) -> str | None:
    pngs = sorted(p.name for p in (d / "o").glob("*.png"))
    if pngs and (d / "o" / "summary.json").is_file():
        summary = json.loads((d / "o" / "summary.json").read_text(encoding="utf-8"))
        if summary.get("scenario") == "second":
            return f"the new run's folder keeps the first run's figures ({', '.join(pngs[:3])})"
    if (d / "o" / "summary.json").is_file():
        return ""  # verified: the second run's folder holds none of the first run's figures
    return None


def out_cases(fx: Fixtures | None) -> list[Case]:
    user = {
        "o/summary.json": '{"mine": true}\n',
        "o/throughput.png": b"my own picture",
        "o/notes.txt": "my notes\n",
    }
    guard = list(user)
    cases = [
        Case(
            "out",
            "run --out a folder with the user's summary.json and throughput.png",
            ["run", "s.toml", "--out", "o", "-q"],
            files={"s.toml": tiny(), **user},
            guard=guard,
            timeout=60,
        ),
        Case(
            "out",
            "run --out ... --no-figures into the user's folder",
            ["run", "s.toml", "--out", "o", "-q", "--no-figures"],
            files={"s.toml": tiny(), **user},
            guard=guard,
            timeout=60,
        ),
        Case(
            "out",
            "Result.save into the user's folder",
            code="import ndncc\nndncc.run('s.toml').save('o')",
            files={"s.toml": tiny(), **user},
            guard=guard,
            timeout=60,
        ),
        Case(
            "out",
            "sweep --out a folder with the user's files",
            ["sweep", "sw.toml", "--out", "o", "-q", "--jobs", "1"],
            files={"s.toml": tiny(), "sw.toml": SWEEP_SPEC, **user},
            guard=guard,
            timeout=120,
        ),
        Case(
            "out",
            "reuse --out: a run with figures, then another with --no-figures",
            ["run", "s2.toml", "--out", "o", "-q", "--no-figures"],
            files={"s.toml": tiny(), "s2.toml": tiny().replace('name = "tiny"', 'name = "second"')},
            setup=lambda d: _run_into(d, ["run", "s.toml", "--out", "o", "-q"]),
            check=_no_stale_figures,
            timeout=90,
        ),
        Case(
            "out",
            "run --out a sweep store",
            ["run", "s.toml", "--out", "store", "-q", "--no-figures"],
            files={"s.toml": tiny()},
            setup=(lambda d: shutil.copytree(fx.store, d / "store")) if fx else None,
            guard=[],
            timeout=60,
        ),
    ]
    if fx is not None:
        cases.append(
            Case(
                "out",
                "plot --out a folder with the user's throughput.png",
                ["plot", "run", "--out", "o"],
                files=dict(user),
                guard=guard,
                setup=lambda d: shutil.copytree(fx.run, d / "run"),
                timeout=60,
            )
        )
    return cases


_ENV: dict = {}
_PYTHON = sys.executable


def _run_into(d: Path, argv: list[str]) -> None:
    subprocess.run(
        [_PYTHON, "-m", "ndncc", *argv], cwd=d, env=_ENV, capture_output=True, timeout=120
    )


# ---------------------------------------------------------------------------------------------
# running


API_WRAPPER = """
import warnings, sys
warnings.simplefilter("always")
_caught = []
warnings.showwarning = lambda m, c, f, l, file=None, line=None: _caught.append(str(m))
_src = {src!r}
_body, _last = _src.rsplit("\\n", 1)
try:
    exec(compile(_body, "<case>", "exec"))
    _value = eval(compile(_last, "<case>", "eval"))
except BaseException as _e:
    for _w in _caught:
        print("WARNED", _w.splitlines()[0] if _w else "")
    _msg = " ".join(str(_e).split())[:300]
    print("RAISED", type(_e).__name__, _msg)
else:
    for _w in _caught:
        print("WARNED", _w.splitlines()[0] if _w else "")
    print("RETURNED", " ".join(repr(_value).split())[:200])
"""


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def run_case(case: Case, workdir: Path, python: str, env: dict) -> Outcome:
    d = Path(tempfile.mkdtemp(prefix="case-", dir=workdir))
    for rel, content in case.files.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    if case.setup is not None:
        case.setup(d)
    before = {rel: digest(d / rel) for rel in case.guard}
    if case.code is not None:
        cmd = [python, "-c", API_WRAPPER.format(src=case.code)]
    else:
        cmd = [python, "-m", "ndncc", *(case.argv or [])]
    started = time.monotonic()
    proc = subprocess.Popen(
        cmd, cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    timed_out = False
    try:
        for after, sig in case.signals:
            wait = after - (time.monotonic() - started)
            try:
                proc.wait(timeout=max(0.0, wait))
                break  # finished before the signal
            except subprocess.TimeoutExpired:
                proc.send_signal(sig)
        out, err = proc.communicate(timeout=max(1.0, case.timeout - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    seconds = time.monotonic() - started
    output = out.decode(errors="replace") + err.decode(errors="replace")
    lost = [rel for rel, h in before.items() if digest(d / rel) != h]
    problem = case.check(d, output) if case.check is not None and not timed_out else None
    outcome, reason = classify(case, proc.returncode, output, timed_out, lost, problem)
    shutil.rmtree(d, ignore_errors=True)
    return Outcome(case, outcome, reason, proc.returncode, output, seconds)


def all_cases(fx: Fixtures | None, python: str, env: dict) -> list[Case]:
    schema = json.loads(
        subprocess.run(
            [python, "-m", "ndncc", "schemes", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    from ndncc.cli import build_parser

    cases = scenario_cases() + scheme_cases(schema) + flag_cases(build_parser())
    if fx is not None:
        cases += damaged_cases(fx)
    cases += signal_cases() + api_cases() + out_cases(fx)
    return cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", choices=CATEGORIES, help="these categories only")
    ap.add_argument("--match", help="only cases whose name contains this text")
    ap.add_argument("--list", action="store_true", help="list the cases, run nothing")
    ap.add_argument("--json", metavar="FILE", help="write every case's outcome here")
    ap.add_argument("--python", default=sys.executable, help="the interpreter with ndncc")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args(argv)
    global _PYTHON, _ENV
    _PYTHON = args.python
    env = dict(os.environ, NO_COLOR="1", COLUMNS="132")
    _ENV = env
    workdir = Path(tempfile.mkdtemp(prefix="ndncc-bad-inputs-"))
    only = set(args.only or CATEGORIES)
    try:
        fx = None
        if not args.list and only & {"damaged", "out"}:
            (workdir / "fixtures").mkdir()
            fx = make_fixtures(workdir / "fixtures", args.python, env)
        cases = [c for c in all_cases(fx, args.python, env) if c.category in only]
        if args.match:
            cases = [c for c in cases if args.match in c.name]
        if args.list:
            for c in cases:
                print(f"{c.category:9} {c.name}")
            print(f"{len(cases)} cases")
            return 0
        results = []
        for i, c in enumerate(cases, 1):
            r = run_case(c, workdir, args.python, env)
            results.append(r)
            mark = "" if r.outcome == "clear" else f"  <-- {r.outcome.upper()}"
            print(
                f"[{i}/{len(cases)}] {c.category}: {c.name}: {r.outcome} ({r.seconds:.1f} s){mark}",
                flush=True,
            )
        report(results)
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    [
                        {
                            "category": r.case.category,
                            "name": r.case.name,
                            "control": r.case.expect == "ok",
                            "outcome": r.outcome,
                            "reason": r.reason,
                            "exit": r.rc,
                            "seconds": round(r.seconds, 2),
                            "output": r.output[-2000:],
                        }
                        for r in results
                    ],
                    indent=1,
                ),
                encoding="utf-8",
            )
        bad = [r for r in results if r.case.expect != "ok" and r.outcome != "clear"]
        broken = [r for r in results if r.case.expect == "ok" and r.outcome != "clear"]
        return 1 if bad or broken else 0
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"work folder kept: {workdir}")


def report(results: list[Outcome]) -> None:
    counted = [r for r in results if r.case.expect != "ok"]
    controls = [r for r in results if r.case.expect == "ok"]
    total = Counter(r.outcome for r in counted)
    print()
    print(f"{len(counted)} bad inputs: " + ", ".join(f"{total.get(o, 0)} {o}" for o in OUTCOMES))
    by_cat: dict[str, Counter] = {}
    for r in counted:
        by_cat.setdefault(r.case.category, Counter())[r.outcome] += 1
    print()
    print(f"{'category':10} " + " ".join(f"{o:>10}" for o in OUTCOMES))
    for cat in CATEGORIES:
        if cat in by_cat:
            print(f"{cat:10} " + " ".join(f"{by_cat[cat].get(o, 0):>10}" for o in OUTCOMES))
    failed_controls = [r for r in controls if r.outcome != "clear"]
    print(f"\ncontrols (valid input): {len(controls) - len(failed_controls)} of {len(controls)} ok")
    for r in failed_controls:
        line = first_line(r.output)
        print(f"  CONTROL FAILED {r.case.category}: {r.case.name}: {r.reason} | {line}")
    not_clear = [r for r in counted if r.outcome != "clear"]
    if not_clear:
        print("\nnot clear:")
        for r in not_clear:
            detail = textwrap.shorten(r.reason, 160)
            print(f"  [{r.outcome}] {r.case.category}: {r.case.name} — {detail}")


if __name__ == "__main__":
    raise SystemExit(main())
