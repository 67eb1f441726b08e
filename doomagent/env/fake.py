"""FakeEnv: DoomEnv with a pretend engine, for testing graphs, routers, gates and nodes without ViZDoom.

Everything above the engine is DoomEnv's own code (the action set and its frame semantics, the map's rooms
and the room tracker, outcomes, observations); only the game underneath is a small Python stand-in:

- the player starts on the map's player-1 start and walks on the floor plan: UP/DOWN move 8 units a tic
  (16 running), STRAFE LEFT/RIGHT 8, LEFT/RIGHT turn 5 degrees a tic; a step that would leave the map's
  sectors is not taken (no walls inside the map, no heights, no monsters; the live map, asked for, is the WAD's
  heights and no keys);
- the screen is a flat picture whose shade follows the view angle (so consecutive screens differ when the
  player turns); the HUD is full health, a pistol and 50 bullets;
- `die_at` / `exit_at` end the episode with a death or an exit at a given frame, for testing the episode-end
  edges; otherwise episodes end as DoomEnv's do (stuck, frame cap).

It starts no process and renders nothing, so hundreds of decisions take milliseconds:

    from doomagent import FakeEnv, run_trial
    run_trial(recipe, models=..., make_env=FakeEnv)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from doomagent.env._engine import GAME_VARIABLES
from doomagent.env.actions import BUTTON_NAMES
from doomagent.env.config import EnvConfig
from doomagent.env.doom_env import DoomEnv

WALK = 8.0  # map units a tic
TURN = 5.0  # degrees a tic
_BUTTON = {name: i for i, name in enumerate(BUTTON_NAMES)}


class _Sector:
    def __init__(self, floor: float, ceiling: float) -> None:
        self.floor_height, self.ceiling_height = floor, ceiling


class _State:
    def __init__(self, variables: list[float], screen: np.ndarray, sectors: list[_Sector]) -> None:
        self.game_variables = variables
        self.screen_buffer = screen
        self.labels: list[Any] = []
        self.objects: list[Any] = []  # no monsters, and no keys to pick up
        self.sectors = sectors  # the WAD's heights: nothing moves


class FakeGame:
    """The part of ViZDoom's DoomGame that DoomEnv uses, played by a few lines of kinematics."""

    def __init__(self, env: FakeEnv) -> None:
        self._env = env
        width, height = (int(n) for n in env.config.resolution.split("X"))
        self._screen = np.zeros((height, width, 3), dtype=np.uint8)
        self._action: list[float] = [0.0] * len(BUTTON_NAMES)
        self.x, self.y, self.angle = env.geometry.start
        self.tic = 0
        self.finished = False
        self.dead = False

    def set_seed(self, seed: int) -> None:
        """Take the seed (the fake game has no randomness)."""

    def new_episode(self, record: str | None = None) -> None:
        """Start over on the player start; a demo path is written as an empty file (there is no engine demo)."""
        if record is not None:
            Path(record).write_bytes(b"")
        self.x, self.y, self.angle = self._env.geometry.start
        self.tic = 0
        self.finished = self.dead = False

    def set_action(self, buttons: list[float]) -> None:
        """Hold these buttons for the next tics."""
        self._action = list(buttons)

    def advance_action(self, tics: int = 1, update_state: bool = True) -> None:
        """Play `tics` tics with the held buttons."""
        held = self._action
        speed = WALK * (2.0 if held[_BUTTON["SPEED"]] else 1.0)
        delta = held[len(BUTTON_NAMES)] if len(held) > len(BUTTON_NAMES) else 0.0  # an aim's turn, degrees right
        for _ in range(tics):
            self.tic += 1
            turn = TURN * (held[_BUTTON["TURN_LEFT"]] - held[_BUTTON["TURN_RIGHT"]]) - delta
            self.angle = (self.angle + turn) % 360
            forward = speed * (held[_BUTTON["MOVE_FORWARD"]] - held[_BUTTON["MOVE_BACKWARD"]])
            side = WALK * (held[_BUTTON["MOVE_LEFT"]] - held[_BUTTON["MOVE_RIGHT"]])
            rad = math.radians(self.angle)
            nx = self.x + forward * math.cos(rad) - side * math.sin(rad)
            ny = self.y + forward * math.sin(rad) + side * math.cos(rad)
            if (nx, ny) != (self.x, self.y) and self._on_floor(nx, ny):
                self.x, self.y = nx, ny
            frame = self.tic
            if self._env.die_at is not None and frame >= self._env.die_at:
                self.finished = self.dead = True
            elif self._env.exit_at is not None and frame >= self._env.exit_at:
                self.finished = True
            if self.finished:
                return

    def _on_floor(self, x: float, y: float) -> bool:
        geometry = self._env.geometry
        sector = np.array([geometry.sector_at(x, y)])
        return bool(geometry.inside_map(np.array([x]), np.array([y]), sector)[0])

    def get_last_reward(self) -> float:
        """Return 0: the fake game gives no rewards."""
        return 0.0

    def is_episode_finished(self) -> bool:
        """Return True after the scripted death or exit."""
        return self.finished

    def is_player_dead(self) -> bool:
        """Return True after the scripted death."""
        return self.dead

    def get_game_variable(self, variable: Any) -> float:
        """Return one game variable (POSITION_X/Y and ANGLE move; the rest are a fresh player's)."""
        return self._variables()[GAME_VARIABLES.index(variable.name)]

    def _variables(self) -> list[float]:
        values = {"POSITION_X": self.x, "POSITION_Y": self.y, "ANGLE": self.angle, "HEALTH": 100.0}
        values |= {"SELECTED_WEAPON": 2.0, "SELECTED_WEAPON_AMMO": 50.0, "AMMO2": 50.0, "WEAPON1": 1.0}
        values["WEAPON2"] = 1.0
        return [values.get(name, 0.0) for name in GAME_VARIABLES]

    def get_state(self) -> _State | None:
        """Return the screen and variables (None once the episode is over, as ViZDoom does)."""
        if self.finished:
            return None
        self._screen[:] = int(self.angle * 255 / 360)
        g, sectors = self._env.geometry, []
        if self._env.config.live_map:
            sectors = [_Sector(float(f), float(c)) for f, c in zip(g.sector_floor, g.sector_ceiling, strict=True)]
        return _State(self._variables(), self._screen.copy(), sectors)

    def send_game_command(self, command: str) -> None:
        """Ignore console commands."""


class FakeEnv(DoomEnv):
    """DoomEnv over FakeGame: the real action semantics, rooms, tracker and outcomes, no engine process."""

    def __init__(
        self,
        config: EnvConfig | None = None,
        *,
        die_at: int | None = None,
        exit_at: int | None = None,
        **overrides: Any,
    ) -> None:
        self.die_at, self.exit_at = die_at, exit_at
        super().__init__(config, **overrides)

    @classmethod
    def scripted(cls, *, die_at: int | None = None, exit_at: int | None = None) -> Callable[[EnvConfig], FakeEnv]:
        """Return a `make_env` for run_trial whose episodes die or exit at a given frame."""
        return lambda config: cls(config, die_at=die_at, exit_at=exit_at)

    def _make_game(self) -> Any:
        return FakeGame(self)

    def _engine(self, fn: Any, *args: Any) -> Any:
        return fn(*args)

    def close(self) -> None:
        """Nothing to stop but the demo paths' stand-ins."""
        self._game = None
        self._demos.release()

    def engine_player_sector(self) -> int:
        """Return the sector under the fake player."""
        return self.geometry.sector_at(self._game.x, self._game.y)
