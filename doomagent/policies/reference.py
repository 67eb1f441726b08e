"""The reference navigator: a scripted player that follows the route, fights what it sees, and
finishes the level; the ceiling row of every report and the harness's end-to-end proof."""

from __future__ import annotations

from dataclasses import dataclass, field

from doomagent.env.actions import Action
from doomagent.env.observation import Observation, VisibleObject
from doomagent.env.rooms import RoomMap
from doomagent.policies.route import RouteFollower

AIM_DEGREES = 2.5  # fire when the target's bearing is within this, or the view centre is on its box
SEARCH_DECISIONS = 26  # about half a turn, looking for an attacker that hit us unseen
MELEE = frozenset({"Demon", "Spectre", "LostSoul"})
WEAPON_AMMO = {3: "shells", 4: "bullets", 2: "bullets"}  # preferred weapons, best first
PICKUP_RANGE = 450.0  # detour for health in view this close when hurt
PICKUP_BELOW = 40  # health under which health items are worth a detour


@dataclass
class ReferenceNavigator:
    """Follow the route (RouteFollower); shoot live monsters in view, dodging between shots; pick up
    health in view when hurt; look around when hit by something unseen."""

    follower: RouteFollower
    fight_range: float = 1100.0
    screen_width: int = 640
    _tallest: dict[int, int] = field(default_factory=dict)  # object id -> tallest box seen (corpses shrink)
    _health: int = 100
    _search: int = 0
    _shots: int = 0

    @classmethod
    def for_map(cls, room_map: RoomMap, *, screen_width: int = 640) -> ReferenceNavigator:
        """Return a navigator over the map's route."""
        return cls(RouteFollower.for_map(room_map), screen_width=screen_width)

    def _alive(self, o: VisibleObject) -> bool:
        height = o.box[3]
        tallest = self._tallest[o.id] = max(self._tallest.get(o.id, 0), height)
        # A corpse keeps its monster class; it lies flat: wide, and much lower than when it stood.
        return height >= 0.6 * tallest and height >= 0.7 * o.box[2]

    def _weapon_switch(self, obs: Observation) -> Action | None:
        for slot, ammo in WEAPON_AMMO.items():
            if slot in obs.hud.weapons and obs.hud.ammo.get(ammo, 0) > 0:
                return None if obs.hud.weapon == slot else Action(str(slot))
        return None

    def _aim(self, o: VisibleObject) -> Action | None:
        """Return FIRE when aimed at `o`, else the turn toward it."""
        x, _, w, _ = o.box
        centre = self.screen_width / 2
        if abs(o.bearing) <= AIM_DEGREES or x + 1 <= centre <= x + w - 1:
            return None
        return Action.LEFT if o.bearing > 0 else Action.RIGHT

    def act(self, obs: Observation) -> Action:
        """Return the next action: switch weapon, fight, pick up health, search, or walk the route."""
        hurt = obs.hud.health < self._health
        self._health = obs.hud.health
        switch = self._weapon_switch(obs)
        if switch is not None:
            return switch
        live = [o for o in obs.objects if o.is_enemy and self._alive(o) and o.distance < self.fight_range]
        target = min(live, key=lambda o: o.distance, default=None)
        if target is not None and obs.hud.weapon_ammo > 0:
            self._search = 0
            turn = self._aim(target)
            if turn is not None:
                return turn
            self._shots += 1
            if target.name in MELEE and target.distance < 160 and self._shots % 2 == 0:
                return Action.DOWN  # keep a biter at arm's length between shots
            return Action.FIRE
        if obs.hud.health < PICKUP_BELOW:
            health = [o for o in obs.objects if o.category == "Health" and o.distance < PICKUP_RANGE]
            item = min(health, key=lambda o: o.distance, default=None)
            if item is not None:
                if abs(item.bearing) > 10:
                    return Action.LEFT if item.bearing > 0 else Action.RIGHT
                return Action.UP
        if hurt and obs.hud.weapon_ammo > 0 and self._search == 0:
            self._search = SEARCH_DECISIONS
        if self._search > 0:
            self._search -= 1
            return Action.RIGHT
        return self.follower.act(obs)
