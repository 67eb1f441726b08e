"""Cover: a player that is badly hurt, or that several monsters see at once, backs off along the way it came until
none of the monsters it knows of can see it, and fights from there whatever comes round the corner, one at a time.

The way back is the player's own trail (a crumb every CRUMB map units), so every step of it was walked once; it
stops at a drop, a lift or a teleporter the trail crossed (a straight walk back is no longer clear). Cover is the
first crumb back from which no watcher has a line of sight (`_sight`), off any hurting floor; a way back that comes
nearer to a monster than it stands (or within KEEP_OFF) is no way. Biters (demons, lost souls) are not hidden from:
they follow wherever the player goes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from doomagent.env.actions import Action
from doomagent.env.observation import Observation, bearing
from doomagent.policies._sight import EYE, Sight
from doomagent.policies.explorer import Explorer

CRUMB = 32.0  # map units between the trail's crumbs
CRUMBS = 160  # crumbs kept (about 5,000 map units of trail)
LOOK_BACK = 48  # crumbs searched for cover, newest first (about 1,500 map units)
REACHED = 20.0  # map units from a crumb at which the walk back takes the next one
RETREAT_BELOW = 40  # health under which any monster that sees the player is backed off from
CROWD, CROWD_WITHIN = 3, 650.0  # this many monsters seeing the player this near are backed off from at any health
HOLD = 45  # decisions spent in cover facing the way the monsters come (fighting what shows) before walking on
STEPS = 90  # decisions a retreat may take before it is given up (a monster in the way, a door shut since)
REST = 200  # decisions from the start of one retreat before another may start
LOOK_AGAIN = 20  # decisions after a search that found no cover before the next
# Biters follow wherever the player goes: cover from them is no cover, and with one this near none is looked for.
BITERS, BITER_NEAR = frozenset({"Demon", "Spectre", "LostSoul"}), 256.0
KEEP_OFF = 256.0  # the way back comes no nearer to a live monster than this, nor than it stands now
STALLED = 8  # decisions without REACHED progress toward the next crumb after which the retreat is given up
_MOVES = {Action.UP: 0.0, Action.STRAFE_LEFT: 90.0, Action.DOWN: 180.0, Action.STRAFE_RIGHT: -90.0}


def _hidden_from(watchers: list[tuple[str, float, float, float]]) -> list[tuple[str, float, float, float]]:
    """Return the watchers cover is sought from: all but the biters (they follow wherever the player goes)."""
    return [w for w in watchers if w[0] not in BITERS]


@dataclass
class Cover:
    """The trail, and a retreat under way."""

    explorer: Explorer
    sight: Sight
    crumbs: list[tuple[float, float]] = field(default_factory=list)
    path: list[tuple[float, float]] = field(default_factory=list)  # the crumbs to walk back to, the next one last
    facing: tuple[float, float] | None = None  # where the nearest watcher stood when the retreat started
    hold: int = 0  # decisions left in cover
    steps: int = 0  # decisions spent on the retreat
    stalled: tuple[float, int] = (math.inf, 0)  # nearest the next crumb has been, and decisions since it was nearer
    rest_until: int = 0

    def note(self, position: tuple[float, float, float]) -> None:
        """Drop a crumb where the player stands when it is CRUMB from the last (not while retreating)."""
        here = position[:2]
        if self.path or self.hold:
            return
        if not self.crumbs or math.dist(here, self.crumbs[-1]) >= CRUMB:
            self.crumbs.append(here)
            del self.crumbs[:-CRUMBS]

    def wanted(self, health: int, watchers: list[tuple[str, float, float, float]]) -> bool:
        """Return True when the player should back off: badly hurt and seen, or seen by a crowd close by."""
        biter = any(w[0] in BITERS and w[3] < BITER_NEAR for w in watchers)
        watchers = _hidden_from(watchers)
        near = sum(w[3] <= CROWD_WITHIN for w in watchers)
        # With a biter close by, only a crowd is backed off from: the biter follows, and is fought alone round the
        # corner (freedoom1 E1M6's ambush of imps, a demon and a spectre, seed 9322).
        return bool(watchers) and (near >= CROWD or (health < RETREAT_BELOW and not biter))

    def start(self, obs: Observation, watchers: list[tuple[str, float, float, float]], decision: int) -> bool:
        """Find cover along the trail from the watchers; True when a retreat to it has started."""
        watchers = _hidden_from(watchers)
        if decision < self.rest_until or obs.live is None or not watchers:
            return False
        self.rest_until = decision + LOOK_AGAIN  # no cover this way now: looked for again a little later
        here = obs.position[:2]
        grid = self.explorer.room_map.navgrid
        # The way back passes no monster: no nearer to one than it stands now, nor than KEEP_OFF.
        keep_off = [((mx, my), min(math.dist(here, (mx, my)), KEEP_OFF)) for _n, mx, my in obs.live.monsters]
        path: list[tuple[float, float]] = []
        prev = here
        for crumb in reversed(self.crumbs[-LOOK_BACK:]):
            if math.dist(prev, crumb) > 3 * CRUMB or not self.explorer.walkable(prev, crumb):
                return False  # a drop, a lift, a teleporter or a door since: no cover this way
            if any(math.dist(crumb, m) < off for m, off in keep_off):
                return False  # toward a monster: no cover this way
            path.append(crumb)
            prev = crumb
            if math.dist(crumb, here) < 2 * CRUMB or grid.is_hazard(*crumb):
                continue
            floor = float(obs.live.floors[self.explorer.room_map.geometry.sector_at(*crumb)])
            eye = (crumb[0], crumb[1], floor + EYE)
            if not any(self.sight.sees(obs.live, eye, (w[1], w[2])) for w in watchers):
                self.rest_until = decision + REST
                self.path = path[::-1]
                self.facing = (watchers[0][1], watchers[0][2])
                self.steps, self.hold, self.stalled = 0, 0, (math.inf, 0)
                return True
        return False

    def act(self, obs: Observation) -> Action | None:
        """Return the next step back along the trail, or in cover the turn toward where the monsters come from;
        None when no retreat is under way (or it is over)."""
        x, y, _ = obs.position
        while self.path and math.dist((x, y), self.path[-1]) < REACHED:
            self.path.pop()
            if not self.path:
                self.hold = HOLD
        if self.path:
            self.steps += 1
            gap = math.dist((x, y), self.path[-1])
            nearest, since = self.stalled
            self.stalled = (gap, 0) if gap < nearest - 1.0 else (nearest, since + 1)
            if self.steps > STEPS or self.stalled[1] > STALLED:  # too long, or held (a monster or a door in the way)
                self.path = []
                return None
            off = bearing(x, y, obs.angle, *self.path[-1])
            return min(_MOVES, key=lambda a: abs((off - _MOVES[a] + 180.0) % 360.0 - 180.0))
        if self.hold > 0:
            self.hold -= 1
            if self.facing is not None:
                off = bearing(x, y, obs.angle, *self.facing)
                if abs(off) > 20.0:
                    return Action.LEFT if off > 0 else Action.RIGHT
            return Action.WAIT
        return None

    @property
    def active(self) -> bool:
        """Return True while backing off or holding cover."""
        return bool(self.path) or self.hold > 0
