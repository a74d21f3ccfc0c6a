"""Ctrl-C in the ``ndncc`` command. The first one stops the command: a KeyboardInterrupt, so
its clean-up runs (a campaign stops its runs and writes its index) and the command exits 130
with one line, ``interrupted``. A second one while it stops changes nothing (the clean-up is
short and bounded); a third ends the process at once, with the same code. As the process's own
command, the interpreter then exits with Ctrl-C ignored: never a traceback, never a death by
the signal half-way through the exit.

The processes of a campaign's pool (the fork server, its workers, the resource tracker) are in
the terminal's process group too: they start with Ctrl-C ignored (:func:`ignored`), and a
worker ignores it again (:func:`ignore`, for pools whose workers are not forked from such a
fork server); the driver stops them.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["EXIT_INTERRUPTED", "handled", "ignore", "ignored", "say_interrupted"]

EXIT_INTERRUPTED = 130
#: Ctrl-C seen during the command; the third ends the process
_count = 0
_said = False


def say_interrupted(raw: bool = False) -> None:
    """Writes the one line to stderr, once per command; `raw`: straight to file descriptor 2
    (in a signal handler, which may have stopped the main thread inside a write)."""
    global _said
    if _said:
        return
    _said = True
    if raw:
        os.write(2, b"interrupted\n")
    else:
        print("interrupted", file=sys.stderr, flush=True)


def _on_sigint(signum, frame) -> None:
    global _count
    _count += 1
    if _count == 1:
        raise KeyboardInterrupt
    if _count >= 3:
        say_interrupted(raw=True)
        os._exit(EXIT_INTERRUPTED)


@contextmanager
def handled(command: bool) -> Iterator[None]:
    """Ctrl-C as the module says, while a command runs. `command`: the process's own command
    (not a call from Python), which exits next — after an interrupt, Ctrl-C stays ignored;
    otherwise the caller's handler is put back."""
    global _count, _said
    _count, _said = 0, False
    try:
        old = signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN if command and _count else old)


@contextmanager
def ignored() -> Iterator[None]:
    """Ctrl-C ignored while the block starts processes: an ignored signal stays ignored across
    exec, and a Python started so installs no handler of its own, so they ignore it from their
    first instruction (the driver stops them). A Ctrl-C in these few milliseconds is lost."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def ignore() -> None:
    """In a worker process: Ctrl-C (sent to the terminal's whole process group) is the
    driver's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
