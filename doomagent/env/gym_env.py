"""DoomGymEnv: the game as a `gymnasium.Env` with declared spaces, for RL libraries and vector envs.

Registered as `doomagent/Doom-v0` (through the `gymnasium.envs` entry point, so `gymnasium.make` finds it
without importing doomagent first). Observations are a `spaces.Dict`:

- `screen`: (height, width, 3) uint8 RGB, the HUD drawn in;
- `hud`: int32 health, armor, bullets, shells, rockets, cells, selected weapon, its ammo;
- `weapons`: seven 0/1 flags, one per weapon slot owned;
- `pose`: float32 x, y, z (map units) and angle (degrees);
- `room`: 0 on a door threshold or outside every room, else 1 + the room's index in `env.rooms.rooms`.

Actions are `Discrete(17)`, indices into `Action` in the paper's order. The typed record (`Observation`:
objects in view, room letter, HUD as text) of the last step is `env.unwrapped.observation`.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from doomagent._internal.gym_hook import ENV_ID
from doomagent._internal.gym_hook import register_env as register_envs
from doomagent.env.actions import Action
from doomagent.env.config import EnvConfig
from doomagent.env.doom_env import DoomEnv
from doomagent.env.observation import Observation

HUD_FIELDS = ("health", "armor", "bullets", "shells", "rockets", "cells", "weapon", "weapon_ammo")
_INT_LIMIT = 2**15
_MAP_LIMIT = 65536.0  # Doom map coordinates are 16-bit fixed point: well within this


class DoomGymEnv(gym.Env[dict[str, Any], np.int64]):
    """The Doom game with Gymnasium's spaces; every keyword is an `EnvConfig` field."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 35}  # noqa: RUF012 - Gymnasium declares it so

    def __init__(self, config: EnvConfig | None = None, *, render_mode: str | None = None, **overrides: Any) -> None:
        self.doom = DoomEnv(config, render_mode=render_mode, **overrides)
        self.render_mode = render_mode
        c = self.doom.config
        self._rooms = {room.label: i + 1 for i, room in enumerate(self.doom.rooms.rooms)}
        self.action_space = spaces.Discrete(len(Action))
        self.observation_space = spaces.Dict(
            {
                "screen": spaces.Box(0, 255, (c.height, c.width, 3), np.uint8),
                "hud": spaces.Box(-_INT_LIMIT, _INT_LIMIT, (len(HUD_FIELDS),), np.int32),
                "weapons": spaces.MultiBinary(7),
                "pose": spaces.Box(-_MAP_LIMIT, _MAP_LIMIT, (4,), np.float32),
                "room": spaces.Discrete(len(self._rooms) + 1),
            }
        )
        self.observation: Observation | None = None

    @property
    def rooms(self) -> Any:
        """Return the map's rooms (a RoomMap)."""
        return self.doom.rooms

    def _convert(self, obs: Observation) -> dict[str, Any]:
        self.observation = obs
        hud = obs.hud
        numbers = [hud.health, hud.armor, *(hud.ammo.get(k, 0) for k in HUD_FIELDS[2:6]), hud.weapon, hud.weapon_ammo]
        owned = np.zeros(7, dtype=np.int8)
        for slot in hud.weapons:
            if 1 <= slot <= 7:
                owned[slot - 1] = 1
        return {
            "screen": obs.screen,
            "hud": np.clip(np.asarray(numbers, dtype=np.int64), -_INT_LIMIT, _INT_LIMIT).astype(np.int32),
            "weapons": owned,
            "pose": np.asarray([*obs.position, obs.angle], dtype=np.float32),
            "room": int(self._rooms.get(obs.room or "", 0)),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode; options: `record` (path of a .lmp demo to write)."""
        super().reset(seed=seed)
        obs, info = self.doom.reset(seed=seed, options=options)
        return self._convert(obs), info

    def step(self, action: np.int64 | int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Apply one decision (an index into `Action`) and advance `decision_frames` tics."""
        obs, reward, terminated, truncated, info = self.doom.step(int(action))
        return self._convert(obs), float(reward), terminated, truncated, info

    def render(self) -> np.ndarray | None:
        """Return the last screen as an RGB array."""
        return self.doom.render()

    def close(self) -> None:
        """Stop the engine (this also finishes writing a demo being recorded)."""
        self.doom.close()


__all__ = ["ENV_ID", "HUD_FIELDS", "DoomGymEnv", "register_envs"]
