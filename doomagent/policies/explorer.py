"""Finish a map the way a player who has never seen it would: walk to the exit when the way is open; when it is not,
do the thing that opens the most ground (press a switch, walk over a trigger line, shoot a target, fetch a key),
judged on the live grid (`_livegrid`: the map as its heights stand now), and look again.

Each decision reads the live map (EnvConfig.live_map). To choose, the explorer asks of each interaction within reach
(`_interactions`) what would become reachable were the sectors it moves out of the way (a key: were its doors open).
The plan's next step goes first, or, out of reach, the lift its way through the lift network calls first (`_through`);
then one that opens a way to the exit, what the way just taken was chosen for, one that opens new ground, a key, one
not yet tried; with nothing left, it walks to ground it has not seen, and tries again what failed. An interaction
that moved nothing, or whose spot could not be reached, is tried once more and then left. The walk is `Walker`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from doomagent.env import _triggers
from doomagent.env.actions import Action
from doomagent.env.geometry import MIN_HEADROOM
from doomagent.env.observation import WEAPON_AMMO, Hud, LiveMap, Observation
from doomagent.env.progression import ProgressionPlan
from doomagent.env.rooms import RoomMap
from doomagent.errors import ConfigError
from doomagent.policies._bosses import BOSS_CLASSES, Bosses
from doomagent.policies._explore_walk import OPENED, RIDE, Goal, Walker
from doomagent.policies._interactions import (
    Interaction,
    crossing_cells,
    interactions,
    key_takes,
    plan_steps,
    set_off_already,
    shot_cells,
    walked_over,
)
from doomagent.policies._livegrid import LiveGrid, Walk, moved
from doomagent.policies._provisions import LOW_HEALTH, SUPPLY_REACH, plan_detours, supply_goal
from doomagent.policies._seen import SEEN_EVERY, Seen
from doomagent.policies._supplies import Supplies
from doomagent.policies._through import LiftWays, past_lift

REBUILD_EVERY = 6  # decisions between rebuilds of the live grid while something moves
MIN_GAIN = 24  # cells an interaction must open to count as opening new ground
ITEM_GAIN = 60  # cells an interaction not yet done that comes within reach counts as
TRIES = 2  # failures before an interaction is left alone (until everything else has been tried)
GOAL_CAP = 1200  # decisions spent on one walk to an interaction before it counts as failed
LOOK_CAP = 400  # decisions spent on a walk to unseen ground or to a boss before choosing afresh
WEAPON_NEAR, WEAPON_LOOK = 900.0, 300  # a weapon the player lacks this near breaks a walk off, at most this often
RECHECK_EVERY = 60  # decisions between checks, on a walk, whether the player has run short of health or ammo
UNSEEN = "ground not seen yet"
LOOKS = frozenset({OPENED, UNSEEN, "somewhere far"})  # walks that no interaction is the end of
WhatIf = tuple[int, bool, np.ndarray | None, int, tuple[Interaction, ...], int]  # one interaction's what-if, kept


@dataclass
class Explorer:
    """Finish a map by the live grid: walk to the exit, or do what opens the way to it."""

    room_map: RoomMap
    live_grid: LiveGrid
    items: list[Interaction]
    bosses: frozenset[str] = frozenset()  # engine class names whose deaths the map waits for
    skill: int = 3  # which things are on the map (supplies)
    god: bool = False  # takes no damage: health and armor are worth nothing
    steps: list[Interaction] = field(default_factory=list)  # the progression plan's interactions, in its order
    loose: bool = False  # the plan climbs steps no lift shows: its next step is not sought through the lift network
    log: list[str] = field(default_factory=list)  # what was chosen and why, what failed
    walker: Walker = field(init=False)
    _walk: Walk | None = None
    _built_from: tuple[np.ndarray, np.ndarray, frozenset[str]] | None = None
    _built_at: int = -1_000_000
    _decisions: int = 0
    _seen: Seen = field(init=False)  # the ground the player has walked near
    _whatif: dict[tuple[int, int], WhatIf] = field(default_factory=dict)  # (item, reach) -> gain, ..., claims
    _promised: set[int] = field(default_factory=set)  # ids of what the last walk across was chosen for (its claims)
    _lifts: LiftWays = field(default_factory=LiftWays)  # the lift network's ways to the plan's steps
    _start: tuple[np.ndarray, np.ndarray] | None = None  # the heights as the map began
    _wanders: int = 0
    # Items worth their detour on the way to the exit, planned once: cell, label, the weapon slot it is worth only with
    _detours: list[tuple[int, str, int]] | None = None
    _detour: tuple[Goal, tuple[int, str, int]] | None = None  # the detour walked now
    _fetching: Goal | None = None  # the walk to a supply now
    _weapon_look: int = 0  # the decision from which a weapon close by may break a walk off again
    _weapon_rethink: int = 0  # and from which one out of reach may make the walk choose again
    _step_rethought: Interaction | None = None  # the plan step that, come within reach, last broke a walk off
    supplies: Supplies = field(init=False)
    boss_walks: Bosses = field(init=False)  # where the bosses the map waits for are seen from

    def __post_init__(self) -> None:
        self.walker = Walker(self.room_map, self.live_grid, self._note, through=self._through)
        self.supplies = Supplies(self.room_map, self.skill)
        self.boss_walks = Bosses(self.room_map, self.live_grid, self.bosses)
        self._seen = Seen.of(self.live_grid.n)

    @classmethod
    def for_map(
        cls, room_map: RoomMap, *, skill: int = 3, plan: ProgressionPlan | None = None, god: bool = False
    ) -> Explorer:
        """Return an explorer for the map (reading its interactions and building its grid takes about a second);
        with the map's progression plan, its steps go first wherever they can be done."""
        g = room_map.geometry
        bosses = frozenset(
            BOSS_CLASSES[ttype]
            for pattern, ttype, _name, _tag in _triggers.BOSS_DEATHS
            if g.name.upper() == pattern and ttype in g.things["type"].tolist()
        )
        items = interactions(room_map, skill=skill)
        explorer = cls(room_map, LiveGrid(room_map, skill), items, bosses, skill=skill, god=god)
        if plan is not None:
            explorer.steps, explorer.loose = plan_steps(plan, items), not plan.strict
        return explorer

    def ends(self, plan: ProgressionPlan | None) -> bool:
        """Return True when the explorer knows how the map ends: an exit, a boss whose death ends it, or a plan."""
        return plan is not None or any(i.kind == "exit" for i in self.items) or bool(self.bosses)

    def clear(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True when the straight walk from a to b keeps to standable ground (see Walker.clear)."""
        return self.walker.clear(a, b)

    def walkable(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True when the straight walk from a to b crosses no wall, no step up too high and no drop: standable
        ground, or off the walkable grid (a corridor narrower than its cells allow) a path the map's lines allow."""
        return self.walker.clear(a, b) or self.room_map.clear_path(a, b, directed=True)

    # -- the live grid ---------------------------------------------------------------------------------------

    def _update(self, live: LiveMap) -> None:
        """Rebuild the walk when the map has moved (at most every REBUILD_EVERY decisions), a key was picked up or
        the cells kept off changed."""
        built = self._built_from
        if built is not None and not self.walker.avoid_changed:
            floors, ceilings, keys = built
            still = not moved(live, None, floors, ceilings)
            if keys == live.keys and (still or self._decisions - self._built_at < REBUILD_EVERY):
                return
        self._walk = self.live_grid.build(
            live.floors, live.ceilings, live.keys, avoid=self.walker.avoid(self._decisions)
        )
        self.walker.walk = self._walk
        self._built_from = (live.floors.copy(), live.ceilings.copy(), live.keys)
        self._built_at = self._decisions
        self._whatif.clear()

    # -- acting ----------------------------------------------------------------------------------------------

    def act(self, obs: Observation) -> Action:
        """Return the next action toward the current goal (choosing one when there is none)."""
        live = obs.live
        if live is None:
            raise ConfigError(
                "the explorer reads the live map, which this environment does not report",
                hint="create the environment with EnvConfig(live_map=True)",
            )
        self._decisions += 1
        here = (obs.position[0], obs.position[1])
        if self._start is None:
            self._start = (live.floors.copy(), live.ceilings.copy())
        self._update(live)
        if self._decisions % SEEN_EVERY == 0:
            self._seen.mark(self._walk, self.walker.cell(here))
        walker = self.walker
        goal = walker.goal
        expired = goal is not None and goal.decisions > (GOAL_CAP if goal.what is not None else LOOK_CAP)
        if expired and goal is not None and goal.what is not None:
            walker.fail(goal.what, f"not done in {GOAL_CAP} decisions")
        elif expired and goal is not None and goal.label == UNSEEN:  # not got to: the ground round it counts as seen
            self._note(f"gave up on the ground round {self._seen.give_up(self._walk, goal.cells, self.live_grid)}")
        rechecked = goal is not None and goal is not self._fetching and goal.label != RIDE  # a ride costs a trip back
        hurt = not self.god and self._decisions % RECHECK_EVERY == 0 and rechecked
        if goal is None or expired or (hurt and (self._short(obs.hud) or self._weapon_near(here, obs.hud))):
            self._break_off(live, here, obs.hud)
        elif self._built_at == self._decisions and self._came_within_reach(live, here, goal):
            self._think(live, here, obs.hud)
        return walker.act(obs, live, here, self._decisions)

    def _break_off(self, live: LiveMap, here: tuple[float, float], hud: Hud) -> None:
        """Choose afresh (the goal reached, given up, or broken off for a supply)."""
        goal = self.walker.goal
        if goal is not None and self._detour is not None and goal is self._detour[0] and self._detours is not None:
            self._detours.insert(0, self._detour[1])  # broken off: walked again once the player has what it lacks
        self._think(live, here, hud)  # (a walk to an interaction cut short is chosen again later)

    def _came_within_reach(self, live: LiveMap, here: tuple[float, float], goal: Goal) -> bool:
        """Return True when the grid, rebuilt, brings within reach what goes before the walk now on: an exit, on a look
        (a door the walk left opened behind it, through before it shuts: freedoom1 E2M2's tag 8), or the plan's next
        step, on a walk chosen for other ground (stairs raised behind it: freedoom1 E1M3's tag 18), once a step."""
        wanted = [i for i in self.items if i.kind == "exit" and self._open(i, live)] if goal.label in LOOKS else []
        step = self._next_step(live)
        aside = goal.label in LOOKS or (goal.what is not None and goal.label != RIDE and goal is not self._fetching)
        aside = aside and not any(s is goal.what or s is goal.source for s in self.steps)  # nor a step's ride, walk on
        if step is not None and aside and step is not goal.what and step is not self._step_rethought:
            wanted.append(step)
        start = self.walker.cell(here)
        if not wanted or self._walk is None or start < 0:
            return False
        reach = self._walk.reach(start)
        came = [i for i in wanted if reach[self._done_from(i, live)].any()]
        if came:
            self._note(f"{came[0].text} came within reach: choose again")
        if any(i is step for i in came):
            self._step_rethought = step
        return bool(came)

    def _next_step(self, live: LiveMap) -> Interaction | None:
        """Return the plan's first step not yet set off (a lift's switch, used once, is passed even though it may be
        used again)."""
        return next((i for i in self.steps if i.uses == 0 and self._open(i, live)), None)

    def _done_from(self, item: Interaction, live: LiveMap) -> np.ndarray:
        """Return the cells an interaction can be done from now."""
        assert self._walk is not None
        cells = crossing_cells(item, self._walk) if walked_over(self.room_map, item) else item.cells
        cells = shot_cells(item, self.live_grid, self.boss_walks.sight, live) if item.kind == "shoot" else cells
        if item.mover_cells is not None:  # a key on a floor that moves: where it is taken from with the floor as it is
            cells = item.mover_cells
            cells = cells[key_takes(live.floors[item.on_mover] - live.floors[self.live_grid.sector[cells]])]
        return cells

    def _weapon_near(self, here: tuple[float, float], hud: Hud) -> bool:
        """Return True when a weapon the player lacks lies close by: one the walk reaches breaks the walk off for it
        (at most every WEAPON_LOOK decisions); one out of reach makes the walk choose again (as often), since what
        brings it within reach may be worth doing now (freedoom1 E1M3: 1 exit of 8 without these choices, 3 with)."""
        if self._walk is None or self._decisions < min(self._weapon_look, self._weapon_rethink):
            return False
        near = self.supplies.weapons_near(here, hud.weapons, WEAPON_NEAR)
        start = self.walker.cell(here)
        if not near or start < 0:
            return False
        from scipy.sparse.csgraph import dijkstra

        dist = dijkstra(self._walk.graph, indices=[start], min_only=True)
        if any(math.isfinite(float(dist[s.cell])) for s in near):
            if self._decisions < self._weapon_look:
                return False
            self._weapon_look = self._decisions + WEAPON_LOOK  # the walk to it
            return True
        # Out of reach for now (a floor still moving, a door): looked at again on the next check all the same, so a
        # gun that comes within reach is not left for WEAPON_LOOK decisions (freedoom1 E1M8's pillars lowering).
        if self._decisions < self._weapon_rethink:
            return False
        self._weapon_rethink = self._decisions + WEAPON_LOOK
        return True

    def _short(self, hud: Hud) -> bool:
        """Return True when the player has run short of health or of ammo (worth breaking off a walk for)."""
        return bool(self.supplies.wanted(hud, WEAPON_AMMO.get(hud.weapon)) & {"health", *hud.ammo})

    # -- choosing --------------------------------------------------------------------------------------------

    def _think(self, live: LiveMap, here: tuple[float, float], hud: Hud) -> None:
        """Choose the next goal (see the module's docstring)."""
        walk = self._walk
        assert walk is not None
        from scipy.sparse.csgraph import dijkstra

        start = self.walker.cell(here)
        reach = walk.reach(start) if start >= 0 else np.zeros(walk.standable.shape, dtype=bool)
        dist = dijkstra(walk.graph, indices=[start], min_only=True) if start >= 0 else np.full(len(reach), np.inf)

        def near(cells: np.ndarray) -> float:
            return float(dist[cells].min()) if len(cells) else math.inf

        assert self._start is not None
        for item in set_off_already(self.items, live, *self._start):
            self._note(f"{item.text} was set off already")
        open_items = [i for i in self.items if self._open(i, live)]
        for item in open_items:
            item.live_cells = self._done_from(item, live)
        if self._detours is None:
            exit_cells = [i.live_cells for i in open_items if i.kind == "exit" and len(i.live_cells)]
            if not self.god and exit_cells:
                self._detours = plan_detours(self.room_map, walk, self.skill, dist, np.concatenate(exit_cells))
            else:
                self._detours = []
        if hud.health < LOW_HEALTH and not self.god and self._fetch(hud, dist):
            return  # badly hurt: health (or what it is short of) before the detours
        while self._detours and self._detours[0][2] and self._detours[0][2] not in hud.weapons:
            self._detours.pop(0)  # ammo for a weapon the player does not own: not worth the walk
        if self._detours:
            cell, label, slot = self._detours.pop(0)
            detour = Goal(None, np.array([cell]), label)
            self._detour = (detour, (cell, label, slot))
            self.walker.start(detour)
            self._note(f"detour for {label}")
            return
        if self._fetch(hud, dist):  # a supply short of, or one worth a short detour, first: it keeps it alive
            return
        exits = [(near(i.live_cells), i) for i in open_items if i.kind == "exit"]
        exits = [e for e in exits if math.isfinite(e[0])]
        if exits:
            self._choose(min(exits, key=lambda e: e[0])[1], "the exit is open")
            return
        # With the pistol alone, what brings a gun within reach goes before the plan (freedoom1 E1M8's barons); on a
        # boss map, in god mode too (E2M8's two Cyberdemons outlast the pistol; its guns lie in closets shots open).
        if (not self.god or self.bosses) and set(hud.weapons) <= {1, 2}:
            arms = [(near(i.live_cells), i) for i in open_items if i.kind != "exit" and not i.uses]
            arms = [(d, i) for d, i in arms if d <= SUPPLY_REACH and self._gain(i, live, reach, start) and i.arms]
            if arms:
                self._choose(min(arms, key=lambda a: a[0])[1], "it brings a gun within reach")
                return
        step = self._next_step(live)
        if step is not None and math.isfinite(near(step.live_cells)):
            if self._gate(step):
                self._gain(step, live, reach, start)  # the ground past it, walked to once it is down
            self._choose(step, f"the plan's next step ({near(step.live_cells):.0f} units away)")
            return
        if step is not None and not self.loose and self._lift_way(step, live, reach, start, dist):
            return
        boss = self.boss_walks.goal(live, reach)
        if boss is not None:
            self.walker.start(boss)
            self._note(f"walk to {boss.label}")
            return
        # What a lift (or a door) was chosen for goes first once it is in reach: else the lift's other end, which
        # claims what is left behind, outbids it, and the walk rides to and fro past both (freedoom1 E1M2).
        promised = [(near(i.live_cells), i) for i in open_items if id(i) in self._promised and not i.uses]
        promised = [p for p in promised if math.isfinite(p[0])]
        if promised:
            self._choose(min(promised, key=lambda p: p[0])[1], "what the way here was taken for")
            return
        scored = []
        for item in open_items:
            if item.kind == "exit":
                continue
            d = near(item.live_cells)
            if math.isfinite(d):
                scored.append((d, *self._gain(item, live, reach, start), item))
        order = (
            [s for s in scored if s[2]],
            [s for s in scored if s[1] >= MIN_GAIN],
            [s for s in scored if s[3].kind == "key"],
        )
        if self._pick(order, ("it opens the way to the exit", "it opens new ground", "a key")):
            return
        # The map's interactions are all known: one not tried yet is worth more than ground not seen yet (which
        # holds nothing the WAD does not show), and that is only walked to when nothing is left to try. One in reach
        # goes before a lift ridden before back to what is left on its other side (else the lift, nearer than what
        # it brought the walk to, is ridden to and fro for ever).
        untried = [s for s in scored if s[3].uses == 0]
        back = [s for s in scored if s[3].uses and s[3].beyond]
        if self._pick((untried, back), ("not tried yet", "the way to what is not tried yet")):
            return
        boss = self.boss_walks.goal(live, reach, anywhere=True)
        if boss is not None:  # a boss on ground the walk never reaches (a ledge, a pillar) is shot from where it shows
            self.walker.start(boss)
            self._note(f"walk to a place that sees {boss.label}")
            return
        look = self._seen.nearest_unseen(reach, dist)
        if look is not None:
            self.walker.start(Goal(None, look, UNSEEN))
            self._note("look at ground not seen yet")
            return
        self._wander(reach, dist, [s[3] for s in scored if s[3].effect == "lift" and s[3].uses])

    def _fetch(self, hud: Hud, dist: np.ndarray) -> bool:
        """Start a walk to a supply (see _supply); False: none worth it."""
        supply = supply_goal(self.supplies, hud, dist, self.god)
        if supply is None:
            return False
        self._fetching = supply
        self.walker.start(supply)
        self._note(f"fetch {supply.label}")
        return True

    def _pick(self, groups: tuple[list[tuple[float, int, bool, Interaction]], ...], reasons: tuple[str, ...]) -> bool:
        """Choose from the first group that has any (nearest first, larger gains as if nearer); False: none."""
        for group, reason in zip(groups, reasons, strict=True):
            if group:
                d, gain, _f, item = min(group, key=lambda s: (s[0] - 8.0 * min(s[1], 400), s[0]))
                self._choose(item, f"{reason} ({gain} cells, {d:.0f} units away)")
                return True
        return False

    def _through(self, item: Interaction, tops: dict[int, float], live: LiveMap, start: int) -> np.ndarray | None:
        """Return the ground to walk to across a lift just called (see past_lift); None: the lift is ridden."""
        return past_lift(self.live_grid, live, tops, start, self._lifts.wanted(item, self.steps, self._next_step(live)))

    def _lift_way(self, step: Interaction, live: LiveMap, reach: np.ndarray, start: int, dist: np.ndarray) -> bool:
        """With the plan's next step out of reach, go for the first lift on the lift network's way (lift_across)."""
        assert self._walk is not None and self._start is not None
        found = self._lifts.way(self.live_grid, step, live, self._walk, start, reach, self.items, self._start[0], TRIES)
        sec, past = found if found is not None else (-1, np.zeros(0, dtype=np.int64))
        calls = [i for i in self.items if sec in i.moves and i.effect == "lift" and self._open(i, live)]
        for i in calls:
            i.live_cells = self._done_from(i, live)
        item = min(calls, key=lambda i: float(dist[i.live_cells].min(initial=math.inf)), default=None)
        if item is None or not math.isfinite(float(dist[item.live_cells].min(initial=math.inf))):
            return False
        self._lifts.across = (item, past)
        self._choose(item, f"the lift network's way to {step.text}")
        return True

    def _open(self, item: Interaction, live: LiveMap) -> bool:
        """Return True for an interaction worth a walk now: not done, not failed too often, its key held."""
        if item.done or item.failed >= TRIES or item.rest_until > self._decisions:
            return False
        if not item.usable(self.room_map, live.floors, live.ceilings, self._start[0] if self._start else None):
            return False  # behind a door shut now, a sector still shut before it, or it would move nothing now
        return item.kind == "key" or item.key is None or item.key in live.keys

    def _wander(self, reach: np.ndarray, dist: np.ndarray, lifts: list[Interaction]) -> None:
        """With nothing left to try and all ground within reach seen: try again what failed, after a walk somewhere
        far (a walk never stands still); every other time, a lift ridden before, each in turn (what is left may lie
        more than one lift away: a lift's what-if looks one ride ahead)."""
        for item in self.items:
            item.failed = 0
        self._wanders += 1
        if lifts and self._wanders % 2 == 0:
            lift = lifts[(self._wanders // 2) % len(lifts)]
            self._choose(lift, "everything within reach tried: a lift ridden before")
            return
        cells = np.flatnonzero(reach & np.isfinite(dist))
        if len(cells):
            far = cells[dist[cells] >= np.quantile(dist[cells], 0.75)]
            target = int(far[(self._wanders * 7919) % len(far)])
            self.walker.start(Goal(None, np.array([target]), "somewhere far"))
        self._note("everything tried: try the failed ones again after a walk somewhere far")

    def _choose(self, item: Interaction, why: str) -> None:
        item.tries += 1
        self._promised.discard(id(item))
        if item.claims:
            self._promised = {id(c) for c in item.claims}
        self.walker.start(Goal(item, item.live_cells, item.text))
        self._note(f"go for {item.text}: {why}")

    def _note(self, text: str) -> None:
        self.log.append(f"{self._decisions}: {text}")

    def _gain(self, item: Interaction, live: LiveMap, reach: np.ndarray, start: int) -> tuple[int, bool]:
        """Return (cells of new ground it would open, whether an exit would come within reach) were the interaction
        done; the new ground's cells are kept on the interaction (`opens`), for the walk there afterwards."""
        key = (id(item), int(reach.sum()))
        if key not in self._whatif:
            self._whatif[key] = (*self._what_if(item, live, reach, start), item.beyond, item.claims, item.arms)
        gain, finishes, opens, item.beyond, item.claims, item.arms = self._whatif[key]
        item.opens = opens
        return gain, finishes

    def _what_if(
        self, item: Interaction, live: LiveMap, reach: np.ndarray, start: int
    ) -> tuple[int, bool, np.ndarray | None]:
        keys, movers = live.keys, frozenset(item.moves)
        item.beyond, item.claims, item.arms = 0, (), 0
        if item.kind == "key" and item.key is not None:
            keys = keys | {item.key}
        elif not movers:
            return 0, False, None
        lg = self.live_grid
        doors = [d for _line, (d, k) in lg.push_lines.items() if k == item.key] if item.kind == "key" else []
        if not lg.next_to(doors or list(item.moves), reach):
            return 0, False, None
        assert self._start is not None
        after = lg.reach_after(live, keys, movers, start, self._start[0], self.walker.avoid(self._decisions))
        opened = after & ~reach
        item.arms = sum(1 for s in self.supplies.items if s.kind.startswith("weapon") and opened[s.cell])
        # New ground is ground not seen yet, and the interactions not yet done that come within reach: going back to
        # where the walk has been is no gain (a lift ridden up and down for ever).
        fresh = opened & ~self._seen.cells
        fresh &= ~np.isin(self.live_grid.sector, item.moves)  # what it moves is the way there, not the ground
        # Ground it opened before was walked then: only what is still to do there counts again (else a lift is
        # ridden to and fro for the corners of each side not seen yet).
        gain = int(fresh.sum()) if item.uses == 0 else 0
        # What is still to do there: a key, a switch or trigger that opens more, an exit (each counts as ground);
        # and any interaction not tried yet that is worth a walk, a lift's included (`beyond`: a lift ridden before
        # is the way back to what is left to try on its other side; its own other trigger only brings the walk back).
        for other in self.items:
            if other is item or other.done or other.uses or not len(other.cells):
                continue
            if opened[other.cells].any() and not reach[other.cells].any():
                if other.effect != "lift" and (other.kind == "key" or other.key in (None, *keys)):  # a lock: no use
                    gain += ITEM_GAIN
                    item.claims += (other,)
                if other.moves != item.moves and self._open(other, live):
                    item.beyond += 1
        if gain - ITEM_GAIN * len(item.claims) >= MIN_GAIN:
            item.claims = ()  # new ground enough without them: chosen for the ground, no promise to keep
        finishes = any(
            len(i.cells) and after[i.cells].any()
            for i in self.items
            if i.kind == "exit" and (i.key is None or i.key in keys)
        )
        if self._gate(item):  # a lift that lets a player by only while down: through it at once, each time
            beyond = opened.copy()
            beyond[self.live_grid.touching(list(item.moves))] = False  # past it, not at its edge
            return gain, finishes, np.flatnonzero(beyond) if beyond.any() else None
        # (claimed interactions alone, or a used one's ground, uncounted, are no walk after: it chooses afresh there)
        return gain, finishes, np.flatnonzero(fresh) if gain and fresh.any() and not item.uses else None

    def _gate(self, item: Interaction) -> bool:
        """Return True for a lift with no room over it at the top (a strip between two floors: freedoom2 MAP20's at
        (-1728, -172), down for 3 s a press): the way through it is open only while it is down."""
        assert self._start is not None
        floors, ceilings = self._start
        return item.effect == "lift" and all(ceilings[s] - floors[s] < MIN_HEADROOM for s in item.moves)
