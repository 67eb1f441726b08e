"""Reports over eval and run folders: a Table-1 style Markdown table, an HTML page with the
trajectory figure, per-room bars and model use per role, and metrics.json."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from doomagent import rundir
from doomagent.env import EnvConfig, MapGeometry
from doomagent.env.progression import plan_for
from doomagent.env.rooms import RoomMap, build_rooms
from doomagent.errors import ConfigError, NoPlanError
from doomagent.eval.metrics import (
    LAMBDA,
    DeathScope,
    RoomCell,
    Summary,
    TrialRecord,
    pmat_table,
    progress_of,
    summarize,
    usage_by_role,
    with_distance,
)
from doomagent.eval.progress import PlanProgress
from doomagent.eval.tables import (
    audit_markdown,
    markdown_table,
    report_html,
    spread_markdown,
    usage_markdown,
)
from doomagent.rundir.plan import is_finished
from doomagent.rundir.summary import TrialResult

# The paper's human row (Table 1), for the original Hangar only.
HUMAN_ROW = {"A": (78, 78), "B": (108, 108), "C": (158, 158), "D": (104, 104)}
HANGAR_WADS = ("doom", "doom1", "doomu")


@dataclass
class Trial:
    """One finished trial on disk."""

    folder: Path
    summary: TrialResult
    unreadable: int = 0  # step-log lines that could not be read (a line cut by a crash)

    def path(self) -> np.ndarray:
        """Return the player's path as (N, 2) map points, ending where the trial ended."""
        from doomagent.rundir.log import read_jsonl_counted

        points = []
        steps = self.folder / rundir.STEPS
        if steps.exists():
            records, self.unreadable = read_jsonl_counted(steps)
            points = [(r["x"], r["y"]) for r in records if isinstance(r.get("x"), (int, float)) and "y" in r]
        points.append(self.summary.final_position)
        return np.array(points, dtype=float).reshape(-1, 2)


@dataclass
class Group:
    """The trials of one recipe x model."""

    name: str
    recipe: dict[str, Any]
    trials: list[Trial] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Return the row label: recipe (model)."""
        if self.recipe.get("strategy") == "reference":
            god = (self.recipe.get("env") or {}).get("god")
            return f"{self.recipe['name']} (ceiling{', no damage' if god else ''})"
        roles = self.recipe.get("roles") or {}
        model = (roles.get("agent") or {}).get("model")
        return f"{self.recipe['name']} ({model})" if model else str(self.recipe["name"])

    @property
    def env(self) -> EnvConfig:
        """Return the environment the trials ran in."""
        return EnvConfig.model_validate(self.recipe.get("env", {}))


def find_groups(folders: list[Path]) -> list[Group]:
    """Return every recipe folder (a recipe.json beside trial-*/summary.json) under the folders."""
    groups: dict[Path, Group] = {}
    for root in folders:
        if not root.exists():
            raise ConfigError(f"no such folder: {root}", hint="give eval or run folders (with recipe.json)")
        for recipe_file in sorted([root / rundir.RECIPE, *root.rglob(rundir.RECIPE)]):
            folder = recipe_file.parent
            if folder in groups or not recipe_file.exists():
                continue
            trials = [Trial(t, TrialResult.load(t)) for t in sorted(folder.glob("trial-*")) if is_finished(t)]
            if trials:
                name = folder.name
                groups[folder] = Group(name, json.loads(recipe_file.read_text()), trials)
    if not groups:
        raise ConfigError(
            f"no finished trials under {', '.join(map(str, folders))}",
            hint="run `doomagent eval` or `doomagent run` first",
        )
    return list(groups.values())


@dataclass
class Row:
    """One row of the table."""

    label: str
    cells: dict[str, RoomCell]
    summary: Summary | None  # None for the paper's human row
    usage: dict[str, Any] = field(default_factory=dict)
    audit: dict[str, int] = field(default_factory=dict)  # Vision audit: calls scored, hallucinated


def _records(group: Group, rooms: RoomMap) -> list[TrialRecord]:
    along = _plan_progress(rooms)
    grid = rooms.navgrid if rooms.geometry.exit_lines and along is None else None
    start = grid.distance_to_exit(*rooms.geometry.start[:2]) if grid is not None else math.inf
    records = []
    for t in group.trials:
        dts: float | None = 0.0
        if t.summary.outcome != "exit":
            route = rooms.route_from(*t.summary.final_position)
            dts = route.length if route is not None else None
        finished = t.summary.outcome == "exit"
        if along is not None:
            progress = along.of(t.path(), finished=finished)
        else:
            passed = [grid.distance_to_exit(x, y) for x, y in t.path()] if grid is not None else []
            progress = progress_of(passed, start, finished=finished)
        records.append(with_distance(t.summary, dts, progress))
    return records


def _plan_progress(rooms: RoomMap) -> PlanProgress | None:
    """Return the progress scorer of the map's progression plan, or None for a map without a plan."""
    try:
        plan = plan_for(rooms.geometry)
    except NoPlanError:
        return None
    return PlanProgress(plan, rooms.navgrid)


