"""What the explorer walks for besides its way: the supplies the player is short of (a weapon it lacks, ammo, health
and armor when hurt) and, planned once at the start, the items worth their detour on the way to the exit."""

from __future__ import annotations

import math

import numpy as np

from doomagent.env.observation import WEAPON_AMMO, Hud
from doomagent.env.rooms import RoomMap
from doomagent.env.specials import MULTIPLAYER_ONLY, SKILL_FLAG
from doomagent.policies._explore_walk import Goal
from doomagent.policies._livegrid import Walk
from doomagent.policies._supplies import Supplies
from doomagent.policies.grid import DETOURS

SUPPLY_REACH = 1800.0  # the longest walk along the grid worth making for a supply the player is short of
DETOUR = {"armor": 700.0, "health": 500.0}  # the longest walk worth making for one it is not short of
DETOUR_NEEDS = {2049: 3, 2008: 3}  # ammo worth a detour only to a player owning the weapon in that slot (shells)
LOW_HEALTH = 50  # health under which health goes before any other supply
CRITICAL = 25  # health under which health is walked to however far it lies


def supply_goal(supplies: Supplies, hud: Hud, dist: np.ndarray, god: bool) -> Goal | None:
    """Return a walk to the nearest supply the player is short of (a weapon it lacks, ammo for its weapons when low
    or out, health or armor when hurt) within SUPPLY_REACH along the grid (`dist`: from the player), or None. Each
    supply is walked to once: taken, or not to be had."""
    kinds = supplies.wanted(hud, WEAPON_AMMO.get(hud.weapon))
    if hud.weapon_ammo == 0:  # the fist: ammo for any gun it owns
        kinds |= {WEAPON_AMMO[w] for w in hud.weapons if w in WEAPON_AMMO}
    if god:
        kinds -= {"health", "armor"}
    reach = dict.fromkeys(kinds, SUPPLY_REACH)
    if not god:  # worth a short detour while not short of them: armor, and health once hurt
        reach |= {k: DETOUR[k] for k in ("armor", "health") if k not in kinds and _worth(k, hud)}
    if not reach:
        return None
    if set(hud.weapons) <= {1, 2}:  # the pistol alone does not win the fights ahead: any gun is worth the walk
        reach |= {k: math.inf for k in kinds if k.startswith("weapon")}
    if "health" in reach and hud.health < CRITICAL:
        reach["health"] = math.inf  # one more fight would end it: any health the player can walk to
    if not any(hud.ammo.get(WEAPON_AMMO[w], 0) for w in hud.weapons if w in WEAPON_AMMO):
        reach |= {k: math.inf for k in kinds if k in hud.ammo}  # with nothing to shoot, any ammo is worth it
    near = [(float(dist[s.cell]), s) for s in supplies.items if s.kind in reach]
    near = [(d, s) for d, s in near if math.isfinite(d) and d <= reach[s.kind]]
    if hud.health < LOW_HEALTH and not god and any(s.kind == "health" for _d, s in near):
        near = [(d, s) for d, s in near if s.kind == "health"]  # badly hurt: health before anything else
    elif any(s.kind.startswith("weapon") for _d, s in near):
        near = [(d, s) for d, s in near if s.kind.startswith("weapon")]  # a better gun before a detour for armor
    if not near:
        return None
    _d, best = min(near, key=lambda n: n[0])
    supplies.items.remove(best)
    return Goal(None, np.array([best.cell]), f"the {best.kind} at ({best.where[0]:.0f}, {best.where[1]:.0f})")


def plan_detours(
    room_map: RoomMap, walk: Walk, skill: int, dist: np.ndarray, exit_cells: np.ndarray
) -> list[tuple[int, str, int]]:
    """Return the items worth their detour on the way to the exit (armor, weapons, medikits, ammo boxes: see
    grid.DETOURS) as (cell, label, the weapon slot it is worth only with, or 0), farthest from the exit first; none
    where the exit is out of reach from the start."""
    to_exit, _ = walk.field_to(exit_cells)
    start = float(to_exit[int(np.argmin(dist))])  # the player's own cell is at distance 0
    if not math.isfinite(start):
        return []
    g, grid = room_map.geometry, room_map.navgrid
    flag = SKILL_FLAG.get(skill, SKILL_FLAG[3])
    out = []
    for t in g.things:
        budget = DETOURS.get(int(t["type"]))
        if budget is None or not t["flags"] & flag or t["flags"] & MULTIPLAYER_ONLY:
            continue
        cell = grid.cell_of(float(t["x"]), float(t["y"]))
        detour = float(dist[cell]) + float(to_exit[cell]) - start
        if math.isfinite(detour) and detour <= budget:
            label = f"the item at ({float(t['x']):.0f}, {float(t['y']):.0f})"
            out.append((float(to_exit[cell]), cell, label, DETOUR_NEEDS.get(int(t["type"]), 0)))
    return [(cell, label, slot) for _d, cell, label, slot in sorted(out, key=lambda o: -o[0])]


def _worth(kind: str, hud: Hud) -> bool:
    """Return True when armor or health is worth a short detour though the player is not short of it."""
    return hud.armor < 100 if kind == "armor" else hud.health < 80
