"""A scripted policy that walks the map's route from start to exit and pushes doors and switches."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from doomagent.env.actions import Action
from doomagent.env.observation import Observation
from doomagent.env.rooms import RoomMap, Route
from doomagent.errors import ConfigError

TURN_TOLERANCE = 14.0  # degrees off the waypoint at which the policy walks instead of turning
REACHED = 40.0  # map units at which a waypoint counts as reached


@dataclass
class RouteFollower:
    """Turn toward the next route point and walk; press USE at doors and at the exit.

    Monsters in view and within `fight_range` are turned to and shot first. No keys are
    fetched: this is a demo and a test driver, not the reference navigator.
    """

    route: Route
    door_points: frozenset[int] = frozenset()  # indices of route points that sit on door lines
    fight_range: float = 900.0
    index: int = 1
    _last_progress: tuple[float, int] = (math.inf, 0)
    _unstick: list[Action] = field(default_factory=list)
    _decisions: int = 0

    @classmethod
    def for_map(cls, room_map: RoomMap) -> RouteFollower:
        """Return a follower of the map's route that knows which route points are doors."""
        route = room_map.route
        if route is None:
            raise ConfigError(
                f"map {room_map.geometry.name} has no walkable route to an exit",
                hint="pick a map with an exit line reachable from the start",
            )
        g = room_map.geometry
        doors = {
            i + 1
            for i, line in enumerate(route.lines[:-1])
            if g.line_front[line] in g.doors or g.line_back[line] in g.doors
        }
        return cls(route, frozenset(doors))

    def act(self, obs: Observation) -> Action:
        """Return the next action for this observation."""
        self._decisions += 1
        x, y, _ = obs.position
        points = self.route.points
        while self.index < len(points) - 1 and math.dist((x, y), points[self.index]) < REACHED:
            self.index += 1
        tx, ty = points[self.index]
        dist = math.dist((x, y), (tx, ty))
        # Corpses keep their monster class; a lying body is much wider than tall.
        target = min(
            (o for o in obs.objects if o.is_enemy and o.distance < self.fight_range and o.box[3] >= 0.8 * o.box[2]),
            key=lambda o: abs(o.bearing),
            default=None,
        )
        if target is not None and obs.hud.weapon_ammo > 0:
            if abs(target.bearing) <= 6.0:
                return Action.FIRE
            return Action.LEFT if target.bearing > 0 else Action.RIGHT
        if self._unstick:
            return self._unstick.pop()
        best, since = self._last_progress
        if dist < best - 8:
            self._last_progress = (dist, self._decisions)
        elif self._decisions - since > 25:
            # No progress: a closed door, a corner or a ledge. Push, back off and sidestep.
            self._last_progress = (dist, self._decisions)
            self._unstick = (
                [Action.UP] * 4
                + [Action.STRAFE_LEFT if self._decisions % 2 else Action.STRAFE_RIGHT] * 4
                + [Action.DOWN] * 2
                + [Action.USE]
            )
        heading = math.degrees(math.atan2(ty - y, tx - x))
        off = (heading - obs.angle + 180.0) % 360.0 - 180.0
        if abs(off) > TURN_TOLERANCE:
            return Action.LEFT if off > 0 else Action.RIGHT
        near_target = self.index == len(points) - 1 or self.index in self.door_points
        if near_target and dist < 72 and self._decisions % 3 == 0:
            return Action.USE
        return Action.UP
