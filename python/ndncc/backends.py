"""Where the runs of a campaign execute: in the driver (one job), a local process pool (the
default), or a ``dask.distributed`` cluster (``--dask ADDRESS``, ``--dask local``).

All three are ``concurrent.futures`` executors behind one small interface; the driver keeps
at most ``window`` runs submitted at a time, so it can restart a broken pool and keep the
longest-first order. See ``docs/sweeps.md`` for clusters (dask-jobqueue on SLURM).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import sys
import threading
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from . import interrupt
from .procs import pid_alive

__all__ = ["Backend", "BackendError", "check_dask_address", "default_jobs", "open_backend"]

#: how long to wait for a Dask scheduler to answer (seconds; $NDNCC_DASK_TIMEOUT)
DASK_TIMEOUT_S = 20.0
_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
_ADDRESS = re.compile(
    r"^(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})$"
)


class BackendError(Exception):
    """An executor that cannot be had: a bad --dask address, no scheduler there, no dask."""


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def check_dask_address(text: str) -> str:
    """``local``, a scheduler address (``tcp://host:8786``, ``host:8786``) or a scheduler
    file (``*.json``, as ``dask scheduler --scheduler-file`` writes); raises BackendError."""
    if text == "local":
        return text
    if text.endswith(".json"):
        if not Path(text).is_file():
            raise BackendError(f"--dask {text}: scheduler file not found")
        return text
    m = _ADDRESS.match(text)
    if m is None or not 1 <= int(m["port"]) <= 65535:
        raise BackendError(
            f"--dask {text!r}: expected 'local', a scheduler address such as "
            "tcp://10.0.0.5:8786 or a scheduler file (*.json)"
        )
    if m["scheme"] and m["scheme"] not in _SCHEMES:
        raise BackendError(f"--dask {text!r}: unknown protocol {m['scheme']!r} (use tcp://)")
    return text if m["scheme"] else f"tcp://{text}"


class _Inline(Executor):
    """Runs each call at submit, in the driver (``--jobs 1``)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        f: Future = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 - handed to the caller through the future
            if isinstance(e, KeyboardInterrupt):
                raise
            f.set_exception(e)
        return f


def _watch_driver(pid: int) -> None:
    while True:
        time.sleep(0.5)
        if not pid_alive(pid):  # the driver was killed: stop now, do not linger as an orphan
            os._exit(1)


def _worker_init(driver: int) -> None:
    # Ctrl-C reaches the whole process group: the driver stops the workers (Backend.close)
    interrupt.ignore()
    # (a pool worker's parent is the fork server, which outlives a killed driver as long as
    # its workers live: so watch the driver itself)
    threading.Thread(target=_watch_driver, args=(driver,), daemon=True).start()


class Backend:
    """An executor, how many runs it runs at once (``workers``) and how many the driver keeps
    submitted (``window``)."""

    kind = "inline"

    def __init__(self, executor: Executor, workers: int, window: int):
        self.executor = executor
        self._workers = workers
        self.window = window

    @property
    def workers(self) -> int:
        return self._workers

    def submit(self, fn, *args: Any) -> Future:
        return self.executor.submit(fn, *args)

    def restart(self) -> None:
        """A fresh executor after a broken one (a pool whose worker process died)."""

    def close(self, now: bool = False) -> None:
        """Lets the executor go; `now` (an interrupted campaign): the runs under way are
        stopped, not awaited."""
        self.executor.shutdown(wait=False, cancel_futures=True)

    def describe(self) -> str:
        return "in this process"


class _Pool(Backend):
    kind = "pool"

    def __init__(self, jobs: int):
        self.jobs = jobs
        super().__init__(self._new(), jobs, 2 * jobs)

    def _new(self) -> ProcessPoolExecutor:
        # forkserver: workers do not inherit the driver's threads or its lock on the store,
        # and exit when the driver is killed (see _worker_init)
        # (a driver run from stdin or `python -c` has no main file to re-import: fork then)
        main = getattr(sys.modules.get("__main__"), "__file__", None)
        methods = multiprocessing.get_all_start_methods()
        if main is not None and not Path(main).is_file() and "fork" in methods:
            method = "fork"
        else:
            method = "forkserver" if "forkserver" in methods else "spawn"
        ctx = multiprocessing.get_context(method)
        from multiprocessing import forkserver, resource_tracker

        # the helper processes start now, ignoring Ctrl-C: the terminal sends it to the whole
        # process group, and only the driver is to act on it (a fork server's workers inherit
        # its disposition)
        with interrupt.ignored():
            resource_tracker.ensure_running()
            if method == "forkserver":
                forkserver.ensure_running()
            return ProcessPoolExecutor(
                self.jobs, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)
            )

    def restart(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._new()

    def close(self, now: bool = False) -> None:
        if not now:
            super().close()
            return
        # stop the workers: the pool's manager thread sees them gone, fails what they held
        # and ends, so nothing (nor the interpreter's exit) waits for a run to finish; the
        # futures are not cancelled first (Python 3.11 then fails on a cancelled one)
        for proc in list((getattr(self.executor, "_processes", None) or {}).values()):
            proc.terminate()
        self.executor.shutdown(wait=True)

    def describe(self) -> str:
        return f"{self.jobs} local processes"


class _Dask(Backend):
    kind = "dask"

    def __init__(self, address: str, jobs: int | None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise BackendError(
                "--dask needs dask.distributed: pip install 'dask[distributed]' (or ndncc[dask])"
            ) from None
        import logging

        timeout = float(os.environ.get("NDNCC_DASK_TIMEOUT", DASK_TIMEOUT_S))
        self.cluster = None
        self.address = address
        try:
            if address == "local":
                self.cluster = LocalCluster(
                    n_workers=jobs or default_jobs(),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
                self.client = Client(self.cluster, timeout=timeout)
            elif address.endswith(".json"):
                self.client = Client(scheduler_file=address, timeout=timeout)
            else:
                self.client = Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as e:
            if self.cluster is not None:
                self.cluster.close()
            raise BackendError(
                f"--dask {address}: no Dask scheduler answered within {timeout:g} s ({e})"
            ) from None
        # pure=False: identical calls are distinct runs, never a cached (failed) future
        super().__init__(self.client.get_executor(pure=False), 0, 0)

    @property
    def workers(self) -> int:
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a scheduler that went away: the driver will see
            return 1

    @property
    def window(self) -> int:  # workers come and go (dask-jobqueue): keep them all busy
        return max(64, 2 * self.workers)

    @window.setter
    def window(self, _value: int) -> None:
        pass

    def close(self, now: bool = False) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()

    def describe(self) -> str:
        where = "a local Dask cluster" if self.cluster is not None else f"Dask at {self.address}"
        return f"{where} ({self.workers} worker threads)"


def open_backend(jobs: int | None = None, dask: str | None = None) -> Backend:
    """The executor for a campaign: Dask when `dask` is given, else `jobs` local processes
    (default: one per core), else the driver itself when jobs == 1."""
    if dask is not None:
        return _Dask(check_dask_address(dask), jobs)
    n = jobs or default_jobs()
    if n == 1:
        return Backend(_Inline(), 1, 1)
    return _Pool(n)
