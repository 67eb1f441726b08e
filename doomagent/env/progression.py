"""Plan how a Doom map is finished: the ordered objectives from the start to the exit and the walk through them.

Read from the WAD alone. A sector that a special moves (a door, a lift, a floor that lowers, stairs that rise)
is treated as passable once what moves it has been set off: a door the player pushes at once (or with its
key), a tagged sector once a switch, walk-over or shootable line with that tag has been used, or once the
map's bosses are dead (Doom's tag-666 scheme). Everything else keeps its heights: a player climbs 24 units,
drops any height, needs 56 units of headroom. Teleport lines carry the player to their destination.

The planner searches depth first for a sequence of actions (fetch a key, use a switch, walk over a trigger,
kill the bosses) after which an exit is reachable, preferring at each step the nearest action that opens new
ground, then drops every action the finish does not need. Locked doors crossed and teleporters taken on the
way become objectives of their own, so the plan reads in the order a player meets them.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import math
from functools import cached_property

import numpy as np

from doomagent.env import _sector_parts, _triggers
from doomagent.env._plan_types import Leg, Objective, ProgressionPlan, plan_data, plan_from_data
from doomagent.env._plan_world import MAX_STEP, _Action, _Walk, _World
from doomagent.env.geometry import MapGeometry
from doomagent.errors import NoPlanError

SEARCH_BUDGET = 400  # states the search may expand before it gives up


def _leg(walk: _Walk, node: object, where: tuple[float, float], sec: int, length: float) -> Leg:
    """Return the leg of a walk that ends at `where` after `node`."""
    chain = []
    while node is not None:
        chain.append(node)
        node = walk.prev.get(node)
    chain.reverse()
    points = [walk.pos[n] for n in chain] + [where]
    lines = [n[1] if n[0] == "T" else n[0] for n in chain if isinstance(n, tuple)]
    sectors = [walk.sector[n] for n in chain] + [sec]
    return Leg(tuple(points), tuple(int(x) for x in lines), tuple(sectors), length)


class Planner:
    """Find the progression plan of one map."""

    def __init__(self, g: MapGeometry, *, strict: bool = True) -> None:
        self.g = g
        self.world = _World(g, strict=strict)
        self.real: np.ndarray = getattr(g, "real", np.arange(g.n_sectors))  # a split view's sectors -> the WAD's

    @cached_property
    def start(self) -> tuple[tuple[float, float], int]:
        """Return the player start's point and sector."""
        x, y, _ = self.g.start
        return (x, y), self.g.sector_at(x, y)

    def plan(self) -> ProgressionPlan:
        """Return the plan, or raise NoPlanError saying why none exists."""
        w = self.world
        if not w.exits and not w.secret_exits:
            raise NoPlanError(f"map {self.g.name} has no exit: no exit line, and no boss whose death ends it")
        for exits in (w.exits, w.secret_exits):
            if not exits or not self._could_finish(exits):
                continue
            steps = self._search(exits)
            if steps is not None:
                return self._build(self._prune(steps, exits))
        raise NoPlanError(self._why_not(w.exits or w.secret_exits))

    def _closure(self) -> tuple[frozenset[str], set[int]]:
        """Return everything obtainable and reachable with every action done wherever it is reached (no
        ordering, one-way drops ignored)."""
        w = self.world
        _point, sec = self.start
        state: frozenset[str] = frozenset()
        reach = w.reach([sec], state)
        while True:
            gained = set(state)
            for act in w.actions:
                if act.needs <= state and reach.intersection(w.sites(act, state)):
                    gained |= act.gives
            grown = w.reach(reach, frozenset(gained))
            if gained == state and grown == reach:
                return state, reach
            state, reach = frozenset(gained), grown

    def _could_finish(self, exits: list[_Action]) -> bool:
        """Return True if an exit is reachable in the closure: when not even that finishes, no search can."""
        state, reach = self._closure()
        return any(ex.needs <= state and reach.intersection(self.world.sites(ex, state)) for ex in exits)

    def _why_not(self, exits: list[_Action]) -> str:
        """Return what stands between the reachable part of the map and its nearest exit, in words."""
        w = self.world
        state, reach = self._closure()
        cost = dict.fromkeys(reach, 0)
        back: dict[int, tuple[int, int]] = {}
        heap = [(0, s) for s in reach]
        while heap:  # fewest blocked crossings from the reachable part to each sector
            d, s = heapq.heappop(heap)
            if d > cost.get(s, math.inf):
                continue
            for line, other, ok in w.portals.get(s, ()):
                nd = d + (0 if w.crossable(ok, s, other, state, line) else 1)
                if nd < cost.get(other, math.inf):
                    cost[other], back[other] = nd, (s, line)
                    heapq.heappush(heap, (nd, other))
        target = min((s for ex in exits for s in ex.sites), key=lambda s: cost.get(s, math.inf))
        reasons: list[str] = []
        while target in back:
            src, line = back[target]
            ok = any(o == target and w.crossable(okay, src, o, state) for _l, o, okay in w.portals[src])
            if not ok and src not in w.openers:  # leaving a closed door was told when entering it
                reasons.append(self._blocker(src, target, state))
            elif ok and not w.crossable(True, src, target, state, line):  # posts bar the opening (_plan_gates)
                posts = sorted({d for row in w.gates[line] for doors in row for d in doors})
                reasons.append(f"posts across line {line}: {self._blocker(src, posts[0], state)}")
            target = src
        found = f"{len({int(self.real[s]) for s in reach})} of {len(set(self.real.tolist()))} sectors reachable"
        if not reasons:
            return f"no walkable way to the exit ({found})"
        return f"the exit lies past {'; '.join(list(dict.fromkeys(reversed(reasons)))[:3])} ({found})"

    def _blocker(self, src: int, dst: int, state: frozenset[str]) -> str:
        w, g = self.world, self.g
        needs = [n - state for n in w.openers.get(dst, ())]
        keys = sorted({t[4:] for n in needs for t in n if t.startswith("key:")})
        tags = sorted({int(t[4:]) for n in needs for t in n if t.startswith("tag:")})
        if keys:
            return f"a {'/'.join(keys)} door whose key is out of reach"
        if tags:
            by = [a for a in w.actions if f"tag:{tags[0]}" in a.gives]
            locked = sorted({t[4:] for a in by for t in a.needs if t.startswith("key:")})
            if locked:
                what = f"{'/'.join(locked)}-key {by[0].kind}"
                return f"sector {self.real[dst]}, opened by a {what} (tag {tags[0]}) whose key is out of reach"
            by_what = by[0].kind if by else "trigger"
            return f"sector {self.real[dst]}, opened by a {by_what} (tag {tags[0]}) that is out of reach"
        rise = int(g.sector_floor[dst] - g.sector_floor[src])
        if rise > MAX_STEP:
            return f"a {rise}-unit step up into sector {self.real[dst]} that no special lowers"
        return f"a {g.opening(src, dst)}-unit opening into sector {self.real[dst]}"

    def _search(self, exits: list[_Action]) -> list[_Action] | None:
        w = self.world
        point, sec = self.start
        seen: set[tuple[frozenset[str], frozenset[int]]] = set()
        budget = [SEARCH_BUDGET]

        def dfs(point: tuple[float, float], sec: int, state: frozenset[str], done: list[_Action], known: set[int]):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            reach = w.reach([sec], state)
            for ex in exits:
                if ex.needs <= state and reach.intersection(w.sites(ex, state)):
                    return [*done, ex]
            walk = w.walk(point, sec, state)
            options = []
            for order, act in enumerate(w.actions):  # ties go to the WAD's order (never to where objects lie)
                if act.gives <= state or not act.needs <= state or not reach.intersection(w.sites(act, state)):
                    continue
                d, _node, site = walk.to(w.sites(act, state), act.where)
                if site is None:
                    continue
                after = w.reach([site], state | act.gives)
                useful = bool(after - known) or bool(act.gives & w.needed)
                options.append((not useful, d, order, act, site, after))
            options.sort(key=lambda o: (o[0], o[1], o[2]))
            for _useless, _d, _i, act, site, after in options:
                key = (state | act.gives, frozenset(after))
                if key in seen:
                    continue
                seen.add(key)
                found = dfs(act.where, site, state | act.gives, [*done, act], known | after)
                if found is not None:
                    return found
            return None

        return dfs(point, sec, frozenset(), [], w.reach([sec], frozenset()))

    def _feasible(self, steps: list[_Action]) -> bool:
        w = self.world
        _point, sec = self.start
        state: frozenset[str] = frozenset()
        for act in steps:
            reach = w.reach([sec], state)
            sites = [s for s in w.sites(act, state) if s in reach]
            if not act.needs <= state or not sites:
                return False
            state = state | act.gives
            sec = sites[0]
        return True

    def _prune(self, steps: list[_Action], exits: list[_Action]) -> list[_Action]:
        """Drop every action the finish does not need, earliest first."""
        i = 0
        while i < len(steps) - 1:
            trial = steps[:i] + steps[i + 1 :]
            if self._feasible(trial):
                steps = trial
            else:
                i += 1
        return steps

    def _build(self, steps: list[_Action]) -> ProgressionPlan:
        w = self.world
        point, sec = self.start
        state: frozenset[str] = frozenset()
        objectives: list[Objective] = []
        legs: list[Leg] = []
        for act in steps:
            walk = w.walk(point, sec, state)
            d, node, site = walk.to(w.sites(act, state), act.where)
            if site is None or node is None:  # _feasible said yes; the walk must agree
                raise NoPlanError(f"internal: {act.text} not reachable when building the route")
            leg = _leg(walk, node, act.where, site, d)
            passages = self._passages(leg)
            objectives.extend(o for _i, o in passages)
            legs.extend(self._split(leg, passages))
            objectives.append(Objective(act.kind, act.where, site, act.text, act.key, act.tag, act.line, act.moves))
            state = state | act.gives
            point, sec = act.where, site
        return ProgressionPlan(self.g.name, tuple(objectives), tuple(legs))

    def _passages(self, leg: Leg) -> list[tuple[int, Objective]]:
        """Return the locked doors crossed and teleporters taken on a leg, with the index of their line."""
        w, g = self.world, self.g
        out: list[tuple[int, Objective]] = []
        doors: set[int] = set()
        for i, line in enumerate(leg.lines):
            front = int(g.line_front[line])
            # Taken: the walk goes on from the destination (a teleport line crossed from behind is a plain line).
            arrival = (leg.sectors[i + 1], leg.points[i + 1])
            taken = [d for tl, d, pt in w.teleports.get(front, ()) if tl == line and (d, pt) == arrival]
            if taken:
                out.append((i, Objective("teleport", g.line_midpoint(line), taken[0], "a teleporter", line=line)))
                continue
            for sec, side in ((front, int(g.line_back[line])), (int(g.line_back[line]), front)):
                # the ways to open the door from the side the leg comes from
                needs = w.openers_from(sec, side)
                keyed = [n for n in needs if any(t.startswith("key:") for t in n)]
                if sec in doors or not keyed or any(not any(t.startswith("key:") for t in n) for n in needs):
                    continue
                doors.add(sec)
                colour = next(t for t in keyed[0] if t.startswith("key:"))[4:]
                face = self._door_face(sec, side, line)
                door = Objective("door", g.line_midpoint(face), sec, f"the {colour} door", colour, line=face)  # type: ignore[arg-type]
                out.append((i, door))
        return out

    def _door_face(self, door: int, side: int, crossed: int) -> int:
        """Return the line a locked door is pushed at from `side`: the keyed one of its lines facing that side
        nearest to the line the walk crosses (that may be a sliver of the door with no special of its own)."""
        g = self.g
        faces = [
            line
            for line in np.flatnonzero((g.line_back == door) & (g.line_front == side)).tolist()
            if (kind := _triggers.classify(int(g.line_special[line]))) is not None and kind.key and kind.door
        ]
        if crossed in faces or not faces:
            return crossed
        mid = g.line_midpoint(crossed)
        return min(faces, key=lambda line: math.dist(mid, g.line_midpoint(line)))

    def _split(self, leg: Leg, passages: list[tuple[int, Objective]]) -> list[Leg]:
        """Split a leg after the line of each passage (its index into leg.lines); points[i + 1] follows line i. A
        leg to a teleporter ends on its line (the point after it is the destination, where the next leg starts)."""
        out: list[Leg] = []
        last = 0
        for c, passage in passages:
            pts, secs = leg.points[last : c + 2], leg.sectors[last : c + 2]
            if passage.kind == "teleport":
                pts, secs = (*pts[:-1], passage.where), (*secs[:-1], int(self.g.line_front[leg.lines[c]]))
            out.append(Leg(pts, leg.lines[last : c + 1], secs, _polyline(list(pts))))
            last = c + 1
        pts = leg.points[last:]
        rest = leg.length - sum(p.length for p in out)
        length = max(rest, _polyline(list(pts))) if out else leg.length
        out.append(Leg(pts, leg.lines[last:], leg.sectors[last:], length))
        return out


