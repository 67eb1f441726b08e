"""Weapons, health, armor and ammo lying on the map, for a walker that lacks or runs short of them: the nearest
one (along the walkable grid) worth the walk, taken once. The map's things say where they are, so the walk can go
for them before it is in view; one not picked up (on a ledge, or taken already) is not tried again."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from doomagent.env.observation import Hud
from doomagent.env.rooms import RoomMap
from doomagent.env.specials import MULTIPLAYER_ONLY, SKILL_FLAG

HEALTH = {2011: 10, 2012: 25, 2013: 100}  # stimpack, medikit, soul sphere: health they give
ARMOR = {2018: 100, 2019: 200}  # green, blue armor
# Weapons worth a walk while not owned: thing type -> the slot it fills (the navigator's preferred weapons: a
# shotgun kills a zombie in one shot, a demon in three where the pistol takes ten).
WEAPONS = {2001: 3, 82: 3, 2002: 4, 2003: 5, 2004: 6}  # shotgun, super shotgun, chaingun, rocket launcher, plasma
AMMO = {2007: "bullets", 2048: "bullets", 2008: "shells", 2049: "shells", 2047: "cells", 17: "cells"}
AMMO |= {2010: "rockets", 2046: "rockets"}
HURT = 60  # health under which health is fetched
ARMOR_BELOW = 30  # armor under which armor is fetched
AMMO_BELOW = 15  # rounds of the weapon in hand under which its ammo is fetched
REACH = 1800.0  # the longest walk (map units along the grid) worth making for a supply
TRIES = 250  # decisions spent walking to one before it is left alone
TAKEN = 24.0  # map units from a supply at which it counts as picked up
LOOK_AGAIN = 256.0  # map units to walk after a look found nothing worth it before looking for the same kinds again


@dataclass
class Supply:
    """One item on the map and what it gives."""

    where: tuple[float, float]
    kind: str  # "health", "armor", an ammo name, or "weapon N" (the slot it fills)
    cell: int


@dataclass
class Supplies:
    """The supplies of a map on one skill level, and which have been tried."""

    room_map: RoomMap
    skill: int = 3
    items: list[Supply] = field(default_factory=list)
    target: Supply | None = None
    target_field: Any = None
    tries: int = 0
    _fruitless: tuple[tuple[float, float], frozenset[str]] | None = None  # where a look found nothing, for what

    def __post_init__(self) -> None:
        grid, flag = self.room_map.navgrid, SKILL_FLAG.get(self.skill, SKILL_FLAG[3])
        for t in self.room_map.geometry.things:
            ttype = int(t["type"])
            kind = "health" if ttype in HEALTH else "armor" if ttype in ARMOR else AMMO.get(ttype)
            if ttype in WEAPONS:
                kind = f"weapon {WEAPONS[ttype]}"
            if kind is None or not t["flags"] & flag or t["flags"] & MULTIPLAYER_ONLY:
                continue
            x, y = float(t["x"]), float(t["y"])
            cell = grid.nearest_walkable(x, y, reach=2)
            if cell is not None and not grid.hazard[cell]:
                self.items.append(Supply((x, y), kind, cell))

    def wanted(self, hud: Hud, ammo_kind: str | None) -> set[str]:
        """Return the kinds of supply the player is short of (a weapon it does not own among them)."""
        out = {f"weapon {slot}" for slot in set(WEAPONS.values()) if slot not in hud.weapons}
        if hud.health < HURT:
            out.add("health")
        if hud.armor < ARMOR_BELOW and hud.health < 100:
            out.add("armor")
        if ammo_kind and hud.weapon_ammo < AMMO_BELOW:
            out.add(ammo_kind)
        return out

    def weapons_near(self, here: tuple[float, float], owned: tuple[int, ...], within: float) -> list[Supply]:
        """Return the weapons the player does not own that lie within `within` map units (straight)."""
        return [
            s
            for s in self.items
            if s.kind.startswith("weapon") and int(s.kind[7:]) not in owned and math.dist(here, s.where) < within
        ]

    def weapons_left(self) -> bool:
        """Return True while some weapon on the map has not been walked to."""
        return any(s.kind.startswith("weapon") for s in self.items)

    def next_target(self, here: tuple[float, float], kinds: set[str], avoid: np.ndarray | None) -> Supply | None:
        """Pick the nearest untried supply of those kinds within REACH along the grid (None: none worth it)."""
        grid = self.room_map.navgrid
        if (
            self._fruitless is not None
            and self._fruitless[1] == kinds
            and math.dist(here, self._fruitless[0]) < LOOK_AGAIN
        ):
            return None  # nothing worth it from close by: each look walks the whole grid
        start = grid.nearest_walkable(*here)
        near = [s for s in self.items if s.kind in kinds and math.dist(here, s.where) <= REACH]
        if start is None or not near:
            self._fruitless = (here, frozenset(kinds))
            return None
        # One field from here (the grid is walked both ways alike on flat floors; steps make it an estimate).
        dist, _ = grid.field_to(np.array([start]), avoid=avoid)
        best = min(near, key=lambda s: float(dist[s.cell]))
        if not math.isfinite(float(dist[best.cell])) or float(dist[best.cell]) > REACH:
            self._fruitless = (here, frozenset(kinds))
            return None
        self.target, self.tries = best, 0
        self.target_field = grid.field_to(np.array([best.cell]), avoid=avoid)
        return best

    def drop(self, *, again: bool = False) -> None:
        """Leave the current target: taken or given up (not tried again), or no longer needed (`again`)."""
        if self.target is not None and self.target in self.items and not again:
            self.items.remove(self.target)
        self.target, self.target_field = None, None
