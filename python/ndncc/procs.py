"""Process helpers shared by the drivers (the sweep backends, the result store's locks, the
emulation's namespace clean-up)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Whether process `pid` still runs on this host: it exists (another user's counts) and,
    on Linux, is not a zombie (a killed process its parent has not reaped yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True
