"""Benchmark workloads: the shipped scenario files beside this module, and generated ones.

Generated workloads are built in Python (deterministically: the same arguments give the same
scenario), so a benchmark of 10 000 flows needs no 10 000-flow file in the repository:

* :func:`dumbbell` — N consumers on R1, N producers on R2, one bottleneck R1–R2;
* :func:`isp` — an ndnSIM Rocketfuel-style annotated map (backbone, gateway and leaf routers,
  generated from a seed and read through :mod:`ndncc.importers`) with thousands of flows
  between leaf routers.
"""

from __future__ import annotations

import random
from pathlib import Path

from ..scenario import Scenario

WORKLOAD_DIR = Path(__file__).resolve().parent


def dumbbell(
    pairs: int,
    *,
    total_rate: float = 9000.0,
    duration: str = "5s",
    bandwidth: str = "100Mbps",
    delay: str = "10ms",
    payload: str = "1250B",
    randomize: str = "uniform",
    seed: int = 1,
    stagger: bool = False,
) -> Scenario:
    """`pairs` consumers C1..CN on R1 and producers P1..PN on R2 (consumer i fetches /p<i> from
    producer i); every link `bandwidth` / `delay`; the consumers share `total_rate`
    Interests/s equally, with random gaps (`randomize`).

    Every consumer starts at t = 0 and sends its first Interest at once: with many pairs that
    first burst (one Interest per pair) overflows R1's queue. With `stagger`, consumer i starts
    instead at an offset drawn uniformly from [0, 1 / rate) (a `random.Random(seed)` stream,
    so the same arguments give the same scenario): the aggregate is then `total_rate` from the
    start."""
    if pairs < 1:
        raise ValueError("pairs must be at least 1")
    rate = total_rate / pairs
    offsets = random.Random(seed)
    links = [{"between": [f"C{i}", "R1"]} for i in range(1, pairs + 1)]
    links.append({"between": ["R1", "R2"]})
    links += [{"between": ["R2", f"P{i}"]} for i in range(1, pairs + 1)]
    apps: list[dict] = []
    for i in range(1, pairs + 1):
        apps.append(
            {
                "name": f"c{i}",
                "node": f"C{i}",
                "kind": "consumer",
                "prefix": f"/p{i}",
                "controller": "constant-rate",
                "rate": rate,
                "randomize": randomize,
                **({"start": f"{offsets.random() / rate:.9f}s"} if stagger else {}),
            }
        )
        apps.append(
            {
                "name": f"p{i}",
                "node": f"P{i}",
                "kind": "producer",
                "prefix": f"/p{i}",
                "payload": payload,
            }
        )
    data = {
        "scenario": {"name": f"dumbbell-{pairs}-pairs", "duration": duration, "seed": seed},
        "defaults": {"link": {"bandwidth": bandwidth, "delay": delay, "queue": "100p"}},
        "links": links,
        "apps": apps,
    }
    return Scenario.from_dict(data, source=f"<dumbbell({pairs})>")


def rocketfuel_text(
    backbone: int = 40, gateways: int = 100, leaves: int = 260, seed: int = 1
) -> str:
    """An ndnSIM annotated topology (``router`` / ``link`` sections) shaped like the annotated
    Rocketfuel maps ndnSIM ships: a meshed backbone (a ring plus random chords, 1 Gbps),
    gateways on one or two backbone routers (400 Mbps) and leaf routers on one gateway, a tenth
    of them on two (100 Mbps). Delays are drawn per link; the same seed gives the same text."""
    rng = random.Random(seed)
    names = (
        [f"bb{i}" for i in range(backbone)]
        + [f"gw{i}" for i in range(gateways)]
        + [f"leaf{i}" for i in range(leaves)]
    )
    lines = ["# generated Rocketfuel-style annotated map (ndncc.workloads.rocketfuel_text)"]
    lines.append("router")
    lines.append("# node comment yPos xPos")
    for name in names:
        lines.append(f"{name} NA {rng.randint(0, 999)} {rng.randint(0, 999)}")
    lines.append("link")
    lines.append("# srcNode dstNode bandwidth metric delay queue")
    pairs: set[frozenset[str]] = set()

    def link(a: str, b: str, bandwidth: str, low: int, high: int) -> None:
        if a == b or frozenset((a, b)) in pairs:
            return
        pairs.add(frozenset((a, b)))
        lines.append(f"{a} {b} {bandwidth} 1 {rng.randint(low, high)}ms 100")

    for i in range(backbone):
        link(f"bb{i}", f"bb{(i + 1) % backbone}", "1Gbps", 2, 10)
    for _ in range(backbone):
        link(f"bb{rng.randrange(backbone)}", f"bb{rng.randrange(backbone)}", "1Gbps", 2, 10)
    for i in range(gateways):
        for b in rng.sample(range(backbone), rng.choice((1, 2))):
            link(f"gw{i}", f"bb{b}", "400Mbps", 1, 5)
    for i in range(leaves):
        count = 2 if rng.random() < 0.1 else 1
        for g in rng.sample(range(gateways), count):
            link(f"leaf{i}", f"gw{g}", "100Mbps", 1, 3)
    return "\n".join(lines) + "\n"


def isp(
    flows: int = 2000,
    *,
    directory: str | Path,
    rate: float = 5.0,
    duration: str = "5s",
    payload: str = "1250B",
    seed: int = 1,
) -> Scenario:
    """`flows` consumer/producer pairs on the leaf routers of :func:`rocketfuel_text`'s map
    (written to `directory`), each consumer at `rate` Interests/s with uniform random gaps
    towards its own producer on another leaf router."""
    path = Path(directory) / "isp-rocketfuel.txt"
    path.write_text(rocketfuel_text(seed=seed))
    rng = random.Random(seed)
    leaves = [name for name in _router_names(path) if name.startswith("leaf")]
    apps: list[dict] = []
    for i in range(1, flows + 1):
        consumer, producer = rng.sample(leaves, 2)
        apps.append(
            {
                "name": f"c{i}",
                "node": consumer,
                "kind": "consumer",
                "prefix": f"/isp/f{i}",
                "controller": "constant-rate",
                "rate": rate,
                "randomize": "uniform",
            }
        )
        apps.append(
            {
                "name": f"p{i}",
                "node": producer,
                "kind": "producer",
                "prefix": f"/isp/f{i}",
                "payload": payload,
            }
        )
    data = {
        "scenario": {"name": f"isp-{flows}-flows", "duration": duration, "seed": seed},
        "topology": {"file": str(path), "format": "ndnsim"},
        "apps": apps,
    }
    return Scenario.from_dict(data, source=f"<isp({flows})>", base_dir=directory)


def _router_names(path: Path) -> list[str]:
    names, section = [], ""
    for line in path.read_text().splitlines():
        if line in ("router", "link"):
            section = line
        elif section == "router" and line and not line.startswith("#"):
            names.append(line.split()[0])
    return names
