"""Append-only run logs: one JSON line per step and per model call, prompts stored once by hash."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import IO, Any


class RunLog:
    """Write steps.jsonl, calls.jsonl and prompts/<hash>.txt under `folder`; in memory when folder is None.

    Each line is written whole and flushed, so a killed run leaves no partial line behind the last one.
    A new log empties logs already in the folder; `append=True` (a resumed trial) goes on after them.
    """

    def __init__(self, folder: Path | None, *, full_prompts: bool = False, append: bool = False) -> None:
        self.folder = folder
        self.full_prompts = full_prompts
        self.steps: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self._files: dict[str, IO[str]] = {}
        self._lock = threading.Lock()  # Experts log from several threads at once
        if folder is not None:
            (folder / "prompts").mkdir(parents=True, exist_ok=True)
            for name in ("steps.jsonl", "calls.jsonl"):  # both exist even when no model plays
                (folder / name).touch()
            if not append:
                for path in folder.glob("*.jsonl"):
                    path.open("w").close()

    def _write(self, name: str, record: dict[str, Any]) -> None:
        if self.folder is None:
            return
        handle = self._files.get(name)
        if handle is None:
            # backslashreplace: a lone surrogate from a model (valid JSON, not valid UTF-8) is stored as its
            # escape, which json.loads reads back; nothing a model says can stop the log.
            handle = self._files[name] = (self.folder / name).open("a", encoding="utf-8", errors="backslashreplace")
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        handle.flush()

    def write(self, name: str, record: dict[str, Any]) -> None:
        """Append a record to another log of the trial (e.g. audit.jsonl)."""
        with self._lock:
            self._write(name, record)

    def step(self, record: dict[str, Any]) -> None:
        """Record one decision."""
        with self._lock:
            self.steps.append(record)
            self._write("steps.jsonl", record)

    def call(self, record: dict[str, Any], prompt: str) -> None:
        """Record one model call; the prompt goes inline or to prompts/<sha256>.txt."""
        digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        record = {**record, "prompt_sha": digest}
        if self.full_prompts:
            record["prompt"] = prompt
        with self._lock:
            if not self.full_prompts and self.folder is not None:
                path = self.folder / "prompts" / f"{digest}.txt"
                if not path.exists():
                    tmp = path.with_suffix(".tmp")
                    tmp.write_text(prompt, encoding="utf-8", errors="backslashreplace")
                    os.replace(tmp, path)
            self.calls.append(record)
            self._write("calls.jsonl", record)

    def close(self) -> None:
        """Close the files."""
        failure: OSError | None = None
        for handle in self._files.values():
            try:
                handle.close()
            except OSError as exc:  # a full disk fails the last flush: close the others all the same
                failure = failure or exc
        self._files.clear()
        if failure is not None:
            raise failure
