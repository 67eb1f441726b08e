"""Read what a run or eval folder says about its trials, as they play: only the documented files.

A trial folder holds steps.jsonl and calls.jsonl (appended as it plays), summary.json (once it ended),
recipe.json beside it, episode.lmp (once the engine closed it) and, from this version on, live/ (its
latest screen and status). Folders written by earlier versions have no live/: the view falls back to
the logs. Logs are read incrementally (only new bytes), and read again from the start if they shrank
(a resumed trial cuts its logs back to its checkpoint).
"""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from doomagent import rundir
from doomagent.errors import ConfigError

RUNNING_S = 30.0  # a trial whose logs changed this recently, with no summary, is taken to be playing


class TailedLog:
    """The records of a JSONL log, read as it grows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []
        self._offset = 0

    def refresh(self) -> list[dict[str, Any]]:
        """Read what was appended since the last call (whole lines only); return all records."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            self.records, self._offset = [], 0
            return self.records
        if size < self._offset:
            self.records, self._offset = [], 0
        if size > self._offset:
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                data = handle.read(size - self._offset)
            end = data.rfind(b"\n") + 1
            for line in data[:end].splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    self.records.append(record)
            self._offset += end
        return self.records


@dataclass
class TrialView:
    """One trial folder, read incrementally."""

    folder: Path
    group: str  # the recipe x model folder's name ("" for a lone trial)
    recipe: dict[str, Any]
    steps: TailedLog = field(init=False)
    calls: TailedLog = field(init=False)

    def __post_init__(self) -> None:
        self.steps = TailedLog(self.folder / rundir.STEPS)
        self.calls = TailedLog(self.folder / rundir.CALLS)
        self._usage: dict[str, dict[str, Any]] = {}
        self._counted = 0  # calls counted into _usage

    def usage(self) -> dict[str, dict[str, Any]]:
        """Return calls, errors, tokens, cost and mean latency per role, counting only new calls."""
        calls = self.calls.refresh()
        if len(calls) < self._counted:  # the log was cut back (a resumed trial)
            self._usage, self._counted = {}, 0
        _count(self._usage, calls[self._counted :])
        self._counted = len(calls)
        return _usage_view(self._usage)

    @property
    def trial(self) -> int:
        """Return the trial's number."""
        digits = self.folder.name.rpartition("-")[2]
        return int(digits) if digits.isdigit() else 0

    def summary(self) -> dict[str, Any] | None:
        """Return summary.json, or None while the trial plays."""
        return _json(self.folder / rundir.SUMMARY)

    def live(self) -> dict[str, Any] | None:
        """Return live/status.json (written by this version while a trial plays), or None."""
        return _json(self.folder / "live" / "status.json")

    def status(self) -> str:
        """Return playing, an outcome (exit, death, ...), stopped (cut off, no summary) or waiting."""
        summary = self.summary()
        if summary is not None:
            return str(summary.get("outcome", "?"))
        newest = max((_mtime(p) for p in (self.steps.path, self.folder / "live" / "status.json")), default=0.0)
        if newest == 0.0:
            return "waiting"
        return "playing" if time.time() - newest < RUNNING_S else "stopped"

    def card(self) -> dict[str, Any]:
        """Return what the overview shows of the trial."""
        steps = self.steps.refresh()
        summary = self.summary()
        live = self.live() or {}
        last = steps[-1] if steps else {}
        usage = self.usage()
        return {
            "id": self.id,
            "group": self.group,
            "trial": self.trial,
            "status": self.status(),
            "frame": (summary or {}).get("frames", live.get("frame", last.get("frame", 0))),
            "max_frames": (self.recipe.get("env") or {}).get("max_frames"),
            "room": live.get("room", last.get("room")),
            "health": (live.get("hud") or {}).get("health", last.get("health")),
            "decisions": len(steps),
            "action": last.get("action"),
            "cost": round(sum(u["cost"] for u in usage.values()), 6),
            "calls": sum(u["calls"] for u in usage.values()),
            "path": _path(steps, 200),
            "entries": _entries(steps, summary),
            "map": self.map_key(),
        }

    def map_key(self) -> str:
        """Return which map the trial plays (its recipe's env as JSON: what `map_data` takes)."""
        env = dict(self.recipe.get("env") or {})
        return json.dumps(
            {k: env.get(k) for k in ("wad", "map", "room_profile") if env.get(k) is not None}, sort_keys=True
        )

    def detail(self, tail: int = 40) -> dict[str, Any]:
        """Return what the trial view shows: the card, the whole path, the last decisions, plan and usage."""
        card = self.card()
        steps = self.steps.records
        calls = self.calls.records
        live = self.live()
        card.update(
            path=_path(steps, 2000),
            last=[
                {
                    "decision": s.get("decision", i),
                    "frame": s.get("frame"),
                    "room": s.get("room"),
                    "action": s.get("action"),
                    "reason": s.get("reason"),
                    "wait": not s.get("parse_ok", True),
                    "lag": s.get("lag"),
                }
                for i, s in list(enumerate(steps))[-tail:]
            ],
            hud=(live or {}).get("hud") or {"health": steps[-1].get("health") if steps else None},
            plan=(live or {}).get("plan") or _last_response(calls, "planner"),
            expert_moves=(live or {}).get("expert_moves") or _expert_moves(calls),
            usage=self.usage(),
            summary=self.summary(),
            has_screen=(self.folder / "live" / "screen.jpg").is_file(),
            has_demo=(self.folder / rundir.DEMO).is_file(),
            decisions_total=len(steps),
        )
        return card

    @property
    def id(self) -> str:
        """Return the trial's id in URLs: its folder relative to the watched one."""
        return f"{self.group}/{self.folder.name}" if self.group else self.folder.name


