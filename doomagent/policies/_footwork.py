"""A fight's steps: a step back or aside that did not move the player (a wall the grid's cell missed, a monster's
body behind it) is not tried the same way again for a while, a step into a live monster's body is no step at all,
and a fight is not fought standing on a hurting floor.

Pinned between two demons against a wall, freedoom1 E1M5's navigator stepped back into one nine times in a row,
moved nowhere, and never fired at the other (seed 9322). On freedoom1 E1M6 it fought a spectre and a demon from the
nukage for 150 frames and lost 30 health to the floor alone (the same seed). On freedoom1 E1M8 it fought a baron from
a room's corner, where no step aside or back was safe: it stood still and fired while the baron walked up through its
own fireballs and clawed it to death (seed 9320); such a fight first steps out to where it can step aside."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from doomagent.env.actions import Action
from doomagent.env.observation import Observation
from doomagent.policies._steer import step_toward

Point = tuple[float, float]
HazardAt = Callable[[float, float], bool]

MOVED = 1.0  # map units under which a step went nowhere (a walking sidestep from a standstill moves 2)
BLOCKED_FOR = 10  # decisions a way that went nowhere is not stepped again
BLOCKED_WITHIN = 45.0  # degrees either side of such a way that count as the same way
BODY = 48.0  # map units from a live monster's centre within which a step's end runs into it (radii 16 + 20 to 30)
STEPS = {Action.DOWN: 180.0, Action.STRAFE_LEFT: 90.0, Action.STRAFE_RIGHT: -90.0}  # a step's way off the view
# Rings (map units) and headings searched for the nearest safe floor off a hurting one, and how near to it is reached.
REFUGE_RINGS, REFUGE_HEADINGS, REFUGE_REACHED = (32.0, 64.0, 96.0, 128.0, 192.0, 256.0), 16, 12.0
ROOM_RINGS = (64.0, 96.0, 128.0, 192.0)  # map units searched for a spot to fight from out of a corner
ROOM_STEP = 48.0  # a step aside or back that such a spot leaves room for (the navigator's SIDESTEP)
# Map units nearer the monster fought than the player stands that such a spot may be (a corner faces the room, and
# the monster is in it), and how near that monster it may never be.
ROOM_CLOSER, ROOM_KEEP = 64.0, 128.0


@dataclass
class Footwork:
    """The last step taken in a fight, and the ways that went nowhere lately."""

    _last: tuple[float, float, float] | None = None  # where the last step started, and its heading
    _blocked: list[tuple[float, int]] = field(default_factory=list)  # heading -> the decision it may be tried again
    _nowhere: float | None = None  # the way of the last step that went nowhere, till one goes somewhere
    _refuge: tuple[float, float] | None = None  # the safe floor a fight on a hurting one steps off to
    _room: tuple[float, float] | None = None  # the spot a fight in a corner steps out to

    def settle(self, obs: Observation, decision: int) -> None:
        """Mark the last step's way blocked when it and the step before it that way did not move the player (one
        alone may have spent itself turning the player's momentum round)."""
        if self._last is not None:
            x, y, heading = self._last
            if math.dist((x, y), obs.position[:2]) >= MOVED:
                self._nowhere = None
            elif self._nowhere is not None and _same_way(self._nowhere, heading):
                self._blocked.append((heading, decision + BLOCKED_FOR))
            else:
                self._nowhere = heading
            self._last = None
        self._blocked = [(h, until) for h, until in self._blocked if until > decision]

    def took(self, obs: Observation, action: Action) -> None:
        """Remember a step back or aside, to see next decision whether it moved the player."""
        turn = STEPS.get(action)
        if turn is not None:
            self._last = (obs.position[0], obs.position[1], (obs.angle + turn) % 360.0)

    def blocked(self, heading: float) -> bool:
        """Return True when a step this way (degrees, absolute) went nowhere lately."""
        return any(_same_way(heading, h) for h, _ in self._blocked)

    def off_hazard(self, obs: Observation, walkable: Callable[[Point, Point], bool], hazard: HazardAt) -> Action | None:
        """Return a step toward the nearest floor that does not hurt, straight across walkable floor and into no
        monster, while the player stands on one that does; None off it, or with no such floor within reach."""
        x, y, _ = obs.position
        if not hazard(x, y):
            self._refuge = None
            return None
        refuge = self._refuge
        if refuge is None or math.dist((x, y), refuge) < REFUGE_REACHED or not walkable((x, y), refuge):
            refuge = self._refuge = _nearest(obs, walkable, REFUGE_RINGS, lambda to: not hazard(*to))
        return None if refuge is None else step_toward(obs, refuge)

    def out_of_corner(self, obs: Observation, walkable: Callable[[Point, Point], bool], foe: Point) -> Action | None:
        """Return a step toward the nearest spot with room to step aside both ways and back from `foe` (a monster's
        place), straight across walkable floor, into no monster, at most ROOM_CLOSER nearer `foe` than the player
        stands and never within ROOM_KEEP of it; None with no such spot within reach. For a fight with no safe step
        aside or back."""
        x, y, _ = obs.position
        room = self._room
        off = math.inf if room is None else math.dist((x, y), room)
        if not REFUGE_REACHED <= off <= ROOM_RINGS[-1] or room is None or not walkable((x, y), room):
            near = max(math.dist((x, y), foe) - ROOM_CLOSER, ROOM_KEEP)
            room = self._room = _nearest(
                obs, walkable, ROOM_RINGS, lambda to: math.dist(to, foe) >= near, lambda to: _roomy(to, foe, walkable)
            )
        return None if room is None else step_toward(obs, room)


