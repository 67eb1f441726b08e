"""What the environment reports each decision: screen, HUD, pose, room and the objects in view."""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

ImageFormat = Literal["jpeg", "png"]


WEAPON_AMMO = {2: "bullets", 3: "shells", 4: "bullets", 5: "rockets", 6: "cells", 7: "cells"}  # slot 1: fist/saw


@dataclass(frozen=True)
class Hud:
    """The numbers of the status bar."""

    health: int
    armor: int
    ammo: dict[str, int]  # bullets, shells, rockets, cells
    weapon: int  # selected weapon slot, 1-7
    weapon_ammo: int  # ammo of the selected weapon
    weapons: tuple[int, ...]  # slots the player owns

    def as_lines(self) -> list[str]:
        """Return the HUD as a short list of text lines."""
        kind = WEAPON_AMMO.get(self.weapon)
        others = ", ".join(f"{k} {v}" for k, v in self.ammo.items() if v and k != kind)
        lines = [
            f"health {self.health}%",
            f"armor {self.armor}%",
            f"weapon {self.weapon}, ammo {self.weapon_ammo}" if kind else f"weapon {self.weapon}",
        ]
        if others:
            lines.append(f"other ammo: {others}")
        lines.append(f"weapons {' '.join(map(str, self.weapons)) or 'none'}")
        return lines


@dataclass(frozen=True)
class VisibleObject:
    """An object on screen, from the engine's labels."""

    id: int
    name: str
    category: str  # the engine's category: Monster, Health, Ammo, Weapon, Key, Gore, ...
    box: tuple[int, int, int, int]  # x, y, width, height in screen pixels
    distance: float  # map units from the player
    bearing: float  # degrees from the view centre, positive to the left

    @property
    def is_enemy(self) -> bool:
        """Return True for live monsters (the engine labels a corpse Gore and prefixes its name with "Dead")."""
        return self.category == "Monster"


KEY_ACTORS = {"BlueCard": "blue", "BlueSkull": "blue", "YellowCard": "yellow", "YellowSkull": "yellow"}
KEY_ACTORS |= {"RedCard": "red", "RedSkull": "red"}  # the engine's names of key things -> the doors they open


@dataclass(frozen=True)
class LiveMap:
    """The map as the engine has it now (EnvConfig.live_map): what moved and what the player holds. A scripted
    player reads it to know which doors stand open, where a lift is, and which keys it has."""

    floors: np.ndarray = field(repr=False)  # (sectors,) floor heights now, in the WAD's sector order
    ceilings: np.ndarray = field(repr=False)  # (sectors,) ceiling heights now
    keys: frozenset[str]  # key colours held: blue, yellow, red
    monsters: tuple[tuple[str, float, float], ...] = ()  # every live monster's class name and place


@dataclass(frozen=True)
class Observation:
    """One decision's view of the game."""

    screen: np.ndarray = field(repr=False)  # (height, width, 3) uint8 RGB
    hud: Hud
    position: tuple[float, float, float]
    angle: float  # degrees, counter-clockwise from east
    frame: int
    room: str | None
    sector: int
    objects: tuple[VisibleObject, ...]
    running: bool
    live: LiveMap | None = None  # the live map, with EnvConfig.live_map

    def encode_image(self, fmt: ImageFormat = "jpeg", *, quality: int = 85, max_side: int | None = None) -> bytes:
        """Return the screen encoded as JPEG or PNG, optionally shrunk to `max_side` pixels."""
        return encode_image(self.screen, fmt, quality=quality, max_side=max_side)

    def data_url(self, fmt: ImageFormat = "jpeg", *, quality: int = 85, max_side: int | None = None) -> str:
        """Return the screen as a base64 data URL, the form vision APIs accept."""
        raw = self.encode_image(fmt, quality=quality, max_side=max_side)
        return f"data:image/{fmt};base64,{base64.b64encode(raw).decode()}"


def encode_image(
    screen: np.ndarray, fmt: ImageFormat = "jpeg", *, quality: int = 85, max_side: int | None = None
) -> bytes:
    """Return an RGB array encoded as JPEG or PNG bytes."""
    from PIL import Image

    img = Image.fromarray(screen)
    if max_side and max(img.size) > max_side:
        img.thumbnail((max_side, max_side))
    buf = io.BytesIO()
    if fmt == "jpeg":
        img.save(buf, format="JPEG", quality=quality)
    else:
        img.save(buf, format="PNG", optimize=False, compress_level=1)
    return buf.getvalue()


def draw_grid(screen: np.ndarray, columns: int) -> np.ndarray:
    """Return a copy of the screen with `columns` numbered columns drawn on it (aiming: `AIM k` turns column k's
    centre straight ahead): thin lines between columns, each number in a dark box at the top of its column."""
    from PIL import Image, ImageDraw

    img = Image.fromarray(screen)
    draw = ImageDraw.Draw(img)
    width, height = img.size
    step = width / columns
    for k in range(1, columns):
        x = round(k * step)
        draw.line([(x, 0), (x, height - 1)], fill=(255, 255, 0), width=1)
    for k in range(columns):
        label = str(k + 1)
        centre = (k + 0.5) * step
        left, top, right, bottom = draw.textbbox((0, 0), label)
        w, h = right - left, bottom - top
        box = (centre - w / 2 - 3, 2, centre + w / 2 + 3, h + 8)
        draw.rectangle(box, fill=(0, 0, 0))
        draw.text((centre - w / 2 - left, 5 - top), label, fill=(255, 255, 0))
    return np.asarray(img)


def bearing(px: float, py: float, angle: float, ox: float, oy: float) -> float:
    """Return the bearing of (ox, oy) seen from (px, py) facing `angle`, positive to the left."""
    b = math.degrees(math.atan2(oy - py, ox - px)) - angle
    return (b + 180.0) % 360.0 - 180.0
