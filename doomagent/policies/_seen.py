"""The ground the explorer has seen: the cells within a short walk of where the player has been. An interaction's
new ground counts only where it is unseen, and with nothing left to try the walk goes to look at what is."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from doomagent.policies._livegrid import LiveGrid, Walk

UNSEEN_BEYOND = 160.0  # map units: unseen ground nearer than this is not worth a walk of its own
SEEN_WALK = 320.0  # map units along the grid from the player within which ground counts as seen
SEEN_EVERY = 4  # decisions between updates of the ground seen


@dataclass
class Seen:
    """One flag per cell of the live grid: walked near."""

    cells: np.ndarray

    @classmethod
    def of(cls, n: int) -> Seen:
        """Return ground none of which is seen yet (`n` cells)."""
        return cls(np.zeros(n, dtype=bool))

    def mark(self, walk: Walk | None, start: int) -> None:
        """Count the ground within SEEN_WALK of the cell `start` along the walk as seen (a pit below it too)."""
        from scipy.sparse.csgraph import dijkstra

        if walk is not None and start >= 0:
            self.cells |= np.isfinite(dijkstra(walk.lengths, indices=[start], limit=SEEN_WALK, min_only=True))

    def give_up(self, walk: Walk | None, cells: np.ndarray, grid: LiveGrid) -> tuple[int, int]:
        """Count the ground within SEEN_WALK of `cells` as seen: a walk to look at it ran out of time (something the
        grid does not show bars the way: freedoom1 E2M4 walked to the same ground for 11,000 frames). Return where
        it is (the first cell's centre)."""
        from scipy.sparse.csgraph import dijkstra

        self.cells[cells] = True
        if walk is not None and len(cells):
            self.cells |= np.isfinite(dijkstra(walk.lengths, indices=cells, limit=SEEN_WALK, min_only=True))
        x, y = grid.grid.centre(int(cells[0]))
        return round(x), round(y)

    def nearest_unseen(self, reach: np.ndarray, dist: np.ndarray) -> np.ndarray | None:
        """Return the nearest reachable cell not walked near yet (`dist`: along the grid; not right here), or None."""
        fresh = reach & ~self.cells & np.isfinite(dist) & (dist > UNSEEN_BEYOND)
        if not fresh.any():
            return None
        return np.array([int(np.flatnonzero(fresh)[np.argmin(dist[fresh])])])