@dataclass
class Watched:
    """A run or eval folder and its trials (found again as new ones appear)."""

    root: Path
    trials: dict[str, TrialView] = field(default_factory=dict)

    @classmethod
    def open(cls, root: Path) -> Watched:
        """Open a folder that `run` or `eval` wrote (or is writing); refuse any other."""
        if not root.is_dir():
            raise ConfigError(f"{root} is not a folder", hint="give a run or eval folder (the --out of run or eval)")
        watched = cls(root.resolve())
        watched.scan()
        if not watched.trials and not _recipe_folders(watched.root):
            raise ConfigError(
                f"{root} is not a run or eval folder: no recipe.json and no trial-NNN folders in it",
                hint="give the --out folder of `doomagent run` or `doomagent eval`",
            )
        return watched

    def scan(self) -> None:
        """Pick up trial folders that appeared since the last scan."""
        root = self.root
        if (root / rundir.STEPS).is_file():  # a lone trial folder
            recipe = _json(root.parent / rundir.RECIPE) or {}
            self._add(root, "", recipe)
            return
        for folder in _recipe_folders(root):
            recipe = _json(folder / rundir.RECIPE) or {}
            group = "" if folder == root else folder.relative_to(root).as_posix()
            for trial in sorted(folder.glob("trial-*")):
                if trial.is_dir():
                    self._add(trial, group, recipe)

    def _add(self, folder: Path, group: str, recipe: dict[str, Any]) -> None:
        view = TrialView(folder, group, recipe)
        self.trials.setdefault(view.id, view)

    def get(self, trial_id: str) -> TrialView:
        """Return a trial by id, or raise KeyError."""
        self.scan()
        return self.trials[trial_id]

    def env(self) -> dict[str, Any]:
        """Return the environment of the folder's trials (the first recipe's)."""
        for view in self.trials.values():
            if view.recipe:
                return dict(view.recipe.get("env") or {})
        for folder in _recipe_folders(self.root):
            return dict((_json(folder / rundir.RECIPE) or {}).get("env") or {})
        return {}

    def overview(self) -> dict[str, Any]:
        """Return every trial's card and the running table per recipe x model."""
        self.scan()
        cards = [view.card() for view in self.trials.values()]
        groups: dict[str, list[dict[str, Any]]] = {}
        for card in cards:
            groups.setdefault(card["group"] or ".", []).append(card)
        return {"cards": cards, "table": [_row(name, rows, self.rooms()) for name, rows in groups.items()]}

    def rooms(self) -> list[str]:
        """Return the route's rooms, in order."""
        return [room["label"] for room in map_data(json.dumps(self.env(), sort_keys=True))["rooms"] if room["route"]]


def _row(group: str, cards: list[dict[str, Any]], rooms: list[str]) -> dict[str, Any]:
    """Return one line of the running table: PMAT so far per room, deaths, finishes, cost."""
    pmat: dict[str, float | None] = {}
    for room in rooms:
        spent = [c["entries"]["frames"].get(room, 0) for c in cards if room in c["entries"]["frames"]]
        pmat[room] = round(sum(spent) / len(spent)) if spent else None
    return {
        "group": group,
        "trials": len(cards),
        "playing": sum(c["status"] == "playing" for c in cards),
        "deaths": sum(c["status"] == "death" for c in cards),
        "finishes": sum(c["status"] == "exit" for c in cards),
        "cost": round(sum(c["cost"] for c in cards), 6),
        "pmat": pmat,
    }


