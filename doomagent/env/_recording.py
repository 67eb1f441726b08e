"""Demos: replaying a recorded one (DemoReplay, DoomEnv's `replay` and `replay_at`), and giving ViZDoom a demo
path it can take when recording: its `new_episode(path)` hangs for ever (the engine spinning) when the
path is longer than 113 characters, as pytest's and many users' run folders are.

A longer path is reached through a symbolic link in a short temporary folder, so the engine writes the demo
straight into the run folder; the links are removed once the engine has closed (it writes the demo's end
then).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doomagent.env._engine import demo_file
from doomagent.errors import ConfigError

if TYPE_CHECKING:
    from doomagent.env.observation import Observation
    from doomagent.env.tracker import RoomTracker

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


class DemoReplay:
    """DoomEnv's replays of recorded demos (a mixin: it uses the environment's engine, tracker and observer)."""

    _game: Any
    _frame: int
    _obs: Observation | None
    _replaying: Path | None
    _done: bool
    tracker: RoomTracker

    def _engine(self, fn: Any, *args: Any) -> Any:
        raise NotImplementedError

    def _observe(self) -> Observation:
        raise NotImplementedError

    def _position(self) -> tuple[float, float]:
        raise NotImplementedError

    def replay(self, demo: str | Path, *, every: int = 1) -> Iterator[Observation]:
        """Replay a recorded demo headless, yielding an observation every `every` tics."""
        self._start_replay(demo_file(demo))
        while not self._game.is_episode_finished():
            if self._frame % every == 0:
                self._obs = self._observe()
                yield self._obs
            self._engine(self._game.advance_action, 1, True)
            self._frame += 1
            self.tracker.update(self._frame, *self._position())

    def replay_at(self, demo: str | Path, frame: int) -> Observation:
        """Return the observation at `frame` of a recorded demo (the screen a decision at that frame saw).

        Seeking forward renders only the asked-for tic, so scrubbing is fast; seeking back restarts the demo.
        """
        path = demo_file(demo)
        game = self._game
        if self._replaying != path or frame < self._frame or self._obs is None:
            self._start_replay(path)
            self._obs = self._observe()
        gap = frame - self._frame
        if gap > 1 and not game.is_episode_finished():
            self._engine(game.advance_action, gap - 1, False)
            self._frame += gap - 1
        if gap >= 1 and not game.is_episode_finished():
            self._engine(game.advance_action, 1, True)
            self._frame += 1
            if not game.is_episode_finished():
                self._obs = self._observe()
        assert self._obs is not None
        return self._obs

    def _start_replay(self, path: Path) -> None:
        self._engine(self._game.replay_episode, str(path))
        self._replaying = path
        self._frame = 0
        x, y = self._position()
        self.tracker.reset(0, x, y)
        self._done = True  # a replay is not steppable
