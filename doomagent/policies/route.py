"""A scripted policy that walks the map's route from start to exit and pushes doors and switches."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from doomagent.env.actions import Action
from doomagent.env.observation import Observation
from doomagent.env.rooms import RoomMap, Route
from doomagent.errors import ConfigError
from doomagent.policies._steer import ProgressWatch, turn_toward

REACHED = 40.0  # map units at which a waypoint counts as reached
LOOK_AHEAD = 3  # route points beyond the next one that may be walked to directly when in clear view
NO_PROGRESS = 25  # decisions without getting closer before backing off and replanning


def _door_points(room_map: RoomMap, route: Route) -> frozenset[int]:
    g = room_map.geometry
    return frozenset(
        i + 1
        for i, line in enumerate(route.lines[:-1])
        if g.line_front[line] in g.doors or g.line_back[line] in g.doors
    )


@dataclass
class RouteFollower:
    """Turn toward the route and walk; press USE at doors and at the exit; replan after detours.

    Navigation only: no fighting (see ReferenceNavigator), no keys.
    """

    room_map: RoomMap
    route: Route
    door_points: frozenset[int] = frozenset()  # indices of route points that sit on door lines
    index: int = 1
    replans: int = 0
    _watch: ProgressWatch = field(default_factory=lambda: ProgressWatch(NO_PROGRESS))
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
        return cls(room_map, route, _door_points(room_map, route))

    def replan(self, x: float, y: float) -> None:
        """Route afresh from (x, y): after a fight, a push or a wrong turn."""
        route = self.room_map.route_from(x, y)
        if route is not None:
            self.route, self.door_points, self.index = route, _door_points(self.room_map, route), 1
            self.replans += 1

    def _target(self, here: tuple[float, float]) -> int:
        """Return the furthest route point ahead that is in clear view, stopping at doors."""
        best = self.index
        last = min(self.index + LOOK_AHEAD, len(self.route.points) - 1)
        for k in range(self.index + 1, last + 1):
            if best in self.door_points:
                break
            if not self.room_map.clear_path(here, self.route.points[k]):
                break
            best = k
        return best

    def act(self, obs: Observation) -> Action:
        """Return the next action for this observation."""
        self._decisions += 1
        x, y, _ = obs.position
        points = self.route.points
        while self.index < len(points) - 1 and math.dist((x, y), points[self.index]) < REACHED:
            self.index += 1
        if self._unstick:
            return self._unstick.pop()
        if not self.room_map.clear_path((x, y), points[self.index]) and self.index not in self.door_points:
            self.replan(x, y)
            points = self.route.points
        target = self._target((x, y))
        tx, ty = points[target]
        dist = math.dist((x, y), points[self.index])
        unstick = self._watch.stalled(dist)
        if unstick:  # a closed door, a corner or a ledge: push, back off, sidestep, replan
            self._unstick = unstick
            self.replan(x, y)
        turn = turn_toward(obs, (tx, ty))
        if turn is not None:
            return turn
        near_target = self.index == len(points) - 1 or self.index in self.door_points
        if near_target and dist < 72 and self._decisions % 3 == 0:
            return Action.USE
        return Action.UP