def _entries(steps: list[dict[str, Any]], summary: dict[str, Any] | None) -> dict[str, Any]:
    """Return frames per room so far: the summary's once there, else counted from the step log."""
    if summary is not None and summary.get("room_frames") is not None:
        return {"frames": dict(summary["room_frames"])}
    frames: dict[str, int] = {}
    for a, b in itertools.pairwise(steps):
        if a.get("room") is not None:
            frames[a["room"]] = frames.get(a["room"], 0) + int(b.get("frame", 0)) - int(a.get("frame", 0))
    return {"frames": frames}


def _path(steps: list[dict[str, Any]], most: int) -> list[list[float]]:
    """Return the player's positions, thinned to at most `most` points (the last one always kept)."""
    points = [[s["x"], s["y"]] for s in steps if "x" in s and "y" in s]
    if len(points) <= most:
        return points
    step = math.ceil(len(points) / most)
    return [*points[::step], points[-1]]


def _count(totals: dict[str, dict[str, Any]], calls: list[dict[str, Any]]) -> None:
    """Add calls (records of calls.jsonl) to per-role totals."""
    for c in calls:
        u = totals.setdefault(str(c.get("role")), {"calls": 0, "errors": 0, "tokens": 0, "cost": 0.0, "latency_s": 0.0})
        u["calls"] += 1
        u["errors"] += int(c.get("error") is not None)
        u["tokens"] += int(c.get("input_tokens") or 0) + int(c.get("output_tokens") or 0)
        u["cost"] += float(c.get("cost") or 0.0)
        u["latency_s"] += float(c.get("latency_s") or 0.0)


def _usage_view(totals: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return per-role totals as the pages show them (mean latency, rounded cost)."""
    return {
        role: {
            "calls": u["calls"],
            "errors": u["errors"],
            "tokens": u["tokens"],
            "cost": round(u["cost"], 6),
            "mean_latency_s": round(u["latency_s"] / u["calls"], 3) if u["calls"] else None,
        }
        for role, u in totals.items()
    }


def _last_response(calls: list[dict[str, Any]], role: str) -> list[str]:
    for c in reversed(calls):
        if c.get("role") == role and c.get("response"):
            return [line for line in str(c["response"]).splitlines() if line.strip()]
    return []


def _expert_moves(calls: list[dict[str, Any]]) -> list[str]:
    moves: list[str] = []
    frame = None
    for c in reversed(calls):
        if c.get("role") != "experts":
            continue
        if frame is not None and c.get("frame") != frame:
            break
        frame = c.get("frame")
        moves.append(str(c.get("response") or "").splitlines()[0] if c.get("response") else "(no answer)")
    return moves[::-1]


def _recipe_folders(root: Path) -> list[Path]:
    found = [root] if (root / rundir.RECIPE).is_file() else []
    found += sorted(p.parent for p in root.glob("*/recipe.json"))
    found += sorted(p.parent for p in root.glob("*/*/recipe.json"))  # an eval over several maps: <wad>_<map>/
    return found


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


@lru_cache(maxsize=8)
def map_data(env_json: str) -> dict[str, Any]:
    """Return the map's walls, doors and rooms for drawing: lines with the rooms on either side."""
    from doomagent.env.config import EnvConfig
    from doomagent.env.geometry import MapGeometry
    from doomagent.env.rooms import build_rooms

    env = EnvConfig.model_validate(json.loads(env_json))
    geometry = MapGeometry.load(env.map, env.wad)
    rooms = build_rooms(geometry, env.room_profile)
    lines = []
    for i, (v1, v2) in enumerate(geometry.line_v):
        a, b = geometry.vertices[v1], geometry.vertices[v2]
        front, back = int(geometry.line_front[i]), int(geometry.line_back[i])
        sides = {rooms.room_of_sector(s) for s in (front, back) if s >= 0} - {None}
        lines.append(
            {
                "a": [round(float(a[0]), 1), round(float(a[1]), 1)],
                "b": [round(float(b[0]), 1), round(float(b[1]), 1)],
                "wall": back < 0,
                "special": int(geometry.line_special[i]) != 0,
                "rooms": sorted(str(r) for r in sides),
            }
        )
    xs, ys = geometry.vertices[:, 0], geometry.vertices[:, 1]
    return {
        "name": f"{geometry.wad_path.name} {geometry.name}",
        "bounds": [float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())],
        "lines": lines,
        "rooms": [{"label": r.label, "route": bool(r.on_route), "name": r.name} for r in rooms.rooms],
    }
