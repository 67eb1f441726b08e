"""The reference navigator: a scripted player that finishes the level (the explorer), fights what it sees and
fetches what it lacks; the ceiling rows of every report and the harness's end-to-end proof."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from doomagent.env.actions import Action
from doomagent.env.observation import Observation, VisibleObject, bearing
from doomagent.env.progression import ProgressionPlan, plan_for
from doomagent.env.rooms import RoomMap
from doomagent.errors import ConfigError, NoPlanError
from doomagent.policies._cover import Cover
from doomagent.policies._explore_walk import RIDE
from doomagent.policies._footwork import Footwork, into_monster
from doomagent.policies._threats import HITSCAN, HITSCAN_RANGE, VIEW_HALF, Threats
from doomagent.policies.explorer import Explorer

AIM_DEGREES = 2.5  # fire when the target's bearing is within this, or the view centre is on its box
AIM_BODY = 0.6  # the part of a monster's radius its centre may be off the view's line and still be aimed at
RADIUS = {"Demon": 30.0, "Spectre": 30.0, "LostSoul": 16.0, "Cacodemon": 31.0, "PainElemental": 31.0, "Fatso": 48.0}
RADIUS |= {"BaronOfHell": 24.0, "HellKnight": 24.0, "Arachnotron": 64.0, "Cyberdemon": 40.0, "SpiderMastermind": 128.0}
FAST_TURN, FAST_TURN_STOP = 30.0, 12.0  # degrees off the view of a target from which a fight runs, and to which
# Hurt within this many decisions while fighting a monster that shoots no bullets (or a hitscan shooter more than twice
# as far), a hitscan shooter that sees the player from outside the view is turned to first (a lost soul in view, a
# shotgun guy behind); not with a monster within CLAWED_WITHIN (its claws did it).
SHOT_FROM_BEHIND = 30
CLAWED_WITHIN = 80.0  # map units: hurt with a live monster this near, it was its claws or teeth (no shooter behind)
SEARCH_DECISIONS = 12  # about two thirds of a turn (running), looking for an unseen attacker
MELEE = frozenset({"Demon", "Spectre", "LostSoul"})
# Hitscan shooters (HITSCAN) go first; biters only when close.
THREAT = {"ShotgunGuy": 3.0, "ChaingunGuy": 3.0, "WolfensteinSS": 3.0, "Zombieman": 2.0, "DoomImp": 1.5}


def _where(obs: Observation, o: VisibleObject) -> tuple[float, float]:
    """Return where an object in view stands on the map (from the player's place, its bearing and distance)."""
    x, y, _ = obs.position
    heading = math.radians(obs.angle + o.bearing)
    return x + o.distance * math.cos(heading), y + o.distance * math.sin(heading)


def _threat_order(o: VisibleObject) -> float:
    """Return a sort key: lower is shot first (distance divided by how dangerous the monster is)."""
    threat = THREAT.get(o.name, 1.0)
    if o.name in MELEE:
        threat = 2.5 if o.distance < 200 else 0.5
    return o.distance / threat


WEAPON_AMMO = {6: "cells", 3: "shells", 4: "bullets", 2: "bullets"}  # preferred weapons, best first
# While the gun is not ready to fire again (decisions since its last shot under RELOAD), a biter nearer than
# BITE_REACH and a tough monster nearer than CLAW_REACH are backed away from.
BITE_REACH, CLAW_REACH, GOD_BITE_REACH = 200.0, 200.0, 160.0
IMP_REACH = 120.0  # an imp this near claws (its melee reaches about 60 units): backed away from while reloading too
# Weapon slot -> decisions (two tics each) after the one that sees a shot's ammo fall during which the gun cannot fire:
# the pistol fires every 14 tics, the shotgun every 44, the rocket launcher every 20 (tests/policies/test_gun_cycle.py).
RELOAD = {2: 6, 3: 21, 5: 9}
# Missiles (an imp's or a baron's ball, a rocket) closing in nearer than DODGE_FROM on a line that passes within
# DODGE_WIDTH of the player (its radius and the missile's, and some) are sidestepped.
MISSILE_SUFFIXES, DODGE_FROM, DODGE_WIDTH = ("Ball", "Rocket", "Tracer", "Plasma", "FatShot"), 160.0, 36.0
DODGE_STEPS = 4  # sidesteps out of one missile's way at most
ROCKET_SAFE = 224.0  # the rocket launcher is used on tough monsters only while nothing is nearer than this
ROCKET_RADIUS = 11.0  # a rocket's radius: a wall's corner this near the line of fire sets it off
# Decisions after FIRE with the rocket launcher that the player holds still till the rocket leaves (the launcher
# fires 8 tics after the press): a step in between moves the line of fire found clear (freedoom1 E1M8, seeds
# 9322-9323: rockets met a wall's corner beside the line, and the blasts took 66 and 84 health).
LAUNCH = 5
ROCKET_KEEP = 160.0  # and, once in hand, kept till something comes this near (its blast reaches 128 past the wall)
PICKUP_RANGE = 400.0  # detour for items in view this close
PICKUP_BELOW = 60  # health under which health items are worth a detour
GIVE_UP = 60  # decisions spent on one item before it is left alone (behind glass, on a ledge)
# Decisions spent on one monster that has not died: its bullets stop at a ledge or bars; leave it be. Monsters that
# take more get their spawn health over 2.5 decisions (a pistol bullet does 5-15, about one hits in two).
TARGET_DECISIONS = 150
TOUGH = {"Cacodemon": 400, "HellKnight": 500, "BaronOfHell": 1000, "Arachnotron": 500, "Fatso": 600}
TOUGH |= {"PainElemental": 400, "Revenant": 300, "Archvile": 700, "Cyberdemon": 4000, "SpiderMastermind": 3000}
SIDESTEP = 48.0  # map units a sidestep or a step back may take the player
_SIDE = {Action.STRAFE_LEFT: 90.0, Action.STRAFE_RIGHT: -90.0}  # a sidestep's direction off the view, degrees
WEAK_NEAR = 256.0  # map units within which a tough monster is fought even with the pistol alone
IGNORE_FOR = 300  # decisions a monster left be is not shot at again (then tried from wherever the walk is)
NEVER_IGNORE = 128.0  # map units within which a monster is never left be as out of reach (in normal play, nor stays so)
EXCURSION_EVERY, EXCURSION_STEPS = 90, 6  # shots between runs of sidesteps in a fight, and the steps of one
PUNCH_RANGE = 256.0  # out of ammo, monsters this close are walked up to and punched
MELEE_REACH = 72.0  # map units (centre to centre) within which a punch lands (Doom's melee range is 64 past radii)
GOD_FIGHT_RANGE = 96.0  # taking no damage, only monsters this close and ahead are fought (they stand in the way)
GIVE_GROUND, OUTNUMBERED_WITHIN = 70, 600.0  # health under which it backs off from two or more monsters this near
FIREBALL_RANGE = 200.0  # map units beyond which a fight with no hitscan shooter in it is one of dodging missiles
AIM_AHEAD = 2  # decisions before the gun is ready again at which sidestepping between shots gives way to aiming
DODGE_HARDER = 50  # health under which the sidesteps out of fireballs come every other shot, not every third
GOD_FIGHT_BEARING = 35.0  # degrees either side of the view within which such a monster counts as ahead
# Taking no damage, held to one spot this many decisions with a monster this near: hemmed in (a demon ahead, an imp
# behind), it fights every monster this near, whichever way it stands, and gives no ground.
BOXED_AFTER, BOXED_NEAR, BOXED_FIGHT_RANGE = 40, 100.0, 200.0
# A fight that has kept the player within 32 units (the engine's stuck radius) this many decisions (the engine ends
# an episode after 1,000 frames, 500 decisions) moves it off that spot: this many steps one safe way.
RELOCATE_AFTER, RELOCATE_STEPS, STUCK_RADIUS = 300, 8, 32.0


@dataclass
class ReferenceNavigator:
    """Finish the map with the explorer (`policies.explorer`: the live grid, the plan's steps, what opens the way);
    shoot the most dangerous live monster in view; fetch weapons, and health, armor or ammo when short, that lie in
    view; look around when hit by something unseen. Taking no damage (`god`, the reference-nav ceiling), it fights
    only what stands in its way, what hems it in, and the bosses the map waits for, and fetches no health or armor.
    On a ride (a lift it set moving) it detours for no item."""

    explorer: Explorer
    fight_range: float = 650.0  # beyond this the pistol wastes bullets
    screen_width: int = 640
    god: bool = False
    _health: int = 100
    _ammo: tuple[int, int] = (0, 0)  # the weapon in hand and its ammo, last decision
    _shot_at: int = -1_000  # the decision the weapon in hand last fired on
    _rocket_at: int = -1_000  # the decision FIRE was last pressed with the rocket launcher in hand (normal play)
    _missiles: dict[int, tuple[float, int]] = field(default_factory=dict)  # missile id -> (distance, sidesteps)
    _search: int = 0
    _shots: int = 0
    _dodge: Action = Action.STRAFE_LEFT
    _tries: dict[int, int] = field(default_factory=dict)  # object id -> decisions spent fetching it
    _fired: dict[int, int] = field(default_factory=dict)  # monster id -> decisions spent fighting it
    _ignored: dict[int, int] = field(default_factory=dict)  # monster id -> decision it may be shot at again
    _decisions: int = 0
    _anchor: tuple[float, float, int] | None = None  # where the player has stayed within STUCK_RADIUS since when
    _relocate: list[Action] = field(default_factory=list)  # the steps of a move off a spot held too long
    _threats: Threats | None = None  # what can see the player
    _hurt_at: int = -1_000  # the decision health last fell on
    _cover: Cover | None = None  # the trail, and a retreat to cover
    _footwork: Footwork = field(default_factory=Footwork)  # the steps of a fight that went nowhere

    @classmethod
    def for_map(
        cls, room_map: RoomMap, *, screen_width: int = 640, skill: int = 3, god: bool = False
    ) -> ReferenceNavigator:
        """Return a navigator for the map, guided by its progression plan where it has one (`doomagent maps`)."""
        try:
            plan: ProgressionPlan | None = plan_for(room_map.geometry)
        except NoPlanError:
            plan = None
        explorer = Explorer.for_map(room_map, skill=skill, plan=plan, god=god)
        if not explorer.ends(plan):
            raise ConfigError(
                f"map {room_map.geometry.name} has no exit line, no boss whose death ends it and no plan",
                hint="the reference navigator plays maps that can be finished",
            )
        return cls(explorer, screen_width=screen_width, god=god)

    def _safe(self, obs: Observation, turn: float) -> bool:
        """Return True when a step `turn` degrees off the view (90: to the left) keeps to safe floor: no wall,
        no drop the route does not take, no hurting floor (a sidestep off a bridge is a fall into the pit)."""
        x, y, _ = obs.position
        heading = math.radians(obs.angle + turn)
        to = (x + SIDESTEP * math.cos(heading), y + SIDESTEP * math.sin(heading))
        grid = self.explorer.room_map.navgrid
        if grid.is_hazard(*to) and not grid.is_hazard(x, y):
            return False
        if not self.god and (self._footwork.blocked(obs.angle + turn) or into_monster(obs, to)):
            return False  # it went nowhere lately, or it runs into a monster's body
        return self._steppable(obs, (x, y), to)

    def _steppable(self, obs: Observation, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True when a fight's straight step from a to b is walkable and, in normal play, meets no door shut
        now (freedoom1 E1M7, seed 9338: sidesteps into a shut door, a demon biting, moved the player nowhere)."""
        if self._threats is not None and obs.live is not None and self._threats.sight.shut_between(obs.live, a, b):
            return False
        return self.explorer.walkable(a, b)

    def _sidestep(self, obs: Observation, *, turn: bool = False) -> Action | None:
        """Return a sidestep the way the last one went (`turn`: the other way), or the other way when that one is not
        safe (then kept); None when that one is not safe either."""
        if turn or not self._safe(obs, _SIDE[self._dodge]):
            self._dodge = Action.STRAFE_RIGHT if self._dodge is Action.STRAFE_LEFT else Action.STRAFE_LEFT
        return self._dodge if self._safe(obs, _SIDE[self._dodge]) else None

    def _cornered(self, obs: Observation, target: VisibleObject) -> Action | None:
        """Return a step out of a corner where no step aside or back is safe, toward a spot with room for them
        (`Footwork.out_of_corner`); None with no such spot near."""
        return self._footwork.out_of_corner(obs, lambda a, b: self._steppable(obs, a, b), _where(obs, target))

    def _excursion(self, obs: Observation) -> Action | None:
        """Return a sidestep of a run of them every so often in a long fight, one way then the other next time: a
        player that stays within 32 units for 1,000 frames is stuck, whatever it is doing."""
        phase = self._shots % EXCURSION_EVERY
        if phase >= EXCURSION_STEPS:
            return None
        side = Action.STRAFE_LEFT if (self._shots // EXCURSION_EVERY) % 2 else Action.STRAFE_RIGHT
        return side if self._safe(obs, _SIDE[side]) else None

    def _move_off(self, obs: Observation) -> Action | None:
        """Return a step off a spot the player has kept to for RELOCATE_AFTER decisions (a long fight, sidesteps that
        always come back), the same safe way for RELOCATE_STEPS steps; None when it has moved about."""
        x, y, _ = obs.position
        if self._anchor is None or math.dist((x, y), self._anchor[:2]) > STUCK_RADIUS:
            self._anchor = (x, y, self._decisions)
            self._relocate = []
        elif self._decisions - self._anchor[2] > RELOCATE_AFTER and not self._relocate:
            ways = [(Action.STRAFE_LEFT, 90.0), (Action.STRAFE_RIGHT, -90.0), (Action.DOWN, 180.0), (Action.UP, 0.0)]
            start = (self._decisions // RELOCATE_AFTER) % len(ways)  # each time the next way first
            way = next((a for a, turn in ways[start:] + ways[:start] if self._safe(obs, turn)), None)
            self._relocate = [way] * RELOCATE_STEPS if way is not None else []
            self._anchor = (x, y, self._decisions)
        return self._relocate.pop() if self._relocate else None

    def _boxed(self, obs: Observation) -> tuple[float, float] | None:
        """Return where the nearest live monster stands when the player has kept to one spot for BOXED_AFTER
        decisions with it within BOXED_NEAR; else None."""
        if self._anchor is None or self._decisions - self._anchor[2] < BOXED_AFTER or obs.live is None:
            return None
        x, y, _ = obs.position
        d, mx, my = min(
            ((math.hypot(mx - x, my - y), mx, my) for _n, mx, my in obs.live.monsters), default=(math.inf, x, y)
        )
        return (mx, my) if d < BOXED_NEAR else None

    def _weapon_switch(self, obs: Observation) -> Action | None:
        """Return the switch to the best weapon the player has ammo for, or None when it holds it: the rocket
        launcher only against a tough monster with nothing within ROCKET_SAFE (its blast hurts the shooter; taking no
        damage, at any distance: freedoom1 E3M6's barons clawing at the player outlasted the shotgun)."""
        hud = obs.hud
        enemies = [o for o in obs.objects if o.is_enemy]
        nearest = min((o.distance for o in enemies), default=math.inf)
        if 5 in hud.weapons and hud.ammo.get("rockets", 0) > 0:
            tough = any(o.name in TOUGH for o in enemies)
            if hud.weapon == 5 and (tough or not enemies) and nearest > ROCKET_KEEP and not self.god:
                return None  # kept while the monster steps out of view or in a little: each switch costs a shot
            if tough and (nearest > ROCKET_SAFE or self.god):  # taking no damage, its own blast is nothing to fear
                return None if hud.weapon == 5 else Action.WEAPON_5
        best = next((s for s, ammo in WEAPON_AMMO.items() if s in hud.weapons and hud.ammo.get(ammo, 0) > 0), None)
        return None if best is None or hud.weapon == best else Action(str(best))

    def _dodge_missile(self, obs: Observation) -> Action | None:
        """Return a sidestep out of the way of a missile in view coming at the player (first seen, or closing in,
        nearer than DODGE_FROM, its line passing within DODGE_WIDTH of the player's centre), away from the side it
        is on; at most DODGE_STEPS for one missile (a fight with several throwers is not all sidesteps)."""
        seen: dict[int, tuple[float, int]] = {}
        dodge = None
        for o in obs.objects:
            if not o.name.endswith(MISSILE_SUFFIXES):
                continue
            before, steps = self._missiles.get(o.id, (math.inf, 0))
            seen[o.id] = (o.distance, steps)
            lateral = o.distance * math.sin(math.radians(o.bearing))  # > 0: it is left of the view's line
            if o.distance >= before or o.distance > DODGE_FROM or abs(lateral) > DODGE_WIDTH or steps >= DODGE_STEPS:
                continue
            if dodge is None:
                ways = [Action.STRAFE_RIGHT, Action.STRAFE_LEFT]
                dodge = next((w for w in (ways if lateral > 0 else ways[::-1]) if self._safe(obs, _SIDE[w])), None)
                seen[o.id] = (o.distance, steps + 1)
        self._missiles = seen
        return dodge

    def _back_off(self, obs: Observation, threats: Threats, target: VisibleObject | None, hurt: bool) -> Action | None:
        """Return a step of a retreat to cover (`_cover`), or a shot on the way when aimed; in cover with nothing in
        view, the turn toward where the monsters come from; None when not backing off."""
        cover = self._cover
        if cover is None:
            cover = self._cover = Cover(self.explorer, threats.sight)
        cover.note(obs.position)
        if not cover.active and self._decisions >= cover.rest_until and (hurt or self._decisions % 4 == 0):
            watchers = threats.watchers(obs)
            if cover.wanted(obs.hud.health, watchers):
                cover.start(obs, watchers, self._decisions)
        if cover.path:
            if not obs.running:
                return Action.SPEED
            ready = obs.hud.weapon_ammo > 0 and not self._reloading(obs)
            if target is not None and ready and self._aim(target) is None:
                self._shots += 1
                return Action.FIRE
            return cover.act(obs)
        if cover.hold and target is None:
            return cover.act(obs)
        return None

    def _reloading(self, obs: Observation) -> bool:
        """Return True while the gun in hand cannot fire again yet (its ammo fell within RELOAD decisions)."""
        return self._decisions - self._shot_at < RELOAD.get(obs.hud.weapon, 0)

    def _aim(self, o: VisibleObject) -> Action | None:
        """Return None when aimed at `o` (its bearing within AIM_DEGREES or within most of its body's width, or the
        view centre on its box where the box is whole on screen), else the turn toward it. A box cut by the screen's
        edge is no guide: an imp 50 units off at 43 degrees had its box over the centre and took the shot."""
        x, _, w, _ = o.box
        centre = self.screen_width / 2
        body = math.degrees(math.atan2(AIM_BODY * RADIUS.get(o.name, 20.0), max(o.distance, 1.0)))
        whole = x > 0 and x + w < self.screen_width
        if self.god:  # taking no damage, the aim of 0.7.23 (the reference-nav figures stand)
            body, whole = 0.0, True
        if abs(o.bearing) <= max(AIM_DEGREES, body) or (whole and x + 1 <= centre <= x + w - 1):
            return None
        return Action.LEFT if o.bearing > 0 else Action.RIGHT

    def _wanted_item(self, obs: Observation) -> VisibleObject | None:
        """Return the nearest item in view worth a detour: a weapon, health when hurt, ammo when low."""
        x, y, _ = obs.position
        grid = self.explorer.room_map.navgrid

        def wanted(o: VisibleObject) -> bool:
            if self._tries.get(o.id, 0) > GIVE_UP or o.distance > PICKUP_RANGE:
                return False
            ox, oy = _where(obs, o)
            if grid.is_hazard(ox, oy) or not self.explorer.clear((x, y), (ox, oy)):
                return False  # on a hurting floor, or not straight across walkable floor
            if o.category == "Weapon":
                return True
            if o.category == "Health":
                return obs.hud.health < PICKUP_BELOW and not self.god
            if o.category == "Armor":
                return obs.hud.armor < 100 and not self.god
            if o.category == "Ammo":
                ammo = obs.hud.ammo
                return ammo.get("bullets", 0) < 60 or (3 in obs.hud.weapons and ammo.get("shells", 0) < 20)
            return False

        return min((o for o in obs.objects if wanted(o)), key=lambda o: o.distance, default=None)

    def act(self, obs: Observation) -> Action:
        """Return the next action: switch weapon, fight, pick up health, search, or walk the route."""
        if self.god:
            return self._act(obs)
        self._footwork.settle(obs, self._decisions)
        action = self._act(obs)
        self._footwork.took(obs, action)
        if action is Action.FIRE and obs.hud.weapon == 5:
            self._rocket_at = self._decisions
        return action

    def _act(self, obs: Observation) -> Action:
        hurt = obs.hud.health < self._health
        self._health = obs.hud.health
        if hurt:
            self._hurt_at = self._decisions
        switch = self._weapon_switch(obs)
        if switch is not None:
            return switch
        self._decisions += 1
        if obs.hud.weapon == self._ammo[0] and obs.hud.weapon_ammo < self._ammo[1]:
            self._shot_at = self._decisions  # the gun in hand fired
        self._ammo = (obs.hud.weapon, obs.hud.weapon_ammo)
        if obs.hud.weapon == 5 and self._shot_at < self._rocket_at and self._decisions - self._rocket_at <= LAUNCH:
            return Action.WAIT  # the rocket pressed for has not left yet: a step now moves its line of fire
        move = self._move_off(obs)
        if move is not None:
            return move
        dodge = None if self.god else self._dodge_missile(obs)
        if dodge is not None:
            return dodge
        bosses = self.explorer.bosses
        boxed = self._boxed(obs) if self.god else None
        riding = (goal := self.explorer.walker.goal) is not None and goal.label == RIDE  # the lift waits for nobody
        reach = (GOD_FIGHT_RANGE if boxed is None else BOXED_FIGHT_RANGE) if self.god else self.fight_range
        # With the pistol alone, a tough monster is left be while a better gun lies on the map: it is fetched first; one
        # within WEAK_NEAR is fought all the same (it claws or blocks the way to the gun). Taking no damage too: a boss
        # the map waits for (freedoom1 E2M8's Cyberdemons) is not worn down with the pistol while a gun lies there.
        weak = set(obs.hud.weapons) <= {1, 2} and self.explorer.supplies.weapons_left()
        live = [
            o
            for o in obs.objects
            if o.is_enemy
            and (
                (o.distance < reach and (not self.god or boxed is not None or abs(o.bearing) < GOD_FIGHT_BEARING))
                or (not self.god and o.name in HITSCAN and o.distance < HITSCAN_RANGE)
                or (o.name in bosses and o.distance < self.fight_range)
            )
            and (self._ignored.get(o.id, 0) <= self._decisions or (o.distance < NEVER_IGNORE and not self.god))
            and not (weak and o.name in TOUGH and o.distance > WEAK_NEAR)
        ]
        target = min(live, key=_threat_order, default=None)
        # Out of ammo, the fist: only a monster close by is fought (and walked up to), a boss the map waits for first.
        punch = obs.hud.weapon_ammo == 0 and obs.hud.weapon == 1
        if punch and target is not None:
            target = min(
                (o for o in live if o.distance < PUNCH_RANGE),
                key=lambda o: (o.name not in bosses, o.distance),
                default=None,
            )
        fighting = target is not None and (obs.hud.weapon_ammo > 0 or punch)
        threats = self._threats
        if threats is None and not self.god and obs.live is not None:
            threats = self._threats = Threats(self.explorer, self.fight_range)
        back_off = None if threats is None or riding else self._back_off(obs, threats, target, hurt)
        if back_off is not None:
            return back_off
        # Run between fights; in one, walk (finer turns) to aim, but run to turn toward a monster far off the view
        # (a running turn is twice as fast: a shotgun guy 50 degrees aside fires twice while a walk turns to it).
        wide = target is not None and abs(target.bearing) > (FAST_TURN_STOP if obs.running else FAST_TURN)
        if (not fighting or wide) != obs.running:
            return Action.SPEED
        if target is not None and punch:
            self._shots += 1
            excursion = self._excursion(obs)
            if excursion is not None:
                return excursion
            return self._aim(target) or (Action.FIRE if target.distance < MELEE_REACH else Action.UP)
        if target is not None and obs.hud.weapon_ammo > 0:
            self._search = 0
            grid = self.explorer.room_map.navgrid
            refuge = None if self.god else self._footwork.off_hazard(obs, self.explorer.walkable, grid.is_hazard)
            if refuge is not None:  # the floor hurts: the fight goes on from the nearest that does not
                return refuge
            clawed = obs.live is not None and any(
                math.dist(obs.position[:2], (mx, my)) < CLAWED_WITHIN for _n, mx, my in obs.live.monsters
            )
            if threats is not None and clawed and target.distance > CLAWED_WITHIN:
                # One close enough to claw, outside the view, goes first (freedoom1 E1M6's imp at the player's back
                # while the shotgun fired at another 260 units off, seed 9322).
                behind = threats.face(obs, self._decisions, within=CLAWED_WITHIN)
                if behind is not None:
                    return behind
            if threats is not None and self._decisions - self._hurt_at < SHOT_FROM_BEHIND and not clawed:
                # Hurt, and not by what is in view: a hitscan shooter outside it is faced first (one that shoots
                # the player from nearer than half the way to the hitscan shooter in view, too: freedoom1 E1M5's
                # shotgun guy behind while the shotgun sniped at zombiemen 900 units off, seed 9322).
                within = target.distance / 2 if target.name in HITSCAN else math.inf
                behind = threats.face(obs, self._decisions, hitscan=True, within=within)
                if behind is not None:
                    return behind
            if threats is not None:
                threats.fought()
            self._fired[target.id] = self._fired.get(target.id, 0) + 1
            spent = self._fired[target.id] > max(TARGET_DECISIONS, TOUGH.get(target.name, 0) / 2.5)
            if spent and target.distance > NEVER_IGNORE:  # out of reach (one this close is in reach: it bites)
                self._fired[target.id] = 0
                self._ignored[target.id] = self._decisions + IGNORE_FOR
            fireballs = not any(o.name in HITSCAN for o in live) and target.distance > FIREBALL_RANGE
            reload_left = RELOAD.get(obs.hud.weapon, 0) - (self._decisions - self._shot_at)
            if fireballs and not self.god and reload_left > AIM_AHEAD:
                # Missiles fly at where the player stood: while the gun reloads, it keeps sidestepping one way (the
                # other at a wall), and aims again just before it is ready (a baron's ball takes 17 tics to cross 250
                # units; a walking sidestep covers 100 in them: freedoom1 E1M8's barons hit one standing between
                # shots four times, seed 9323).
                side = self._sidestep(obs) or self._cornered(obs, target)
                if side is not None:
                    return side
            turn = self._aim(target)
            if turn is not None:
                return turn
            self._shots += 1
            # Give ground to a biter or a tough monster's claws: while the gun is not ready yet (walking back outruns
            # a demon); taking no damage, every other shot, nearer (out of a monster standing in the way).
            close = BITE_REACH if target.name in MELEE else CLAW_REACH if target.name in TOUGH else 0
            close = IMP_REACH if target.name == "DoomImp" and not self.god else close
            if self.god:
                near = GOD_BITE_REACH if target.name in MELEE else close
                back = target.distance < near and self._shots % 2 == 0 and boxed is None and not riding
            else:  # a gun with no pause between shots (the chaingun): every other shot
                steady = obs.hud.weapon not in RELOAD and self._shots % 2 == 0
                back = target.distance < close and (self._reloading(obs) or steady)
            if back and self._safe(obs, 180):
                return Action.DOWN
            if back and not self.god:  # its back to a wall: round the monster instead, one way while it can
                ways = (self._dodge, Action.STRAFE_RIGHT if self._dodge is Action.STRAFE_LEFT else Action.STRAFE_LEFT)
                side = next((w for w in ways if self._safe(obs, _SIDE[w])), None)
                if side is not None:
                    self._dodge = side
                    return side
                corner = self._cornered(obs, target)
                if corner is not None:
                    return corner
            outnumbered = sum(o.distance < OUTNUMBERED_WITHIN for o in live) >= 2
            if outnumbered and obs.hud.health < GIVE_GROUND and self._shots % 2 == 1 and self._safe(obs, 180):
                return Action.DOWN  # hurt and facing several: give ground between shots (they come on one by one)
            excursion = self._excursion(obs)
            if excursion is not None:
                return excursion
            if obs.hud.weapon == 5 and threats is not None and obs.live is not None:
                length = min(target.distance, ROCKET_SAFE)
                if not threats.sight.clear_shot(obs.live, obs.position, obs.angle, length, radius=ROCKET_RADIUS):
                    side = self._sidestep(obs)  # a wall beside the line of fire: the blast would be the player's
                    if side is not None:
                        return side
            every = (2 if obs.hud.health < DODGE_HARDER else 3) if fireballs else 8
            if self._shots % every == 0:
                # Sidestep between shots, changing side now and then: out of the fireballs' way, and never
                # standing in one place for long (a long fight is no reason to stop moving).
                side = self._sidestep(obs, turn=self._shots % 12 == 0)
                if side is not None:
                    return side
            return Action.FIRE
        off = bearing(obs.position[0], obs.position[1], obs.angle, *boxed) if boxed is not None else 0.0
        if abs(off) > VIEW_HALF and obs.hud.weapon_ammo > 0:  # the nearest one hemming it in, out of view: face it
            return Action.LEFT if off > 0 else Action.RIGHT
        if boxed is not None:  # in view and not seen (a wall is between), or no ammo to face it with: walk on, and
            self._anchor = (obs.position[0], obs.position[1], self._decisions)  # let the walk turn away (E3M5's lift)
        face = None if threats is None or obs.hud.weapon_ammo == 0 else threats.face(obs, self._decisions)
        if face is not None:
            return face
        item = None if riding else self._wanted_item(obs)  # no item is worth a ride missed (a lift waits 3 s)
        if item is not None:
            self._tries[item.id] = self._tries.get(item.id, 0) + 1
            if abs(item.bearing) > 10:
                return Action.LEFT if item.bearing > 0 else Action.RIGHT
            return Action.UP
        on_hazard = self.explorer.room_map.navgrid.is_hazard(obs.position[0], obs.position[1])  # hurt by the floor
        if hurt and obs.hud.weapon_ammo > 0 and self._search == 0 and not on_hazard:
            self._search = SEARCH_DECISIONS
        if self._search > 0:
            self._search -= 1
            return Action.RIGHT
        return self.explorer.act(obs)
