"""Give ViZDoom a demo path it can take: its `new_episode(path)` hangs for ever (the engine spinning) when the
path is longer than 113 characters, as pytest's and many users' run folders are.

A longer path is reached through a symbolic link in a short temporary folder, so the engine writes the demo
straight into the run folder; the links are removed once the engine has closed (it writes the demo's end
then).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from doomagent.errors import ConfigError

MAX_PATH = 100  # ViZDoom hangs from 114 characters; keep a margin


class DemoPaths:
    """Short stand-ins for long demo paths, kept until `release`."""

    def __init__(self) -> None:
        self._folders: list[Path] = []

    def engine_path(self, demo: Path) -> str:
        """Return a path of at most MAX_PATH characters at which the engine's writes land in `demo`."""
        full = str(demo.resolve())
        if len(full) <= MAX_PATH:
            return full
        base = "/tmp" if os.access("/tmp", os.W_OK) else tempfile.gettempdir()
        folder = Path(tempfile.mkdtemp(prefix="da-", dir=base))
        self._folders.append(folder)
        link = folder / "t"
        link.symlink_to(demo.resolve().parent, target_is_directory=True)
        short = str(link / demo.name)
        if len(short) > MAX_PATH:
            raise ConfigError(
                f"the demo file name {demo.name!r} is too long for the engine ({len(short)} characters with the "
                f"temporary folder; ViZDoom takes at most {MAX_PATH})",
                hint="record to a shorter file name",
            )
        return short

    def release(self) -> None:
        """Remove the stand-ins (after the engine closed)."""
        for folder in self._folders:
            shutil.rmtree(folder, ignore_errors=True)
        self._folders.clear()
