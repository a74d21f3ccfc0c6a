"""FISP off seed 001's topologies (issue 29): a cooperative (or a moderate constant-rate)
receiver beside a greedy one on S — R — M — U1, U2, and the tables of docs/schemes/chopcop.md
("FISP off the paper's topology") that `tests/test_chopcop.py` asserts on:

    .venv/bin/python tests/chopcop_off_paper.py > /tmp/tables.md
"""

import ndncc
from ndncc.scenario import Scenario

CHUNK_BITS = 32 * 1024 * 8


def greedy_neighbour(mbps: float, buffer: int, coop_rate: float | None = None) -> Scenario:
    """Not a topology of seed 001: S —10×, 20 ms— R —`mbps`, 5 ms— M, and M —10×, 5 ms— U1,
    U2. U1 fetches /coop with RIC (or, with `coop_rate`, asks it at that many chunks/s, deaf to
    marks); U2 asks /greedy at twice the bottleneck's chunk rate, deaf to marks. R→M's queue is
    `buffer` bytes; the others bandwidth × 300 ms. Every parameter at its default (FISP's C:
    R→M's buffer)."""
    fast = mbps * 10
    big = int(fast * 1e6 / 8 * 0.3)
    links = [("S", "R", fast, 20, big), ("R", "M", mbps, 5, buffer)]
    links += [("M", u, fast, 5, big) for u in ("U1", "U2")]
    txt = '[scenario]\nname = "greedy-neighbour"\nduration = "20s"\nseed = 1\n'
    txt += '[defaults.node.schemes.chopcop]\nsegment_size = "1024B"\n'
    for a, b, bw, delay, q in links:
        txt += f'[[links]]\nbetween = ["{a}", "{b}"]\nbandwidth = "{bw}Mbps"\n'
        txt += f'delay = "{delay}ms"\nqueue = "{q}B"\n'
    common = 'kind = "consumer"\nchunk_segments = 32\nlifetime = "4s"\n'
    deaf = 'controller = "constant-rate"\nretransmit = "none"\nrate = '
    coop = 'controller = "chopcop"\n' if coop_rate is None else f"{deaf}{coop_rate}\n"
    txt += f'[[apps]]\nname = "coop"\nnode = "U1"\nprefix = "/coop"\n{coop}{common}'
    txt += f'[[apps]]\nname = "greedy"\nnode = "U2"\nprefix = "/greedy"\n{common}'
    txt += f"{deaf}{2 * mbps * 1e6 / CHUNK_BITS}\n"
    for p in ("coop", "greedy"):
        txt += f'[[apps]]\nname = "p{p}"\nnode = "S"\nkind = "producer"\nprefix = "/{p}"\n'
        txt += 'payload = "1024B"\n'
    return Scenario.from_toml_str(txt)


def shares(sc: Scenario) -> tuple[dict[str, float], float, object]:
    """Each receiver's throughput (Mbit/s) over [5, 20] s, R→M's drops from one 100-ms bin after
    FISP first held an Interest (the Data of Interests sent before it knew the flows — it learns
    a flow's interface from its first Data — are beyond its reach), and R→M's face series."""
    r = ndncc.run(sc)
    lo, hi = 5.0, 20.0
    s = r.series[r.series["time_s"] > lo]
    thr = {
        a: s.loc[s["app_name"] == a, "data_bytes"].sum() * 8 / (hi - lo) / 1e6
        for a in ("coop", "greedy")
    }
    f = r.face_series
    f = f[(f["node_name"] == "R") & (f["peer_name"] == "M")]
    held = f[(f["scheme_fisp_queued"] > 0) | (f["scheme_fisp_delayed"] > 0)]
    assert not held.empty  # FISP engaged
    engaged = held["time_s"].min()
    return thr, f.loc[f["time_s"] > engaged + 0.1 + 1e-9, "drops"].sum(), f


GRID = [(m, b) for b in (100, 1000, 5000) for m in (10, 30, 100)]

READINGS = {
    "seed (default)": {},
    "seed, γ = 1": {"defaults.node.schemes.chopcop.gamma": 1.0},
    "window": {"defaults.node.schemes.chopcop.fisp_window": True},
}


def row(mbps: int, kb: int, coop_rate: float | None, overrides: dict) -> str:
    """One cell: cooperative / greedy Mbit/s, REM's marking probability on R→M (mean over
    [5, 20] s, %), drops once FISP engaged."""
    sc = greedy_neighbour(mbps, kb * 1000, coop_rate).with_overrides(overrides=overrides)
    thr, drops, f = shares(sc)
    p = 100 * f.loc[f["time_s"] > 5.0, "scheme_rem_probability"].fillna(0).mean()
    return f"{thr['coop']:.2f} / {thr['greedy']:.2f}, {p:.0f} %, {drops}"


def markdown() -> str:
    lines = []
    for title, moderate in (("cooperative (RIC) beside greedy", False), ("0.3× beside 2×", True)):
        lines.append(f"\n{title}: Mbit/s, REM's P on R→M, drops once FISP engaged\n")
        lines.append("| link | R→M buffer | " + " | ".join(READINGS) + " |")
        lines.append("|---|---|" + "---|" * len(READINGS))
        for m, b in GRID:
            rate = 0.3 * m * 1e6 / CHUNK_BITS if moderate else None
            cells = [row(m, b, rate, ov) for ov in READINGS.values()]
            lines.append(f"| {m} Mbit/s | {b} KB | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