def build_rows(groups: list[Group], rooms: RoomMap, *, lam: float, death_scope: DeathScope) -> list[Row]:
    """Return the table rows: one per group, then the human row where the paper has one."""
    labels = [r.label for r in rooms.rooms if r.on_route]
    route_length = rooms.route.length if rooms.route else 0.0
    rows = []
    # The scripted ceiling goes last, like the paper's human row.
    for g in sorted(groups, key=lambda g: g.recipe.get("strategy") == "reference"):
        records = _records(g, rooms)
        audit: dict[str, int] = {}
        for t in g.trials:
            audit["calls"] = audit.get("calls", 0) + t.summary.audit.calls
            audit["hallucinated"] = audit.get("hallucinated", 0) + t.summary.audit.hallucinated
        rows.append(
            Row(
                g.label,
                pmat_table(records, labels, lam=lam, death_scope=death_scope),
                summarize(records, labels, route_length=route_length),
                usage_by_role(records),
                audit,
            )
        )
    geometry = rooms.geometry
    if geometry.wad_path.stem.lower() in HANGAR_WADS and geometry.name == "E1M1":
        cells = {r: RoomCell(*HUMAN_ROW[r], visits=10) if r in HUMAN_ROW else RoomCell(None, None, 0) for r in labels}
        rows.append(Row("Human (paper)", cells, None))
    return rows


def _figure_png(fig: Any) -> bytes:
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def trajectory_figure(groups: list[Group], rooms: RoomMap) -> Any:
    """Return the trajectory figure: one panel per group, every trial's path over the map."""
    from matplotlib.figure import Figure

    from doomagent.env.mapplot import draw_map, room_raster

    raster = room_raster(rooms, cells=500)
    cols = min(2, len(groups))
    nrows = math.ceil(len(groups) / cols)
    x0, y0, x1, y1 = rooms.geometry.bounds
    aspect = (y1 - y0) / max(x1 - x0, 1)
    fig = Figure(figsize=(7 * cols, 7 * aspect * nrows + 0.8))
    for i, group in enumerate(groups):
        ax = fig.add_subplot(nrows, cols, i + 1)
        draw_map(rooms, ax, show_route=False, raster=raster)
        colours = [f"C{k % 10}" for k in range(len(group.trials))]
        for trial, colour in zip(group.trials, colours, strict=True):
            path = trial.path()
            if not len(path):
                continue
            outcome = trial.summary.outcome
            label = f"#{trial.summary.trial} {outcome.value} ({trial.summary.frames} frames)"
            ax.plot(path[:, 0], path[:, 1], lw=1.0, color=colour, alpha=0.8, zorder=5, label=label)
            if outcome in ("death", "stuck"):
                ax.plot(*path[-1], marker="x" if outcome == "death" else "P", ms=11, mew=2.5, color="black", zorder=8)
        ax.set_title(f"{group.label}: {len(group.trials)} trials  (✖ death, ✚ stuck)", fontsize=10)
        if group.trials:
            ax.legend(fontsize=7, loc="best", title="trial, outcome", title_fontsize=7, framealpha=0.85)
    fig.tight_layout()
    return fig


def room_bars(rows: list[Row], labels: list[str]) -> Any:
    """Return a bar chart of PMAT and D-PMAT per room for each row; a room no trial entered is drawn as a
    hatched, empty bar labelled ∞ above the tallest one (never as a bar of zero)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(6, 1.6 * len(labels) * max(1, len(rows)) / 2), 4))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(rows))
    finite = [c.dpmat for row in rows for c in row.cells.values() if c.dpmat is not None]
    top = 1.15 * max(finite) if finite else 1.0
    for i, row in enumerate(rows):
        xs = np.arange(len(labels)) + i * width
        pmat = [row.cells[r].pmat or 0 for r in labels]
        dpmat = [row.cells[r].dpmat or 0 for r in labels]
        ax.bar(xs, dpmat, width, color=f"C{i}", alpha=0.35)
        ax.bar(xs, pmat, width, color=f"C{i}", label=row.label)
        for x, room in zip(xs, labels, strict=True):
            if row.cells[room].pmat is None:
                ax.bar(x, top, width, fill=False, hatch="//", edgecolor=f"C{i}", linewidth=0.8)
                ax.text(x, top, "∞", ha="center", va="bottom", fontsize=11, color=f"C{i}")
    ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels)
    ax.set_ylabel("frames (solid PMAT, pale D-PMAT)")
    ax.set_title("per room; hatched ∞: no trial entered the room", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def map_key(env: EnvConfig) -> str:
    """Return the name of a map's report folder in a suite report: `freedoom1_E1M2`."""
    return f"{Path(env.wad).stem if env.wad is not None else 'freedoom1'}_{env.map}"