def _polyline(points: list[tuple[float, float]]) -> float:
    return float(sum(math.dist(a, b) for a, b in itertools.pairwise(points)))


def plan_for(g: MapGeometry) -> ProgressionPlan:
    """Return the plan of a map, computed once per map: kept in the process and on disk (see _plan_cache;
    a large map takes seconds to plan, and every trial and report needs its plan)."""
    from doomagent.env import _plan_cache

    key = _plan_cache.map_key(g)
    if key not in _PLANS:
        stored = _plan_cache.load(g)
        found: ProgressionPlan | NoPlanError | None = None
        if stored is not None:
            found = plan_from_data(stored)
        if found is None:
            try:
                found = plan_map(g)
            except NoPlanError as exc:
                found = exc
            _plan_cache.store(g, plan_data(found))
        _PLANS[key] = found
    plan = _PLANS[key]
    if isinstance(plan, NoPlanError):
        raise plan
    return plan


_PLANS: dict[str, ProgressionPlan | NoPlanError] = {}


def plan_map(g: MapGeometry) -> ProgressionPlan:
    """Return the progression plan of a map, or raise NoPlanError (with why) when none is found.

    When no plan keeps to the step heights the WAD shows, plan again letting the player climb any step
    (a lift or a rising floor the specials do not reveal): such a plan says `strict=False` and lists the
    climbs it assumed.
    """
    view, real = _sector_parts.split(g)  # a sector in pieces is planned as one sector per piece
    try:
        return _in_wad_sectors(Planner(view).plan(), real)
    except NoPlanError as strict_failure:
        try:
            loose = _in_wad_sectors(Planner(view, strict=False).plan(), real)
        except NoPlanError:
            raise strict_failure from None
    climbs = tuple(line for leg in loose.legs for line in _climbs(g, leg))
    return dataclasses.replace(loose, strict=False, climbs=climbs)


def _in_wad_sectors(plan: ProgressionPlan, real: np.ndarray) -> ProgressionPlan:
    """Return a plan made on a split view (see _sector_parts) with the WAD's sector numbers."""

    def sec(s: int) -> int:
        return int(real[s])

    objectives = tuple(
        dataclasses.replace(o, sector=sec(o.sector), moves=tuple(dict.fromkeys(sec(m) for m in o.moves)))
        for o in plan.objectives
    )
    legs = tuple(dataclasses.replace(leg, sectors=tuple(sec(s) for s in leg.sectors)) for leg in plan.legs)
    return dataclasses.replace(plan, objectives=objectives, legs=legs)


def _climbs(g: MapGeometry, leg: Leg) -> list[int]:
    """Return the lines of a leg crossed upward by more than a player can step."""
    out = []
    for line in leg.lines:
        f, b = int(g.line_front[line]), int(g.line_back[line])
        if f >= 0 and b >= 0 and abs(int(g.sector_floor[f]) - int(g.sector_floor[b])) > MAX_STEP:
            out.append(line)
    return out
