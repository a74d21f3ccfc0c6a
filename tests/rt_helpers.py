"""Helpers shared by the real-socket tests (not a test module)."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

from ndncc import _core
from ndncc.cli_apps import app_spec

ROOT = Path(__file__).resolve().parent.parent


def producer_thread(endpoint: str, prefix: str, duration_s: float, **settings) -> tuple:
    """An ndncc producer of `prefix` on the forwarder at `endpoint`, in a thread for
    `duration_s`; returns (the thread, a dict that gets its \"report\" or its \"error\")."""
    body, packets = app_spec(
        "producer", prefix, [f"{k}={json.dumps(v)}" for k, v in settings.items()]
    )
    body.pop("kind")
    box: dict = {}

    def run():
        try:
            box["report"] = json.loads(
                _core.rt_producer(
                    endpoint,
                    json.dumps(body),
                    data_overhead=packets["data_overhead"],
                    duration_s=duration_s,
                )
            )
        except Exception as e:  # noqa: BLE001 - handed to the test thread
            box["error"] = e

    t = threading.Thread(target=run)
    t.start()
    return t, box


def ndnccd_binary() -> Path:
    """The release ndnccd of this checkout, built when missing."""
    path = ROOT / "target" / "release" / "ndnccd"
    if not path.exists():
        subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "ndncc-rt", "--bin", "ndnccd"],
            cwd=ROOT,
            check=True,
        )
    return path
