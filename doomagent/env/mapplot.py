"""Draw a top-down picture of a map: walls, doors, rooms (coloured and labelled), route, start, exit."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from doomagent.env.rooms import RoomMap

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from doomagent.env.geometry import MapGeometry
    from doomagent.env.progression import ProgressionPlan

_DOOR_RGB = (1.0, 0.55, 0.0)
_RASTER = 900  # cells along the longer side of the room fill


def room_raster(room_map: RoomMap, cells: int = _RASTER) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """Return a grid of room indices (-1 outside, -2 door, -3 unassigned) and its extent."""
    g = room_map.geometry
    x0, y0, x1, y1 = g.bounds
    step = max(x1 - x0, y1 - y0) / cells
    xs = np.arange(x0 + step / 2, x1, step)
    ys = np.arange(y0 + step / 2, y1, step)
    gx, gy = np.meshgrid(xs, ys)
    px, py = gx.ravel() + 0.37, gy.ravel() + 0.29  # off the lattice that map lines sit on
    sectors = g.sectors_at(px, py)
    inside = g.inside_map(px, py, sectors)
    index = {label: i for i, label in enumerate(room_map.labels)}
    lookup = np.full(g.n_sectors, -3, dtype=np.int64)
    for s in g.doors:
        lookup[s] = -2
    for s, label in room_map.sector_room.items():
        lookup[s] = index[label]
    grid = np.where(inside, lookup[sectors], -1).reshape(gx.shape)
    return grid, (x0, x1, y0, y1)


def draw_map(
    room_map: RoomMap,
    ax: Axes,
    *,
    show_route: bool = True,
    show_labels: bool = True,
    raster: tuple[np.ndarray, tuple[float, float, float, float]] | None = None,
) -> None:
    """Draw the map onto `ax` in map units (y up); pass `raster` (room_raster's result) to reuse it."""
    import matplotlib.pyplot as plt

    g = room_map.geometry
    grid, extent = raster if raster is not None else room_raster(room_map)
    n = len(room_map.rooms)
    cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
    rgba = np.ones((*grid.shape, 4))
    for i in range(n):
        rgba[grid == i, :3] = cmap(i % cmap.N)[:3]
        rgba[grid == i, 3] = 0.45 if room_map.rooms[i].on_route else 0.25
    rgba[grid == -2, :3] = _DOOR_RGB
    rgba[grid == -3, :3] = 0.8
    rgba[grid == -1] = (1, 1, 1, 0)
    ax.imshow(rgba, origin="lower", extent=extent, interpolation="nearest", zorder=0)

    _draw_lines(g, ax)

    if show_route and room_map.route is not None:
        pts = np.array(room_map.route.points)
        ax.plot(pts[:, 0], pts[:, 1], ls="--", lw=1.2, color="tab:red", zorder=4, label="route")
    sx, sy, sa = g.start
    ax.plot(sx, sy, marker="o", ms=9, color="green", mec="black", zorder=6, label="start")
    ax.annotate(
        "",
        xy=(sx + 80 * np.cos(np.radians(sa)), sy + 80 * np.sin(np.radians(sa))),
        xytext=(sx, sy),
        arrowprops={"arrowstyle": "->", "color": "green", "lw": 1.5},
        zorder=6,
    )
    if g.exit_lines:
        ex, ey = g.line_midpoint(g.exit_lines[0])
        ax.plot(ex, ey, marker="*", ms=17, color="gold", mec="black", zorder=6, label="exit")
    if show_labels:
        _label_rooms(room_map, ax, grid, extent)
    x0, y0, x1, y1 = g.bounds
    pad = 0.03 * max(x1 - x0, y1 - y0)
    ax.set_xlim(x0 - pad, x1 + pad)
    ax.set_ylim(y0 - pad, y1 + pad)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def _draw_lines(g: MapGeometry, ax: Axes) -> None:
    """Draw the map's lines: walls black, steps grey, doors in the door colour."""
    from matplotlib.collections import LineCollection

    a = g.vertices[g.line_v[:, 0]]
    b = g.vertices[g.line_v[:, 1]]
    segs: Any = np.stack([a, b], axis=1)  # (N, 2, 2) segments; matplotlib's stubs want nested sequences
    one_sided = g.line_back < 0
    door_sectors = np.array(sorted(g.doors), dtype=np.int64)
    is_door = np.isin(g.line_front, door_sectors) | np.isin(g.line_back, door_sectors)
    ax.add_collection(LineCollection(segs[~one_sided & ~is_door], colors="0.55", linewidths=0.4, zorder=1))
    ax.add_collection(LineCollection(segs[one_sided & ~is_door], colors="black", linewidths=0.9, zorder=2))
    ax.add_collection(LineCollection(segs[is_door], colors=[_DOOR_RGB], linewidths=2.0, zorder=3))


def _label_rooms(room_map: RoomMap, ax: Axes, grid: np.ndarray, extent: tuple[float, float, float, float]) -> None:
    """Write each room's label at its most central cell (route rooms larger and bold)."""
    gx0, gx1, gy0, gy1 = extent
    rows, cols = grid.shape
    for i, room in enumerate(room_map.rooms):
        yy, xx = np.nonzero(grid == i)
        if not len(xx):
            continue
        k = np.argmin((xx - xx.mean()) ** 2 + (yy - yy.mean()) ** 2)
        px = gx0 + (xx[k] + 0.5) * (gx1 - gx0) / cols
        py = gy0 + (yy[k] + 0.5) * (gy1 - gy0) / rows
        weight = "bold" if room.on_route else "normal"
        ax.text(
            px,
            py,
            room.label,
            ha="center",
            va="center",
            fontsize=11 if room.on_route else 8,
            weight=weight,
            zorder=7,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "alpha": 0.8, "lw": 0},
        )


