"""Engine-grounded perception: a Vision report built from the engine's labels, game variables and the
room tracker (no model), and an audit that scores a model's Vision report against that truth."""

from __future__ import annotations

import math
import re
from typing import Any

from doomagent.env.observation import Observation, VisibleObject
from doomagent.env.rooms import RoomMap
from doomagent.schemas import VisionReport

ITEM_CATEGORIES = ("Health", "Armor", "Ammo", "Weapon", "Key", "Powerup")
HAZARD_NAMES = ("ExplosiveBarrel",)
COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def live_enemies(obs: Observation) -> list[VisibleObject]:
    """Return monsters in view that stand (a corpse keeps its class but lies flat and wide)."""
    return [o for o in obs.objects if o.is_enemy and (o.box[3] >= 0.7 * o.box[2] or o.distance < 128)]


def _where(o: VisibleObject) -> str:
    side = "ahead" if abs(o.bearing) <= 10 else ("to the left" if o.bearing > 0 else "to the right")
    return f"{o.name} {side}, {o.distance:.0f} units away"


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
    room = f"You are in room {obs.room or '?'} of the level, facing {facing}."
    hazards = [_where(o) for o in obs.objects if o.name in HAZARD_NAMES]
    if _hurting_floor_ahead(obs, room_map):
        hazards.append("a floor that hurts (toxic liquid) just ahead")
    return VisionReport(
        room=room,
        enemies=[_where(o) for o in live_enemies(obs)],
        items=[_where(o) for o in obs.objects if o.category in ITEM_CATEGORIES],
        hazards=hazards,
        hud=obs.hud.as_lines(),
    )


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
