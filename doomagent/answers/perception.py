"""Engine-grounded perception: a Vision report built from the engine's labels, game variables and the
room tracker (no model), and an audit that scores a model's Vision report against that truth."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

import numpy as np

from doomagent.answers.schemas import VisionReport
from doomagent.env.geometry import MapGeometry
from doomagent.env.observation import Observation, VisibleObject, bearing
from doomagent.env.rooms import RoomMap

ITEM_CATEGORIES = ("Health", "Armor", "Ammo", "Weapon", "Key", "Powerup")
HAZARD_NAMES = ("ExplosiveBarrel",)
AHEAD = 4.0  # degrees: doors and switches this close to the view's centre are "ahead"
SLIGHTLY = 15.0  # degrees: within this, "slightly left/right" (a small turn or two)
HALF_FOV = 45.0  # the engine's default 90-degree horizontal field of view
SIGHT = 1024.0  # doors and switches farther than this are not described
MAX_ITEMS = 3  # the nearest items, doors and switches listed; the rest are counted
COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def live_enemies(obs: Observation) -> list[VisibleObject]:
    """Return the live monsters in view (the engine labels a corpse Gore, its name prefixed "Dead")."""
    return [o for o in obs.objects if o.is_enemy]


def _where(o: VisibleObject, screen_width: int) -> str:
    centre = screen_width / 2
    if o.box[0] <= centre <= o.box[0] + o.box[2]:  # the crosshair column crosses it: FIRE hits
        return _place(o.name, 0.0, o.distance)
    # Off the crosshair is never "ahead", however small the angle.
    return _place(o.name, math.copysign(max(abs(o.bearing), AHEAD + 0.1), o.bearing), o.distance)


def _place(name: str, bearing_deg: float, distance: float) -> str:
    if abs(bearing_deg) <= AHEAD:
        side = "ahead"
    else:
        side = ("slightly " if abs(bearing_deg) <= SLIGHTLY else "") + ("left" if bearing_deg > 0 else "right")
    return f"{name} {side} {distance:.0f}"


@lru_cache(maxsize=8)
def _landmarks(g: MapGeometry) -> tuple[tuple[str, float, float, int], ...]:
    """Return (name, x, y, group) of every door face and exit line; a door's faces share its group."""
    out: list[tuple[str, float, float, int]] = []
    for sector, door in g.doors.items():
        name = f"{door.key} key door" if door.key else "door"
        faces = np.flatnonzero(
            ((g.line_front == sector) | (g.line_back == sector)) & (g.line_front >= 0) & (g.line_back >= 0)
        )
        for line in faces.tolist():
            other = int(g.line_back[line] if g.line_front[line] == sector else g.line_front[line])
            if other not in g.doors:  # a face between the door and a room, not between two door sectors
                out.append((name, *g.line_midpoint(line), sector))
    for line in g.exit_lines:
        name = "exit switch" if g.line_back[line] < 0 else "exit (walk over it)"
        out.append((name, *g.line_midpoint(line), -1 - line))
    return tuple(out)


def doors_in_view(obs: Observation, room_map: RoomMap) -> list[tuple[float, str]]:
    """Return (distance, description) of the doors and exit switches in the field of view with a clear line of
    sight, from the map geometry (a door counts once, by its nearest face)."""
    x, y, _ = obs.position
    nearest: dict[int, tuple[float, str]] = {}
    for name, lx, ly, group in _landmarks(room_map.geometry):
        distance = math.hypot(lx - x, ly - y)
        b = bearing(x, y, obs.angle, lx, ly)
        if distance > SIGHT or abs(b) > HALF_FOV or (group in nearest and nearest[group][0] <= distance):
            continue
        # Aim a little short of the line: a switch sits on a wall, which the sight line must not count.
        t = max(0.0, 1.0 - 8.0 / max(distance, 1e-9))
        if room_map.clear_path((x, y), (x + (lx - x) * t, y + (ly - y) * t), margin=0.0):
            nearest[group] = (distance, _place(name, b, distance))
    return sorted(nearest.values())


def _hurting_floor_ahead(obs: Observation, room_map: RoomMap | None) -> bool:
    if room_map is None:
        return False
    x, y, _ = obs.position
    heading = math.radians(obs.angle)
    grid = room_map.navgrid
    return any(grid.is_hazard(x + d * math.cos(heading), y + d * math.sin(heading)) for d in (64, 128, 192, 256))


def engine_report(obs: Observation, room_map: RoomMap | None = None) -> VisionReport:
    """Return what the engine knows of the view, in the Vision report's structure."""
    facing = COMPASS[int(((obs.angle % 360) + 22.5) // 45) % 8]
    room = f"room {obs.room or '?'}, facing {facing}"
    width = obs.screen.shape[1] if obs.screen is not None and obs.screen.ndim == 3 else 640
    hazards = [_where(o, width) for o in obs.objects if o.name in HAZARD_NAMES]
    if _hurting_floor_ahead(obs, room_map):
        hazards.append("a floor that hurts (toxic liquid) just ahead")
    return VisionReport(
        room=room,
        enemies=[_where(o, width) for o in live_enemies(obs)],
        items=_items(obs, room_map, width),
        hazards=hazards,
        hud=obs.hud.as_lines(),
    )


def _items(obs: Observation, room_map: RoomMap | None, width: int) -> list[str]:
    seen = [(o.distance, _where(o, width)) for o in obs.objects if o.category in ITEM_CATEGORIES]
    if room_map is not None:
        seen += doors_in_view(obs, room_map)
    seen.sort()
    items = [text for _, text in seen[:MAX_ITEMS]]
    if len(seen) > MAX_ITEMS:
        items.append(f"{len(seen) - MAX_ITEMS} more farther away")
    return items


def _number_after(word: str, lines: list[str]) -> int | None:
    for line in lines:
        match = re.search(rf"{word}\D{{0,12}}?(\d+)", line, re.I)
        if match:
            return int(match.group(1))
    return None


def audit(report: VisionReport, obs: Observation, room_map: RoomMap | None = None) -> dict[str, Any]:
    """Score a model's report against the engine: enemies claimed or missed, health and ammo numbers,
    hazards. `hallucinated` is True when the report claims something the engine contradicts."""
    enemies_true = bool(live_enemies(obs))
    enemies_said = bool(report.enemies)
    hud_text = [*report.hud, report.room]
    health = _number_after("health", hud_text)
    ammo = _number_after("ammo", hud_text)
    hazards_true = any(o.name in HAZARD_NAMES for o in obs.objects) or _hurting_floor_ahead(obs, room_map)
    result: dict[str, Any] = {
        "frame": obs.frame,
        "enemies": "ok" if enemies_said == enemies_true else ("false_claim" if enemies_said else "missed"),
        "health": None if health is None else ("ok" if abs(health - obs.hud.health) <= 1 else "wrong"),
        "ammo": None if ammo is None else ("ok" if ammo in {obs.hud.weapon_ammo, *obs.hud.ammo.values()} else "wrong"),
        "hazards": "ok" if bool(report.hazards) == hazards_true else ("false_claim" if report.hazards else "missed"),
    }
    result["hallucinated"] = (
        result["enemies"] == "false_claim"
        or "wrong" in (result["health"], result["ammo"])
        or result["hazards"] == "false_claim"
    )
    return result
