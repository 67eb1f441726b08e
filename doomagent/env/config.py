"""Settings of a Doom environment, validated; the defaults are the paper's."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

RESOLUTIONS = (
    "160X120",
    "320X200",
    "320X240",
    "400X225",
    "640X400",
    "640X480",
    "800X600",
    "1024X768",
    "1280X720",
    "1920X1080",
)


class EnvConfig(BaseModel):
    """Configure DoomEnv: which map, how frames map to decisions, and when an episode ends."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    wad: Path | None = Field(None, description="IWAD path; None uses vizdoom's freedoom1.wad")
    map: str = Field("E1M1", description="map name in the WAD, E1M1 or MAP01 style")
    skill: int = Field(3, ge=1, le=5, description="1-5; 3 is 'Hurt Me Plenty'")
    resolution: str = Field("640X400", description=f"one of {', '.join(RESOLUTIONS)}")
    hud: bool = True
    decision_frames: int = Field(2, ge=1, le=35, description="game tics between decisions")
    motion_hold_frames: int = Field(3, ge=1, le=35, description="tics a motion key is held")
    press_frames: int = Field(1, ge=1, le=35, description="tics any other key is held")
    stuck_frames: int = Field(1000, ge=1, description="frames within stuck_radius that end an episode")
    stuck_radius: float = Field(32.0, gt=0, description="map units; the player is 32 wide")
    max_frames: int | None = Field(None, ge=1, description="cap on frames; None for no cap")
    objects: bool = Field(True, description="report the objects in view from the engine's labels")
    rooms: Literal["auto", "profile"] = Field(
        "auto", description="auto uses a shipped profile when one exists, else the automatic split"
    )
    room_profile: Path | None = Field(None, description="YAML naming rooms as sector sets")
    backtrack: Literal["last_entered", "furthest"] = Field(
        "last_entered", description="which room frames count to after backtracking"
    )
    grid: int | None = Field(
        None,
        ge=2,
        le=16,
        description="aiming: draw this many numbered columns on the image a model sees (not on the demo) and "
        "allow `AIM k`, which turns the player so that column k's centre is straight ahead",
    )
    cheats: bool = Field(False, description="allow cheat console commands (tests, debugging)")
    god: bool = Field(
        False,
        description="the player takes no damage (the console's `god`, cheats on): the `reference-nav` ceiling, "
        "which plays a map's navigation alone",
    )
    engine_objects: bool = Field(
        False, description="ask the engine for every object each tic (slow); enables engine_player_sector()"
    )
    live_map: bool = Field(
        False,
        description="report the live map each decision (Observation.live: sector heights now, keys held, live "
        "monsters): the reference navigator reads it",
    )
    realtime: bool = Field(
        False,
        description="real-time protocol: the game runs while the model thinks; a decision lasts the tics its "
        "model time is worth at 35 tics/s (at least decision_frames). False: the paper's paused protocol",
    )
    realtime_hold: bool = Field(
        True, description="real time: keep the last motion key held while waiting for the model (else no key)"
    )
    realtime_clock: Literal["latency", "wall"] = Field(
        "latency",
        description="real time: the model time of a decision is the sum of its calls' latencies as the provider "
        "reports them (deterministic with test models), or the decision's wall time",
    )

    @field_validator("map")
    @classmethod
    def _upper_map(cls, v: str) -> str:
        return v.strip().upper()

    @field_validator("resolution")
    @classmethod
    def _check_resolution(cls, v: str) -> str:
        key = v.strip().upper().replace("RES_", "")
        if key not in RESOLUTIONS:
            raise ValueError(f"unknown resolution {v!r}; use one of {', '.join(RESOLUTIONS)}")
        return key

    @model_validator(mode="after")
    def _check_profile(self) -> EnvConfig:
        if self.rooms == "profile" and self.room_profile is None:
            raise ValueError("rooms='profile' needs room_profile=PATH")
        return self

    @property
    def width(self) -> int:
        """Return the screen width in pixels."""
        return int(self.resolution.split("X")[0])

    @property
    def height(self) -> int:
        """Return the screen height in pixels."""
        return int(self.resolution.split("X")[1])

    @property
    def hfov(self) -> float:
        """Return the horizontal field of view in degrees at this resolution (the engine's 90 degrees are for
        4:3; wider screens see more: 100.4 degrees at 16:10)."""
        width, height = (int(n) for n in self.resolution.split("X"))
        aspect = max(width / height, 4 / 3)
        return math.degrees(2 * math.atan(aspect / (4 / 3)))

    def aim_angle(self, column: int) -> float:
        """Return the turn in degrees (positive: right) that puts column `column` (1 to grid) straight ahead."""
        n = self.grid or 1
        offset = (column - 0.5) / n * 2 - 1  # -1 at the left edge, +1 at the right
        return math.degrees(math.atan(offset * math.tan(math.radians(self.hfov / 2))))
