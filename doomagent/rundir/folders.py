"""Output folders: one writer at a time (an exclusive lock that names its holder), and typed errors for
folders that cannot be written (a file in the way, no permission, a full disk)."""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from doomagent.errors import ConfigError, DiskError

LOCK_NAME = ".doomagent.lock"


def make_folder(folder: Path, what: str = "--out") -> Path:
    """Create `folder` (and its parents); a typed error when it cannot be a writable folder."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{what} {folder} is a file, not a folder", hint="give a folder path")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create {what} {folder}: {exc.strerror or exc}", hint="pick a writable folder"
        ) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} {folder} is not writable", hint="pick a writable folder, or fix its permissions")
    return folder


@contextmanager
def exclusive(folder: Path, what: str) -> Iterator[None]:
    """Hold an exclusive lock on `folder` while the block runs; a second holder is refused at once,
    told who holds it. The lock dies with its process (flock), so a killed run never leaves it stuck."""
    make_folder(folder)
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ConfigError(f"cannot lock {folder}: {exc.strerror or exc}", hint="pick a writable folder") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 400, 0).decode("utf-8", "replace").strip() or "another process"
            raise ConfigError(
                f"{folder} is in use: {holder}",
                hint="wait for that run to finish, or give another --out",
            ) from None
        note = f"pid {os.getpid()} on {socket.gethostname()}, `{what}` since {time.strftime('%Y-%m-%d %H:%M:%S')}"
        os.ftruncate(fd, 0)
        os.pwrite(fd, note.encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def disk_error(exc: OSError) -> DiskError:
    """Return a typed error for a failed write."""
    where = f" ({exc.filename})" if exc.filename else ""
    if exc.errno == errno.ENOSPC:
        return DiskError(f"the disk is full{where}", hint="free some space, then rerun with --resume")
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return DiskError(f"cannot write{where}: {exc.strerror}", hint="make the folder writable, or pick another --out")
    return DiskError(f"writing run files failed{where}: {exc.strerror or exc}")


__all__ = ["LOCK_NAME", "DiskError", "disk_error", "exclusive", "make_folder"]
