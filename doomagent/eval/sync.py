"""Carry a trial folder between machines that share no file system: whole, or as the changes since last time.

A trial folder grows by appending to its logs (*.jsonl) and adding files (live/, the demo, summary.json,
checkpoint/). `FolderSync` on the worker sends what changed since its last `delta()`; `apply_delta` on the
driver writes it into the driver's copy, logs before the checkpoint's meta.json (its commit point), so the
driver's copy is always a folder a new worker could resume from.
"""

from __future__ import annotations

import io
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from doomagent import rundir
from doomagent.errors import RunError

Delta = dict[str, object]
_LAST = ("checkpoint/meta.json", rundir.SUMMARY)  # written after everything else they vouch for


def pack(folder: Path) -> bytes:
    """Return a folder's files as a gzip tar (empty bytes for a missing folder)."""
    if not folder.is_dir():
        return b""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=3) as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.endswith(".tmp"):
                tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return buffer.getvalue()


def unpack(data: bytes, folder: Path) -> None:
    """Write a `pack` result into `folder` (refusing names that would leave it)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not data:
        return
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(folder, filter="data")


@dataclass
class FolderSync:
    """Track a trial folder on a worker and return what changed since the last delta."""

    folder: Path
    sizes: dict[str, int] = field(default_factory=dict)  # log -> bytes already sent
    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)  # other file -> (size, mtime) sent

    @classmethod
    def after_unpack(cls, folder: Path, log_starts: dict[str, int]) -> FolderSync:
        """Track a folder the driver sent whole: its files are there already; logs go on from `log_starts`
        (a resumed trial cuts its logs back to its checkpoint's lengths first)."""
        sync = cls(folder, sizes=dict(log_starts))
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix != ".jsonl":
                stat = path.stat()
                sync.stamps[path.relative_to(folder).as_posix()] = (stat.st_size, stat.st_mtime_ns)
        return sync

    def delta(self) -> Delta:
        """Return appended log bytes, new or changed files and removed files since the last call."""
        appended: dict[str, tuple[int, bytes]] = {}
        put: dict[str, bytes] = {}
        seen: set[str] = set()
        for path in sorted(self.folder.rglob("*")):
            if not path.is_file() or path.name.endswith(".tmp"):
                continue
            name = path.relative_to(self.folder).as_posix()
            if path.suffix == ".jsonl" and "/" not in name:
                start = self.sizes.get(name, 0)
                with path.open("rb") as handle:
                    handle.seek(start)
                    data = handle.read()
                if data or name not in self.sizes:
                    appended[name] = (start, data)
                    self.sizes[name] = start + len(data)
                continue
            seen.add(name)
            stat = path.stat()
            stamp = (stat.st_size, stat.st_mtime_ns)
            if self.stamps.get(name) != stamp:
                put[name] = path.read_bytes()
                self.stamps[name] = stamp
        gone = sorted(set(self.stamps) - seen)
        for name in gone:
            del self.stamps[name]
        return {"append": appended, "put": put, "delete": gone}


def apply_delta(folder: Path, delta: Delta) -> None:
    """Write a worker's changes into the driver's copy of the trial folder."""
    folder.mkdir(parents=True, exist_ok=True)
    appended = delta.get("append") or {}
    put = delta.get("put") or {}
    gone = delta.get("delete") or []
    assert isinstance(appended, dict) and isinstance(put, dict) and isinstance(gone, list)
    for name, (start, data) in appended.items():
        path = _inside(folder, name)
        with path.open("r+b" if path.exists() else "wb") as handle:
            handle.truncate(start)
            handle.seek(start)
            handle.write(data)
    for name in sorted(put, key=lambda n: n in _LAST):
        path = _inside(folder, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(put[name])
        os.replace(tmp, path)
    for name in gone:
        path = _inside(folder, name)
        path.unlink(missing_ok=True)
        if path.parent != folder.resolve() and not any(path.parent.iterdir()):
            path.parent.rmdir()  # e.g. checkpoint/ once a finished trial has dropped it


def _inside(folder: Path, name: str) -> Path:
    path = (folder / name).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise RunError(f"a worker sent a file outside its trial folder: {name!r}")
    return path
