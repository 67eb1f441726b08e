"""The monsters that can shoot the player now: for a navigator that turns to face a monster outside its view instead
of turning blindly when hurt.

It reads the map's live monsters (EnvConfig.live_map) and its lines of sight (`_sight`): a scripted ceiling knows
where the monsters are, as a player who has played the map does."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from doomagent.env.actions import Action
from doomagent.env.observation import Observation, bearing
from doomagent.policies._sight import Sight
from doomagent.policies.explorer import Explorer

# Hitscan shooters hurt at any range and cannot be dodged: they are faced and fought this far.
HITSCAN = frozenset({"ShotgunGuy", "ChaingunGuy", "WolfensteinSS", "Zombieman", "SpiderMastermind"})
HITSCAN_RANGE = 1100.0
VIEW_HALF = 40.0  # degrees either side of the view centre a monster is on screen within (a 90-degree view)
FACE_TURNS, FACE_REST = 15, 60  # turns toward one outside the view before giving up on it, and the rest after


@dataclass
class Threats:
    """What can see the player, and facing it."""

    explorer: Explorer
    fight_range: float
    sight: Sight = field(init=False)
    _face_turns: int = 0
    _face_off: int = 0

    def __post_init__(self) -> None:
        self.sight = Sight(self.explorer.room_map.geometry)

    def watchers(self, obs: Observation) -> list[tuple[str, float, float, float]]:
        """Return the live monsters that can see the player, nearest first: within fight range, hitscan shooters
        within HITSCAN_RANGE."""
        if obs.live is None:
            return []
        return [
            w
            for w in self.sight.watchers(obs.live, obs.position, HITSCAN_RANGE)
            if w[3] <= self.fight_range or w[0] in HITSCAN
        ]

    def fought(self) -> None:
        """A monster in view is being fought: the turns toward unseen ones start again from zero."""
        self._face_turns = 0

    def face(
        self, obs: Observation, decision: int, *, hitscan: bool = False, within: float = math.inf
    ) -> Action | None:
        """Return the turn toward the nearest monster (`hitscan`: hitscan shooter; nearer than `within`) that can see
        the player from outside the view; None when there is none, or the nearest is in view already."""
        if decision < self._face_off:
            return None
        watchers = [w for w in self.watchers(obs) if (not hitscan or w[0] in HITSCAN) and w[3] < within]
        if not watchers:
            self._face_turns = 0
            return None
        x, y, _ = obs.position
        _name, mx, my, _d = watchers[0]
        off = bearing(x, y, obs.angle, mx, my)
        if abs(off) <= VIEW_HALF:
            return None
        self._face_turns += 1
        if self._face_turns > FACE_TURNS:  # it never came into view: the sight test was wrong, or it moved off
            self._face_turns, self._face_off = 0, decision + FACE_REST
            return None
        return Action.LEFT if off > 0 else Action.RIGHT
