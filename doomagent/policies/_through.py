"""Ways through lifts.

A lift can be a way through as well as a ride: lowered, its floor meets the floors on either side of it, and a player
below it walks across it to ground beyond that riding it up never reaches (freedoom1 E1M9's tag-5 lift: from sector
108, 156 units below its top, across it to sector 227 and the way round to the tag-23 lift and the exit).

And a way can take more than one lift: the what-if of one interaction looks one ride ahead, so ground two lifts away
(E1M9's exit: across the tag-5 lift, then up the tag-23 one) is found by the lift network, the ways open with every
lift the walk can call standing at its top or at its bottom, whichever a step needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from doomagent.env.observation import LiveMap
from doomagent.policies._interactions import Interaction
from doomagent.policies._livegrid import LiveGrid, Walk

NETWORK_ROUNDS = 6  # rounds of calling the lifts newly in reach at most
AFTER_LIFT = 8  # cells of the way past the lift that tell a walk across it from a ride


def past_lift(
    live_grid: LiveGrid,
    live: LiveMap,
    tops: dict[int, float],
    start: int,
    wanted: list[np.ndarray],
) -> np.ndarray | None:
    """Return the ground a player at cell `start` walks to across the lowered lifts and would not reach by riding
    them up (`tops`: each lift sector's top), when the first of the `wanted` cell sets (in order) that either way
    reaches lies there; None when it lies on the ride's side, or none is reached (then the lift is ridden)."""
    if not wanted:
        return None
    lifts = list(tops)
    top, bottom = live_grid.lift_floors(live.floors, lifts, tops)
    down = live_grid.build(bottom, live.ceilings, live.keys).reach(start)
    if not down.any():
        return None
    up = live_grid.build(top, live.ceilings, live.keys)
    here = up.reach(start)
    ridden = here.copy()
    aboard = np.flatnonzero(np.isin(live_grid.sector, lifts) & up.standable)
    if len(aboard):
        ridden |= up.reach(int(aboard[0]))
    past = down & ~ridden
    past[live_grid.touching(lifts)] = False  # beyond the lift, not at its edge
    for cells in wanted:
        if past[cells].any():
            return np.flatnonzero(past)
        if (ridden & ~here)[cells].any():
            return None
    return None


def lift_across(
    live_grid: LiveGrid,
    live: LiveMap,
    walk: Walk,
    start: int,
    lifts: list[tuple[tuple[int, ...], np.ndarray]],
    first_floors: np.ndarray,
    target: np.ndarray,
) -> tuple[int, np.ndarray] | None:
    """Return (the lift called first, the cells of the way just past it) on the way from `start` to the `target`
    cells that the lift network opens (`lifts`: each lift interaction's lift sectors and the cells it is set off
    from); None when the target is in reach now, or the network does not reach it either."""
    from scipy.sparse.csgraph import breadth_first_order, dijkstra

    reach = walk.reach(start)
    if not len(target) or reach[target].any() or not reach.any():
        return None
    graph, called, network = walk.graph, set[int](), reach
    for _ in range(NETWORK_ROUNDS):
        new = {s for sectors, cells in lifts if len(cells) and network[cells].any() for s in sectors} - called
        if not new:
            break
        called |= new
        top, bottom = live_grid.lift_floors(live.floors, sorted(called), first_floors)
        built = [live_grid.build(f, live.ceilings, live.keys) for f in (top, bottom)]
        graph = walk.graph.maximum(built[0].graph).maximum(built[1].graph).tocsr()
        network = np.zeros(len(reach), dtype=bool)
        network[breadth_first_order(graph, start, directed=True, return_predecessors=False)] = True
    if not network[target].any():
        return None
    dist, pred = dijkstra(graph, indices=start, return_predecessors=True)
    end = int(target[np.argmin(dist[target])])
    way = [end]
    while way[-1] != start and pred[way[-1]] >= 0:
        way.append(int(pred[way[-1]]))
    way.reverse()
    if way[0] != start:
        return None
    out = next(k for k, cell in enumerate(way) if not reach[cell])  # the first step the live ways do not take
    for sec in sorted(called):
        near = np.zeros(len(reach), dtype=bool)
        near[live_grid.touching([sec])] = True
        if near[way[out - 1]] or near[way[out]]:
            past = [cell for cell in way[out:] if not near[cell]][:AFTER_LIFT]
            return sec, np.array(past, dtype=np.int64)
    return None


@dataclass
class LiftWays:
    """The lift network's ways to the plan's steps (kept per step and reach: a build per round is slow), and the lift
    the last one called, with the way past it."""

    ways: dict[tuple[int, int], tuple[int, np.ndarray] | None] = field(default_factory=dict)
    across: tuple[Interaction, np.ndarray] | None = None

    def way(
        self,
        live_grid: LiveGrid,
        step: Interaction,
        live: LiveMap,
        walk: Walk,
        start: int,
        reach: np.ndarray,
        items: list[Interaction],
        first_floors: np.ndarray,
        tries: int,
    ) -> tuple[int, np.ndarray] | None:
        """Return lift_across's answer for the way to the step (the lift interactions failed `tries` times left
        out)."""
        key = (id(step), int(reach.sum()))
        if key not in self.ways:
            lifts = [
                (tuple(s for s in i.moves if live_grid.lifts[s]), i.cells)
                for i in items
                if i.effect == "lift" and i.repeat and i.failed < tries
            ]
            self.ways[key] = lift_across(live_grid, live, walk, start, lifts, first_floors, step.live_cells)
        return self.ways[key]

    def wanted(self, item: Interaction, steps: list[Interaction], next_step: Interaction | None) -> list[np.ndarray]:
        """Return the cells of what a lift is called for, in order: the way past it the network chose it for, the
        plan's steps after it still to do (the next step, when it is none of them), then what its what-if claimed."""
        across = [self.across[1]] if self.across is not None and self.across[0] is item else []
        if item in steps:
            todo = [i for i in steps[steps.index(item) + 1 :] if not i.done and (i.uses == 0 or i.repeat)]
        else:
            todo = [next_step] if next_step is not None else []
        todo = [i for i in todo if i.moves != item.moves]
        return across + [i.cells for i in (*todo, *item.claims) if len(i.cells)]
