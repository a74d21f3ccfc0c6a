"""Opens a page in headless Chromium and talks to it over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: JSON messages separated by NUL on fds 3 and 4), with no package
beyond the standard library. Chromium comes from Debian: ``apt-get install -y chromium``."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> str | None:
    env = os.environ.get("CHROMIUM")
    if env and Path(env).is_file():
        return env
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Page:
    """``Page(binary).load(url)`` → console errors, image states, a screenshot."""

    def __init__(self, binary: str, timeout_s: float = 90.0):
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="ndncc-chromium-")
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()
        hi_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(res_w, fcntl.F_DUPFD, 10)

        def child() -> None:  # Chromium reads commands on fd 3 and answers on fd 4
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}",
                "--window-size=1200,900",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,  # fds 3 and 4 are made in the child, after the fork
            preexec_fn=child,
        )
        for fd in (cmd_r, res_w, hi_r, hi_w):
            os.close(fd)
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []
        self.session: str | None = None

    # ---- protocol -------------------------------------------------------------------------

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer")
            ready, _, _ = select.select([self.res_r], [], [], left)
            if ready:
                chunk = os.read(self.res_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        self.next_id += 1
        msg: dict = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> dict:
        deadline = time.monotonic() + self.timeout_s
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self._read_message(deadline)
            if e.get("method") == method:
                return e
            self.events.append(e)

    # ---- what the tests use -----------------------------------------------------------------

    def load(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, False
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return r["result"].get("value")

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors (failed loads) so far."""
        self.evaluate("1")  # flush pending events
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(json.dumps(p.get("args")))
            elif m == "Runtime.exceptionThrown":
                out.append(json.dumps(p.get("exceptionDetails")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out

    def screenshot(self, path: Path) -> Path:
        r = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(r["data"]))
        return path

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.cmd_w, self.res_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)