def write_report(folders: list[Path], out: Path, *, lam: float = LAMBDA, death_scope: DeathScope = "room") -> Path:
    """Write report.md, report.html, trajectories.png, rooms.png and metrics.json to `out`; for trials of
    several maps, one such report per map in `out/<wad>_<map>/` and the suite's table in `out/suite.md`,
    `suite.html` and `suite.json` (maps x rows: progress, finishes, deaths)."""
    groups = find_groups(folders)
    by_map: dict[str, list[Group]] = {}
    for g in groups:
        by_map.setdefault(map_key(g.env), []).append(g)
    if len(by_map) == 1:
        _write_map_report(groups, out, folders, lam=lam, death_scope=death_scope)
        return out
    suite = {
        key: _write_map_report(gs, out / key, folders, lam=lam, death_scope=death_scope) for key, gs in by_map.items()
    }
    from doomagent.eval.suites import write_suite

    write_suite(suite, out)
    return out


def _write_map_report(
    groups: list[Group], out: Path, folders: list[Path], *, lam: float, death_scope: DeathScope
) -> list[Row]:
    """Write one map's report (see write_report) and return its rows."""
    env = groups[0].env
    rooms = build_rooms(MapGeometry.load(env.map, env.wad), env.room_profile)
    labels = [r.label for r in rooms.rooms if r.on_route]
    rows = build_rows(groups, rooms, lam=lam, death_scope=death_scope)
    out.mkdir(parents=True, exist_ok=True)
    table = markdown_table(rows, labels)
    traj = _figure_png(trajectory_figure(groups, rooms))
    bars = _figure_png(room_bars([r for r in rows if r.summary is not None], labels))
    (out / "trajectories.png").write_bytes(traj)
    (out / "rooms.png").write_bytes(bars)
    title = f"{rooms.geometry.wad_path.name} {rooms.geometry.name}"
    notes = _notes(groups, rows, rooms, labels, lam, death_scope) + _cut_note(folders)
    audits = audit_markdown(rows)
    spreads = f"## Spread over trials\n\n{spread_markdown(rows, labels)}"
    (out / "report.md").write_text(
        f"# {title}\n\n{notes}\n\n{table}\n\n{spreads}\n\n{usage_markdown(rows)}\n\n{audits}\n",
        encoding="utf-8",
        errors="backslashreplace",
    )
    (out / "report.html").write_text(
        report_html(title, notes, rows, labels, traj, bars), encoding="utf-8", errors="backslashreplace"
    )
    metrics = _metrics(title, labels, lam, death_scope, rows)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2, default=str), encoding="utf-8")
    return rows


def _notes(
    groups: list[Group], rows: list[Row], rooms: RoomMap, labels: list[str], lam: float, death_scope: DeathScope
) -> str:
    """Return the report's paragraph: what the numbers are, lines left out, time spent waiting (real time)."""
    notes = (
        f"PMAT and D-PMAT in frames per room (λ = {lam:g}, deaths charged to the {death_scope}); "
        "∞: no trial entered the room. Timeouts: stuck 1,000 frames in place; frame cap: trials that reached "
        "max_frames. Every mean's spread (sd, bootstrap 95% interval) is in the spread table. Rooms found "
        "automatically; route "
        f"{' → '.join(labels)} ({rooms.route.length if rooms.route else 0:.0f} map units)."
    )
    cut = [t for g in groups for t in g.trials if t.unreadable]
    if cut:
        notes += (
            f" {sum(t.unreadable for t in cut)} step-log line(s) in {len(cut)} trial(s) could not be read (a line cut"
            f" by a crash) and were left out: {', '.join(str(t.folder) for t in cut[:5])}."
        )
    waiting = [r for r in rows if r.summary is not None and r.summary.mean_wait_frames > 0]
    if waiting:
        notes += (
            " Real-time protocol: "
            + "; ".join(
                f"{r.label} spent {r.summary.mean_wait_frames:.0f} of {r.summary.mean_frames:.0f} frames per trial "
                "waiting for its model"
                for r in waiting
                if r.summary is not None
            )
            + "."
        )
    return notes


def _metrics(title: str, labels: list[str], lam: float, death_scope: DeathScope, rows: list[Row]) -> dict[str, Any]:
    """Return metrics.json's content."""
    return {
        "map": title,
        "rooms": labels,
        "lambda": lam,
        "death_scope": death_scope,
        "rows": [
            {
                "label": r.label,
                "cells": {k: dataclasses.asdict(c) for k, c in r.cells.items()},
                "summary": dataclasses.asdict(r.summary) if r.summary else None,
                "usage": {k: vars(u) for k, u in r.usage.items()},
                "vision_audit": r.audit,
            }
            for r in rows
        ],
    }


def _cut_note(folders: list[Path]) -> str:
    """Return a sentence for each eval folder whose eval-wide budget cut it short (from its eval.json)."""
    notes = ""
    for folder in folders:
        try:
            record = json.loads((folder / "eval.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if record.get("cut") or record.get("cut_before"):
            caps = ", ".join(
                f"{name} {record[key]}"
                for key, name in (("max_cost", "--max-cost"), ("max_calls", "--max-calls"))
                if record.get(key) is not None
            )
            notes += (
                f" The eval in {folder} was cut by its budget ({caps or 'eval-wide'}): trials that reached it ended"
                f" with outcome `budget`, {record.get('not_started', 0)} never started."
            )
    return notes
