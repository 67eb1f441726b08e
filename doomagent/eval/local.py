"""The local backend: trials in worker processes on this machine, sharing one limits holder."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import secrets
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing.managers import BaseManager
from pathlib import Path
from typing import Any

from doomagent._internal.proc import die_with_parent, sigterm_as_interrupt
from doomagent.eval.jobs import EvalLimits, Event, Finished, Job
from doomagent.providers.limits import Coordinator, Limits

_SERVED: Coordinator | None = None  # in the limits server's process: the one Coordinator of the eval


def _served(limits: EvalLimits | None = None) -> Coordinator:
    """Return the eval's Coordinator, made from `limits` by the eval's first call (workers pass none)."""
    global _SERVED
    if limits is not None:
        _SERVED = limits.coordinator()
    assert _SERVED is not None
    return _SERVED


class _LimitsManager(BaseManager):
    """Serves the eval's Coordinator, from a process of its own, to the eval and its workers."""


_LimitsManager.register("limits", callable=_served, exposed=("reserve", "release", "charge", "exhausted", "spent"))


class LocalBackend:
    """Play trials in a pool of worker processes (a fork server that preloaded the engine and graph)."""

    def __init__(self, *, workers: int, limits: EvalLimits) -> None:
        self.limits: Limits | None = None
        self.capacity = max(1, workers)
        address: tuple[str, int] | None = None
        key = secrets.token_bytes(16)
        self._manager: _LimitsManager | None = None
        # Workers start in milliseconds from a fork server that imported the heavy modules once, with no
        # engine or thread state inherited from this process (as plain fork would).
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["doomagent.graph", "doomagent.nodes", "doomagent.env", "vizdoom"])
        if limits.active:
            self._manager = _LimitsManager(address=("127.0.0.1", 0), authkey=key, ctx=ctx)
            self._manager.start(initializer=die_with_parent)
            self.limits = self._manager.limits(limits)  # type: ignore[attr-defined]
            address = self._manager.address  # type: ignore[assignment]
        self._events = ctx.Queue()
        self._pool = ProcessPoolExecutor(
            max_workers=max(1, workers),
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(self._events, os.getpid(), dict(os.environ), address, key),
        )
        self._running: dict[Future[dict[str, Any]], Job] = {}

    def submit(self, job: Job) -> None:
        """Start a trial in a worker."""
        self._running[self._pool.submit(_play, job)] = job

    def poll(self, timeout: float) -> list[Finished]:
        """Return the trials that ended."""
        if not self._running:
            return []
        finished, _ = wait(set(self._running), timeout=timeout, return_when=FIRST_COMPLETED)
        return [Finished(self._running.pop(f), f.result()) for f in finished]

    def events(self) -> list[Event]:
        """Return the workers' news."""
        out = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except (queue.Empty, EOFError, OSError):
                return out

    def interrupt(self, timeout: float = 8.0) -> None:
        """Stop the running trials as Ctrl-C would (each writes its summary); wait up to `timeout` for them."""
        for process in list(getattr(self._pool, "_processes", {}).values()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
        if self._running:
            wait(set(self._running), timeout=timeout)

    def close(self) -> None:
        """Stop the workers and the limits server."""
        self._pool.shutdown(wait=not self._running, cancel_futures=True)
        if self._manager is not None:
            self._manager.shutdown()


_EVENTS: Any = None  # in a worker: the queue back to the eval
_PARENT = 0  # in a worker: the eval's pid
_LIMITS: Limits | None = None  # in a worker: the eval's limits, through the manager


def _init_worker(
    events: Any, parent: int, environ: dict[str, str], address: tuple[str, int] | None, key: bytes
) -> None:
    """Set a worker up: its news queue, death with the fork server (which dies with the eval), the eval's
    environment (the fork server may have started before a key variable was set) and its shared limits."""
    global _EVENTS, _PARENT, _LIMITS
    die_with_parent()
    os.environ.clear()
    os.environ.update(environ)
    _EVENTS, _PARENT = events, parent
    if address is not None:
        manager = _LimitsManager(address=address, authkey=key)
        manager.connect()
        _LIMITS = manager.limits()  # type: ignore[attr-defined]


def _play(job: Job) -> dict[str, Any]:
    """Play one trial in a worker process; return its summary."""
    from doomagent.eval.worker import play_job

    parent = _PARENT

    def alive(_: Any) -> None:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:  # the eval was killed: stop rather than write on as an orphan
            os._exit(3)

    try:
        with sigterm_as_interrupt():  # a stopped eval (or its whole process group) ends the trial with its summary
            return play_job(job, folder=Path(job.folder), emit=_EVENTS.put, limits=_LIMITS, on_decision=alive)
    except KeyboardInterrupt:
        # The trial's files are written: the worker now dies of the signal, as it would have without the
        # handler (an interrupted worker that waited for its next job would keep the pool, and the eval, alive).
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        raise
