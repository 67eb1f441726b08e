"""The Doom environment: WAD geometry, rooms, room tracking and the Gymnasium-style DoomEnv."""

from __future__ import annotations

import gymnasium as gym

from doomagent.env.actions import ACTION_NAMES, Action, parse_action
from doomagent.env.config import EnvConfig
from doomagent.env.doom_env import DoomEnv, Outcome
from doomagent.env.geometry import MapGeometry, resolve_wad, shipped_wad
from doomagent.env.observation import Hud, Observation, VisibleObject, encode_image
from doomagent.env.rooms import Room, RoomMap, Route, build_rooms
from doomagent.env.tracker import RoomTracker
from doomagent.env.wad import Wad

ENV_ID = "doomagent/Doom-v0"

if ENV_ID not in gym.registry:
    # Observations are typed records (screen plus HUD, pose, room, objects), so the passive
    # checker, which expects bare arrays, is off.
    gym.register(id=ENV_ID, entry_point="doomagent.env.doom_env:DoomEnv", disable_env_checker=True)

__all__ = [
    "ACTION_NAMES",
    "ENV_ID",
    "Action",
    "DoomEnv",
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
    "resolve_wad",
    "shipped_wad",
]