def _same_way(a: float, b: float) -> bool:
    """Return True when two headings (degrees) are within BLOCKED_WITHIN of each other."""
    return abs((a - b + 180.0) % 360.0 - 180.0) < BLOCKED_WITHIN


def _nearest(
    obs: Observation,
    walkable: Callable[[Point, Point], bool],
    rings: tuple[float, ...],
    fits: Callable[[Point], bool],
    then: Callable[[Point], bool] = lambda _to: True,
) -> Point | None:
    """Return the nearest point on `rings` (map units, REFUGE_HEADINGS headings each) round the player that `fits`,
    is reached by a straight walk, runs into no monster and passes `then` (a dearer test, tried last); None if none."""
    x, y, _ = obs.position
    return next(
        (
            to
            for r in rings
            for k in range(REFUGE_HEADINGS)
            if fits(to := _ahead(x, y, math.tau * k / REFUGE_HEADINGS, r))
            and walkable((x, y), to)
            and not into_monster(obs, to)
            and then(to)
        ),
        None,
    )


def _roomy(spot: Point, foe: Point, walkable: Callable[[Point, Point], bool]) -> bool:
    """Return True when from `spot`, facing `foe`, a step of ROOM_STEP aside either way and back is walkable."""
    facing = math.atan2(foe[1] - spot[1], foe[0] - spot[0])
    return all(walkable(spot, _ahead(*spot, facing + turn, ROOM_STEP)) for turn in (math.pi / 2, -math.pi / 2, math.pi))


def _ahead(x: float, y: float, heading: float, distance: float) -> Point:
    """Return the point `distance` map units from (x, y) along `heading` (radians)."""
    return (x + distance * math.cos(heading), y + distance * math.sin(heading))


def into_monster(obs: Observation, to: tuple[float, float]) -> bool:
    """Return True when a step's end runs into a live monster's body (nearer to it than BODY, and nearer than the
    player stands now)."""
    if obs.live is None:
        return False
    here = obs.position[:2]
    for _name, mx, my in obs.live.monsters:
        gap = math.dist(to, (mx, my))
        if gap < BODY and gap < math.dist(here, (mx, my)):
            return True
    return False