_KEY_RGB = {"blue": "#1f5fd6", "yellow": "#f2c200", "red": "#d62728"}
_OBJECTIVE_MARKERS = {"key": "D", "door": "s", "switch": "p", "walk": "v", "shoot": "h", "teleport": "^", "boss": "X"}


def draw_progression(ax: Axes, plan: ProgressionPlan) -> None:
    """Mark a progression plan's objectives, numbered in order: keys and locked doors in their key's colour,
    switches, trigger lines, teleporters, bosses; the exit keeps its star."""
    seen: set[str] = set()
    for i, o in enumerate(plan.objectives, 1):
        x, y = o.where
        if o.kind != "exit":
            colour = _KEY_RGB.get(o.key or "", "#8c2bd6" if o.kind in ("switch", "shoot") else "#333333")
            label = {"key": "key", "door": "locked door", "walk": "trigger line"}.get(o.kind, o.kind)
            ax.plot(
                x,
                y,
                marker=_OBJECTIVE_MARKERS.get(o.kind, "o"),
                ms=10,
                color=colour,
                mec="black",
                zorder=7,
                ls="none",
                label=None if label in seen else label,
            )
            seen.add(label)
        ax.annotate(
            str(i),
            (x, y),
            xytext=(7, 7),
            textcoords="offset points",
            fontsize=9,
            weight="bold",
            zorder=9,
            bbox={"boxstyle": "circle,pad=0.2", "fc": "white", "ec": "black", "lw": 0.6},
        )


def draw_path(ax: Axes, path: np.ndarray, *, outcome: str | None = None, color: str = "tab:blue") -> None:
    """Draw a player's path (N x 2 map points) and mark how it ended: ✖ death, ✚ stuck."""
    if len(path) == 0:
        return
    ax.plot(path[:, 0], path[:, 1], lw=1.4, color=color, alpha=0.9, zorder=5, label="player path")
    marker = {"death": "x", "stuck": "P"}.get(outcome or "")
    if marker:
        ax.plot(path[-1, 0], path[-1, 1], marker=marker, ms=12, mew=3, color="black", zorder=8, label=outcome)


def map_figure(
    room_map: RoomMap,
    *,
    width_in: float = 11.0,
    path: np.ndarray | None = None,
    outcome: str | None = None,
    plan: ProgressionPlan | None = None,
) -> Figure:
    """Return a figure with the map, a title and a legend, a progression plan's objectives and a player's
    path if given."""
    from matplotlib.figure import Figure

    g = room_map.geometry
    x0, y0, x1, y1 = g.bounds
    fig = Figure(figsize=(width_in, width_in * max(0.4, (y1 - y0) / max(x1 - x0, 1)) + 0.6))
    ax = fig.add_subplot()
    draw_map(room_map, ax)
    if plan is not None:
        draw_progression(ax, plan)
    if path is not None:
        draw_path(ax, path, outcome=outcome)
    route = room_map.route
    route_text = (
        f"route {' → '.join(r.label for r in room_map.rooms if r.on_route)}, {route.length:.0f} units"
        if route
        else "no route to an exit"
    )
    ax.set_title(
        f"{g.wad_path.name} {g.name}: {len(room_map.rooms)} rooms ({room_map.source}); {route_text}", fontsize=10
    )
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def save_map(
    room_map: RoomMap,
    out: Path,
    *,
    dpi: int = 110,
    path: np.ndarray | None = None,
    outcome: str | None = None,
    plan: ProgressionPlan | None = None,
) -> Path:
    """Write the map picture to `out` (PNG, SVG or PDF by suffix), atomically."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
    map_figure(room_map, path=path, outcome=outcome, plan=plan).savefig(tmp, dpi=dpi)
    tmp.replace(out)
    return out
