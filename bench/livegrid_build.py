"""Measure how long the reference navigator's live grid takes to rebuild on a few maps, with the answers for winding
stairs kept per heights (as played) against the same builds asked afresh each time (as 0.7.18 was), in one run.

The explorer rebuilds the grid every few decisions while something on the map moves, so a build's cost is paid
thousands of times a map. Each build reads every step too steep for one climb; those with a floor between their
two floors are looked at again for a winding stair (`_stairs`), a search over 81 points per step. Between two
builds at the same heights its answer cannot change, so it is kept per pair of cells and per heights it read.

    python bench/livegrid_build.py [--maps freedoom1.wad:E1M7,freedoom2.wad:MAP25] [--builds 40]
"""

from __future__ import annotations

import argparse
import statistics
import time

from doomagent.env import MapGeometry
from doomagent.env.rooms import auto_rooms
from doomagent.policies._livegrid import LiveGrid

MAPS = "freedoom1.wad:E1M7,freedoom1.wad:E4M1,freedoom2.wad:MAP23,freedoom2.wad:MAP25"


def per_build(grid: LiveGrid, builds: int) -> tuple[float, float]:
    """Return the median seconds of one build at the map's first heights, (answers kept, answers forgotten), the two
    taken in turn so that both meet the same load on the machine."""
    g = grid.geometry
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    kept: list[float] = []
    fresh: list[float] = []
    for _ in range(builds):
        for times, forget in ((kept, False), (fresh, True)):
            if forget:
                grid.stairs.forget_winding()
            start = time.perf_counter()
            grid.build(floors, ceilings, frozenset())
            times.append(time.perf_counter() - start)
    return statistics.median(kept), statistics.median(fresh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", default=MAPS, help="WAD:MAP pairs, comma-separated")
    parser.add_argument("--builds", type=int, default=40, help="builds timed per map and way")
    args = parser.parse_args()
    print(f"{'map':<20} {'cells':>8} {'kept ms':>8} {'afresh ms':>10} {'ratio':>6} {'winding':>8}")
    for pair in args.maps.split(","):
        wad, name = pair.split(":")
        grid = LiveGrid(auto_rooms(MapGeometry.load(name, wad)))
        g = grid.geometry
        walk = grid.build(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset())  # pairs read
        kept, fresh = per_build(grid, args.builds)
        print(
            f"{wad + ':' + name:<20} {grid.n:>8} {kept * 1000:>8.1f} {fresh * 1000:>10.1f} "
            f"{kept / fresh:>6.2f} {len(walk.winding):>8}"
        )


if __name__ == "__main__":
    main()
