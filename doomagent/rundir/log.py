"""Append-only run logs: one JSON line per step and per model call, each distinct prompt stored once."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import IO, Any

from doomagent import rundir


class RunLog:
    """Write steps.jsonl, calls.jsonl and prompts.jsonl under `folder`; in memory when folder is None.

    A call's line names its prompt by `prompt_sha`; prompts.jsonl holds each distinct prompt once,
    `{"sha": ..., "prompt": ...}`, written before the first call line that names it. (Folders of versions
    before 0.3 hold prompts/<sha>.txt files instead.) Each line is written whole and flushed, so a killed
    run leaves no partial line behind the last one. A new log empties logs already in the folder;
    `append=True` (a resumed trial) goes on after them.
    """

    def __init__(self, folder: Path | None, *, full_prompts: bool = False, append: bool = False) -> None:
        self.folder = folder
        self.full_prompts = full_prompts
        self.steps: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self._files: dict[str, IO[str]] = {}
        self._lock = threading.Lock()  # Experts log from several threads at once
        self._stored: set[str] = set()  # prompts already in prompts.jsonl (or on their way)
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            for name in (rundir.STEPS, rundir.CALLS):  # both exist even when no model plays
                (folder / name).touch()
            if not append:
                for path in folder.glob("*.jsonl"):
                    path.open("w").close()
            elif (folder / rundir.PROMPTS).is_file():
                for line in (folder / rundir.PROMPTS).read_text(encoding="utf-8", errors="replace").splitlines():
                    try:
                        self._stored.add(json.loads(line)["sha"])
                    except (ValueError, KeyError, TypeError):
                        continue

    def _append(self, name: str, line: str) -> None:
        assert self.folder is not None
        handle = self._files.get(name)
        if handle is None:
            # backslashreplace: a lone surrogate from a model (valid JSON, not valid UTF-8) is stored as its
            # escape, which json.loads reads back; nothing a model says can stop the log.
            handle = self._files[name] = (self.folder / name).open("a", encoding="utf-8", errors="backslashreplace")
        handle.write(line)
        handle.flush()

    def _write(self, name: str, record: dict[str, Any]) -> None:
        if self.folder is None:
            return
        self._append(name, json.dumps(record, ensure_ascii=False) + "\n")

    def write(self, name: str, record: dict[str, Any]) -> None:
        """Append a record to another log of the trial (e.g. audit.jsonl)."""
        with self._lock:
            self._write(name, record)

    def step(self, record: dict[str, Any]) -> None:
        """Record one decision."""
        with self._lock:
            self.steps.append(record)
            self._write(rundir.STEPS, record)

    def call(self, record: dict[str, Any], prompt: str) -> None:
        """Record one model call; the prompt goes inline or (once) to prompts.jsonl."""
        digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        record = {**record, "prompt_sha": digest}
        if self.full_prompts:
            record["prompt"] = prompt
        with self._lock:
            if not self.full_prompts and self.folder is not None and digest not in self._stored:
                self._write(rundir.PROMPTS, {"sha": digest, "prompt": prompt})
                self._stored.add(digest)
            self.calls.append(record)
            self._write(rundir.CALLS, record)

    def close(self) -> None:
        """Write what is left and close the files."""
        failure: OSError | None = None
        for handle in self._files.values():
            try:
                handle.close()
            except OSError as exc:  # a full disk fails the last flush: close the others all the same
                failure = failure or exc
        self._files.clear()
        if failure is not None:
            raise failure


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Return the whole records of a JSONL log: a last line cut short by a crash is left out."""
    return read_jsonl_counted(path)[0]


def read_jsonl_counted(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Return the whole records of a JSONL log and how many lines could not be read (cut or corrupt)."""
    records: list[dict[str, Any]] = []
    bad = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            bad += 1
    return records, bad
