"""``docs/emulate/README.md``: simulator and real figures side by side for one scenario of
each seed's experiment set, and seed 002's linear SF ablation (engines × set-ups), written
from the runs ``docs/emulate/generate.py`` keeps beside it. Only the table writing lives here
(no run, no protocol logic), so that a test can write the README from stored summaries.

Each scenario's folder holds ``summary.json`` (the real run's), ``sim-summary.json`` (the
simulator's, same scenario and overrides), ``command.txt`` and the run's own report
(``sim-vs-real.md`` / ``.csv`` / ``.json`` / ``.png``)."""

from __future__ import annotations

import json
from pathlib import Path

from .compare import _fmt, _lags, _percent, face_rows, relative, rows

# (folder, seed, what, scenario, extra ``ndncc emulate`` flags, node whose next hops are the
# path split or None, why shortened or None)
SCENARIOS = [
    ("sf-linear", "002", "SF, linear", "scenarios/sf-clock/linear.toml", [], "R1", None),
    (
        "mircc-dumbbell",
        "003",
        "MIRCC, dumbbell",
        "scenarios/mircc-clock/dumbbell.toml",
        [],
        "R1",
        None,
    ),
    (
        "chopcop-baseline",
        "001",
        "CHoPCoP, baseline (Fig. 4)",
        "scenarios/chopcop/baseline.toml",
        ["--duration", "20s"],
        "B",
        "80 s in the scenario, run for 20 s (the transfer is in its steady state from ~1 s)",
    ),
    ("icp-line", "005", "ICP, line", "scenarios/icp/line.toml", [], "R", None),
    ("pcon-dumbbell", "004", "PCON, dumbbell", "scenarios/pcon/dumbbell.toml", [], "R1", None),
    (
        "sieve-dumbbell",
        "004",
        "ndnSieve, dumbbell",
        "scenarios/sieve/dumbbell.toml",
        [],
        "R1",
        None,
    ),
    (
        "sieve-multipath-1",
        "004",
        "ndnSieve, multipath 1",
        "scenarios/sieve/multipath-1.toml",
        [],
        "R1",
        None,
    ),
]

# seed 002's linear SF ablation: engines × set-ups (the acceptance of issue 16, item 5)
ABLATION_SCENARIO = "scenarios/sf-clock/linear.toml"
ENGINES = {
    "ideal": ["--set", "apps[consumer].engine=ideal"],
    "tick 100 ms + smoothing": [
        "--set",
        "apps[consumer].engine=tick",
        "--set",
        "apps[consumer].tick=100ms",
        "--set",
        "apps[consumer].smoothing=true",
    ],
}
# (case label, flags, needs the ndnccd from before the catch-up rule)
CASES = [
    ("netns, SCHED_FIFO (default)", ["--mode", "netns"], False),
    ("loopback, SCHED_FIFO", ["--mode", "loopback"], False),
    ("netns, default scheduling", ["--mode", "netns", "--no-realtime"], False),
    (
        "netns, default scheduling, link emulation before the catch-up rule",
        ["--mode", "netns", "--no-realtime"],
        True,
    ),
    (
        "netns, default scheduling, before the catch-up rule, payload as Content",
        ["--mode", "netns", "--no-realtime", "--payload-as-is"],
        True,
    ),
]


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def _n(v) -> str:
    """A count or a figure with three decimals; "—" when not measured."""
    return _fmt(v, ".3f")


def _load(la) -> str:
    return "—" if not la else f"{la[0]:.2f}"


