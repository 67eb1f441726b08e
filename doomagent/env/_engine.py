"""Calls into the ViZDoom engine that can never hang the process, and a way to let go of a dead engine.

ViZDoom talks to its engine process through message queues in shared memory. An engine that dies in the middle
of a call can leave a queue's lock held for ever, and then the call (or `DoomGame.close()`, or the game's
destructor) waits for ever: measured here, a SIGKILL during `advance_action` blocks it indefinitely, and the
same happens when `timeout`, systemd or Slurm signal the whole process group. So every call that waits on the
engine runs on a thread of its own while the caller watches the engine's process; once the engine is gone and
the call has not come back, the caller gets an `EngineError` and the thread is left where it is.

A game whose engine died is kept alive for ever (`abandon`): its destructor would wait on the dead engine too.
Nothing ends the interpreter early, so a program's exit status is always the one it asked for.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from doomagent.errors import ConfigError, EngineError

T = TypeVar("T")

_POLL_S = 0.25  # how often a waiting caller looks at the engine's process
_GRACE_S = 1.0  # after the engine is gone: how long a call may still take to come back with ViZDoom's own error
_CLOSE_S = 10.0  # the longest a live engine may take to close (it finishes writing its demo)

_ABANDONED: list[Any] = []

STARTING = threading.Lock()
"""Held while a game of this process reads its map and starts its engine; another game's thread waits.

Two reasons, both seen with two MCP sessions starting games at once: the engine's pid is told apart as the
child process that appeared while `init()` ran, which another engine starting meanwhile would join; and the
engine starts with a `fork()`, on which numpy's OpenBLAS shuts its worker threads down, so a thread in the
middle of a BLAS call (the rooms' `eigh`) waits for them for ever at full CPU (reproduced: one thread in a loop
of `eigh` on 200x200 matrices, the other forking `/bin/true` 100 times, never returns).
"""


def dead_engine_hint() -> str:
    """Return the hint every dead-engine error carries."""
    return "the trial ended early; `doomagent eval` plays such a trial once more"


def process_alive(pid: int) -> bool:
    """Return True while process `pid` exists and is neither a zombie nor dead (Linux /proc)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@dataclass
class _Job:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


class EngineLink:
    """Run blocking calls into one engine's game on a helper thread, giving up on them once the engine is gone.

    A game whose engine died is abandoned at once (see `abandon`), so that nothing, not even the interpreter's
    exit, ever calls its close or destructor.
    """

    def __init__(self, game: Any, pids: set[int]) -> None:
        self.game = game
        self.pids = frozenset(pids)
        self.stuck = False  # a call never came back from the dead engine: nothing more may be sent to it
        self.abandoned = False
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="vizdoom-engine", daemon=True)
        self._thread.start()

    def alive(self) -> bool:
        """Return True while every process of the engine runs."""
        return all(process_alive(pid) for pid in self.pids)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Return `fn(*args)` run on the helper thread; raise EngineError if the engine dies meanwhile."""
        if self.stuck:
            raise EngineError("the ViZDoom engine stopped unexpectedly", hint=dead_engine_hint())
        job = _Job(fn, args)
        self._jobs.put(job)
        try:
            self._wait(job, None)
        except EngineError:
            self._let_go()
            raise
        if job.error is not None:
            if not self.alive():
                self._let_go()
            raise job.error
        return job.result

    def finish(self, timeout: float = _CLOSE_S) -> bool:
        """Close the game (a live engine finishes its demo and quits) and stop the helper thread; return False
        if the engine was dead or did not close within `timeout` (the game is then abandoned)."""
        if self.stuck or not self.alive():
            self._let_go()
            return False
        job = _Job(self.game.close, ())
        self._jobs.put(job)
        try:
            self._wait(job, timeout)
        except EngineError:
            self._let_go()
            return False
        self._jobs.put(None)
        return job.error is None

    def _let_go(self) -> None:
        if not self.abandoned:
            self.abandoned = True
            abandon(self.game)

    def _wait(self, job: _Job, timeout: float | None) -> None:
        waited = 0.0
        while not job.done.wait(_POLL_S):
            waited += _POLL_S
            if not self.alive() or (timeout is not None and waited >= timeout):
                if job.done.wait(_GRACE_S):
                    return
                self.stuck = True
                raise EngineError("the ViZDoom engine stopped unexpectedly", hint=dead_engine_hint())

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job.result = job.fn(*job.args)
            except BaseException as exc:  # handed to the caller, who raises it
                job.error = exc
            job.done.set()


def own_session_launcher(engine: Path, folder: Path) -> Path:
    """Return an executable that starts `engine` in a session of its own (written once into `folder`).

    Signals meant for doomagent's process group (`timeout`, systemd, Slurm and Kubernetes signal the whole
    group; so does a terminal's Ctrl-C) then reach doomagent alone, which ends the trial and closes the engine
    properly, instead of the engine dying in the middle of a call. The launcher execs (no fork), so the engine
    keeps the pid ViZDoom waits on.
    """
    script = (
        "#!/bin/sh\n"
        "# doomagent: the ViZDoom engine in a session of its own (see doomagent/env/_engine.py)\n"
        f'exec "{sys.executable}" -S -c "import os, sys; os.setsid(); os.execv(sys.argv[1], sys.argv[1:])" '
        f'"{engine}" "$@"\n'
    )
    path = folder / f"vizdoom-session-{hashlib.sha256(script.encode()).hexdigest()[:10]}.sh"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".part{os.getpid()}")
        partial.write_text(script, encoding="utf-8")
        partial.chmod(0o755)
        os.replace(partial, path)  # atomic: another process starting an engine never runs half a script
    return path


def abandon(game: object) -> None:
    """Keep `game` alive until the process ends, so that its destructor (which waits on the engine) never runs.

    The extra reference is never given back: at exit the interpreter leaves such objects alone instead of
    destroying them, so the exit status stays the program's own.
    """
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(game))
    _ABANDONED.append(game)


def abandoned_engines() -> int:
    """Return how many engines died in this process (their games could not be closed)."""
    return len(_ABANDONED)


# The game variables DoomEnv asks the engine for, in this order.
AMMO_VARIABLES = {"bullets": "AMMO2", "shells": "AMMO3", "rockets": "AMMO5", "cells": "AMMO6"}
GAME_VARIABLES = (
    "POSITION_X",
    "POSITION_Y",
    "POSITION_Z",
    "ANGLE",
    "HEALTH",
    "ARMOR",
    "SELECTED_WEAPON",
    "SELECTED_WEAPON_AMMO",
    *AMMO_VARIABLES.values(),
    *(f"WEAPON{i}" for i in range(1, 8)),
    "KILLCOUNT",
    "ITEMCOUNT",
    "SECRETCOUNT",
)
WARMUP_TICS = 10
VARIABLE_INDEX = {name: i for i, name in enumerate(GAME_VARIABLES)}


def is_engine(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip().startswith("vizdoom")
    except OSError:
        return False


def engine_failure(exc: Exception) -> Exception:
    """Return an EngineError for the engine's own exceptions (it died or stopped); others unchanged."""
    if type(exc).__module__.startswith("vizdoom") or "ViZDoom" in type(exc).__name__:
        return EngineError(
            f"the ViZDoom engine stopped unexpectedly ({type(exc).__name__}: {exc})", hint=dead_engine_hint()
        )
    return exc


def demo_file(demo: str | Path) -> Path:
    """Return a demo's path; ConfigError when there is no such file."""
    path = Path(demo)
    if not path.is_file():
        raise ConfigError(f"demo file not found: {path}")
    return path
