"""Child processes that never outlive doomagent: the engine, local model servers, eval workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def die_with_parent() -> None:
    """In a child process: ask Linux to send it SIGTERM when its parent dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def children(pid: int | None = None) -> set[int]:
    """Return the pids of a process's children (Linux /proc; empty elsewhere)."""
    parent = os.getpid() if pid is None else pid
    found: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            found.add(int(stat.parent.name))
    return found


def descendants(pid: int) -> set[int]:
    """Return the pids of a process's children, their children, and so on (Linux /proc; empty elsewhere)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM (kill, a scheduler's stop) like Ctrl-C: the trial ends cleanly with its files written.

    Only the first SIGTERM interrupts: more of them (a worker also hears its parent die) would cut short the
    writing of what the first one asked to keep.
    """

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Reaper:
    """Kill `pids` if this process dies without calling `release()` (a crash, SIGKILL, os._exit).

    A tiny shell waits on a pipe that only this process holds: the pipe closes when the process dies,
    however it dies, and the shell then kills the pids. ViZDoom's engine ignores its parent's death, so
    without this an interrupted trial would leave it running.
    """

    def __init__(self, pids: set[int]) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        if not pids or not sys.platform.startswith("linux"):
            return
        targets = " ".join(str(p) for p in sorted(pids))
        self.process = subprocess.Popen(
            ["/bin/sh", "-c", f"cat >/dev/null; kill -9 {targets} 2>/dev/null"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to the terminal's process group does not fire it early
        )

    def release(self) -> None:
        """Stand down (the pids were stopped properly)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process = None