def consumer_table(sim: dict, real: dict) -> list[str]:
    """Per consumer: throughput (Data × the scenario's Data size / active time, Mbit/s),
    Nacks and timeouts of both runs."""
    by = {}
    for r in rows(sim, real):
        by.setdefault(r["app"], {})[r["metric"]] = r
    out = [
        "| consumer | simulator Mbit/s | real Mbit/s | relative difference | Data, simulator | "
        "Data, real | Nacks, simulator | Nacks, real | timeouts, simulator | timeouts, real |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for app, m in by.items():
        t = m["throughput (Data × scenario size)"]
        d, k, o = m["Data received"], m["Nacks received"], m["timeouts"]
        out.append(
            f"| {app} | {_n(t['sim'])} | {_n(t['real'])} | {_percent(t['relative_difference'])} | "
            f"{_n(d['sim'])} | {_n(d['real'])} | {_n(k['sim'])} | {_n(k['real'])} | "
            f"{_n(o['sim'])} | {_n(o['real'])} |"
        )
    return out


def face_table(sim: dict, real: dict) -> list[str]:
    """Queue drops and marks per face (``node → peer``) where either run dropped or marked,
    and the totals over all faces."""
    out = [
        "| face | drops, simulator | drops, real | relative difference | marks, simulator | "
        "marks, real | relative difference |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for f in face_rows(sim, real):
        out.append(
            f"| {f['face']} | {_n(f['sim_drops'])} | {_n(f['real_drops'])} | "
            f"{_percent(relative(f['sim_drops'], f['real_drops']))} | {_n(f['sim_marks'])} | "
            f"{_n(f['real_marks'])} | {_percent(relative(f['sim_marks'], f['real_marks']))} |"
        )
    return out


def path_split(sim: dict, real: dict, node: str) -> list[dict]:
    """``node``'s next hops: each face towards another node that sent Interests in either run,
    with the Interests sent and Data received on it (parallel faces to one peer summed). The
    simulator counts both per face; the real run per face in ndnccd's stop report
    (``faces``' ``out_interests`` / ``in_data``), else, for the Interests only, in ndnSieve's
    ``nodes.<node>.sdn.interests_out_by_face``; None where it has neither (not measured)."""

    def per_peer(faces, key, by_face=None) -> dict[str, int] | None:
        out: dict[str, int] = {}
        for f in faces:
            if f["node"] != node or not f.get("peer"):
                continue
            if by_face is not None and str(f["face"]) not in by_face:
                continue  # not one of the faces the sieve module reports
            n = f.get(key) if by_face is None else by_face[str(f["face"])]
            if n is None:
                return None
            out[f["peer"]] = out.get(f["peer"], 0) + n
        return out

    sim_faces = sim.get("faces") or []
    real_faces = real.get("faces") or []
    s_int, s_data = per_peer(sim_faces, "out_interests"), per_peer(sim_faces, "in_data")
    r_int, r_data = per_peer(real_faces, "out_interests"), per_peer(real_faces, "in_data")
    if r_int is None:
        sdn = ((real.get("nodes") or {}).get(node) or {}).get("sdn") or {}
        by_face = sdn.get("interests_out_by_face")
        r_int = per_peer(real_faces, None, by_face) if by_face else None
    s_int, s_data = s_int or {}, s_data or {}
    peers = sorted({p for p, n in s_int.items() if n} | {p for p, n in (r_int or {}).items() if n})
    return [
        {
            "next_hop": p,
            "sim_interests": s_int.get(p, 0),
            "real_interests": None if r_int is None else r_int.get(p, 0),
            "sim_data": s_data.get(p, 0),
            "real_data": None if r_data is None else r_data.get(p, 0),
        }
        for p in peers
    ]


def split_table(sim: dict, real: dict, node: str) -> list[str]:
    hops = path_split(sim, real, node)
    if not hops:
        return [f"No Interests left {node} towards another node in either run."]
    out = [
        f"| {node} → next hop | Interests, simulator | Interests, real | relative difference "
        "| share of Interests, simulator | share, real | Data, simulator | Data, real |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ts = sum(h["sim_interests"] for h in hops)
    tr = (
        None
        if any(h["real_interests"] is None for h in hops)
        else sum(h["real_interests"] for h in hops)
    )
    for h in hops:
        ss = f"{h['sim_interests'] / ts * 100:.1f} %" if ts else "—"
        sr = f"{h['real_interests'] / tr * 100:.1f} %" if tr else "—"
        out.append(
            f"| {node} → {h['next_hop']} | {_n(h['sim_interests'])} | {_n(h['real_interests'])} "
            f"| {_percent(relative(h['sim_interests'], h['real_interests']))} | {ss} | {sr} | "
            f"{_n(h['sim_data'])} | {_n(h['real_data'])} |"
        )
    return out


def scenario_section(
    d: Path, seed: str, what: str, path: str, node: str | None, shortened: str | None
) -> list[str]:
    """One scenario's section from its folder, or a line saying it has no run."""
    head = f"### Seed {seed}: {what} (`{path}`)"
    if (d / "error.txt").exists():
        return [
            head,
            "",
            "**Not run to the end** — `ndncc emulate` said:",
            "",
            "```",
            (d / "error.txt").read_text(encoding="utf-8").strip(),
            "```",
            "",
        ]
    if not (d / "summary.json").exists() or not (d / "sim-summary.json").exists():
        return [head, "", "No stored run.", ""]
    real = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    sim = json.loads((d / "sim-summary.json").read_text(encoding="utf-8"))
    cmd = (d / "command.txt").read_text(encoding="utf-8").strip()
    before = _load(real.get("load_average_before"))
    after = _load(real.get("load_average_after"))
    out = [
        head,
        "",
        f"* real run: mode {real.get('mode')}, scheduling {real.get('scheduling')}, wall time "
        f"{real.get('wall_time_s')} s; 1-minute load average before {before}, after {after} "
        f"({real.get('cpu_count')} CPUs); commit `{real.get('git_commit')}`; report "
        f"[{d.name}/sim-vs-real.md]({d.name}/sim-vs-real.md)",
        f"* consumers' start lag behind the first one's schedule (real; the simulator's is "
        f"0): {_lags(real)}",
        f"* command: `{cmd}`",
    ]
    if shortened:
        out.append(f"* **shortened**: {shortened}")
    out += ["", *consumer_table(sim, real), "", *face_table(sim, real), ""]
    if node:
        out += [f"Path split at {node} (its next hops):", "", *split_table(sim, real, node), ""]
    else:
        out += ["Path split: — (one path, no router with two next hops).", ""]
    return out


def ablation_section(here: Path) -> list[str]:
    out = [
        "## Seed 002's linear SF scenario: engines × set-ups",
        "",
        "The acceptance of issue 16 (item 5) and the ablations that show where the gap was. "
        "Throughput: Data received × the scenario's Data size (1 250 B) / the 10 s the "
        "consumer sends, Mbit/s, as the simulator's `throughput_mbps`. Real Data wire size: "
        "the consumer's Data bytes / Data received. Load: the 1-minute load average before the "
        "run (2 CPUs, shared with other builds).",
        "",
        "| engine | case | simulator Mbit/s | real Mbit/s | relative difference | real "
        "timeouts | real Data wire size, B | load | report |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    commands = []
    for case, _, _ in CASES:
        for engine in ENGINES:
            name = f"{slug(engine)}_{slug(case)}"
            d = here / name
            if not (d / "sim-vs-real.json").exists():
                continue
            table = json.loads((d / "sim-vs-real.json").read_text(encoding="utf-8"))
            real = json.loads((d / "summary.json").read_text(encoding="utf-8"))
            tput = next(r for r in table if r["metric"].startswith("throughput (Data"))
            tmo = next(r for r in table if r["metric"] == "timeouts")
            (app,) = real["apps"]
            size = app["data_bytes"] / app["data_received"] if app["data_received"] else 0
            out.append(
                f"| {engine} | {case} | {tput['sim']:.3f} | {tput['real']:.3f} | "
                f"{_percent(tput['relative_difference'])} | {tmo['real']} | {size:.1f} | "
                f"{_load(real['load_average_before'])} | [{name}]({name}/sim-vs-real.md) |"
            )
            commands.append((d / "command.txt").read_text(encoding="utf-8").strip())
    out += ["", "Commands (from the repository root, as root; `--out` left out):", "", "```sh"]
    out += commands
    out += ["```", ""]
    return out


def readme(here: Path) -> str:
    """The whole README from the folders under ``here``."""
    out = [
        "# `ndncc emulate`: simulator vs real (generated)",
        "",
        "Written by `docs/emulate/generate.py` (tables: `python/ndncc/emulate/gallery.py`) from "
        "the runs kept beside it; each scenario's folder has the run's own report "
        "(`sim-vs-real.md`, `.png`), the real `summary.json` and the simulator's "
        "`sim-summary.json`. Commands run from the repository root, as root, in network "
        "namespaces (`--out` left out).",
        "",
        "## One scenario of each seed's experiment set",
        "",
        "* Throughput: Data received × the scenario's Data size / the consumer's active time, "
        "Mbit/s, in both runs (the simulator's `throughput_mbps`, the real run's "
        "`throughput_model_mbps`). Relative difference = (real − sim) / sim.",
        "* Drops: packets each face's transmit queue dropped (overflow or the scheme's queue "
        "discipline; the real run's are ndnccd's emulated queues), per face `node → peer` "
        '("app": the node\'s app faces), where either run dropped or marked; marks: Data marked '
        "on the way out (counts).",
        "* Path split: Interests each next hop of the named router sent, and the Data it "
        "received on it (the real run's: each face's `out_interests` / `in_data` in ndnccd's "
        "stop report; a run from before those counters has only ndnSieve's "
        '`nodes.<node>.sdn.interests_out_by_face`, "—" where not measured).',
        "* Load: the 1-minute load average before and after the run (2 CPUs shared with other "
        "jobs, among them test suites).",
        "",
    ]
    for name, seed, what, path, _flags, node, short in SCENARIOS:
        out += scenario_section(here / name, seed, what, path, node, short)
    out += ablation_section(here)
    return "\n".join(out)
