"""The Doom environment: WAD geometry, rooms, room tracking, progression plans, the typed DoomEnv, its Gymnasium
form, and FakeEnv (DoomEnv over a pretend engine, for tests of graphs).

Names load on first use, so `from doomagent.env.config import EnvConfig` (or the action vocabulary)
starts no engine and imports neither gymnasium nor networkx.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from doomagent.env.actions import ACTION_NAMES, Action, parse_action
    from doomagent.env.config import EnvConfig
    from doomagent.env.doom_env import DoomEnv
    from doomagent.env.geometry import MapGeometry, resolve_wad, shipped_wad
    from doomagent.env.gym_env import ENV_ID, DoomGymEnv, register_envs
    from doomagent.env.observation import Hud, Observation, VisibleObject, encode_image
    from doomagent.env.outcome import Outcome
    from doomagent.env.rooms import Room, RoomMap, Route, build_rooms
    from doomagent.env.tracker import RoomTracker
    from doomagent.env.wad import Wad

_WHERE = {
    "ACTION_NAMES": "actions",
    "Action": "actions",
    "parse_action": "actions",
    "EnvConfig": "config",
    "DoomEnv": "doom_env",
    "Outcome": "outcome",
    "MapGeometry": "geometry",
    "resolve_wad": "geometry",
    "shipped_wad": "geometry",
    "ENV_ID": "gym_env",
    "DoomGymEnv": "gym_env",
    "register_envs": "gym_env",
    "Hud": "observation",
    "Observation": "observation",
    "VisibleObject": "observation",
    "encode_image": "observation",
    "Room": "rooms",
    "RoomMap": "rooms",
    "Route": "rooms",
    "build_rooms": "rooms",
    "RoomTracker": "tracker",
    "Wad": "wad",
}

__all__ = [
    "ACTION_NAMES",
    "ENV_ID",
    "Action",
    "DoomEnv",
    "DoomGymEnv",
    "EnvConfig",
    "Hud",
    "MapGeometry",
    "Observation",
    "Outcome",
    "Room",
    "RoomMap",
    "RoomTracker",
    "Route",
    "VisibleObject",
    "Wad",
    "build_rooms",
    "encode_image",
    "parse_action",
    "register_envs",
    "resolve_wad",
    "shipped_wad",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'doomagent.env' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"doomagent.env.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
