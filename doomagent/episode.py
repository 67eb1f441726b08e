"""Run one scripted episode and write its artefacts: steps, demo, summary and map picture."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from doomagent.env import DoomEnv, Observation
from doomagent.env.actions import Action


@dataclass(frozen=True)
class EpisodeSummary:
    """How an episode ended and where its time went."""

    outcome: str
    frames: int
    decisions: int
    rooms_entered: list[tuple[int, str]]
    room_frames: dict[str, int]
    health: int

    def as_dict(self) -> dict[str, Any]:
        """Return the summary as JSON-ready data."""
        return {
            "outcome": self.outcome,
            "frames": self.frames,
            "decisions": self.decisions,
            "rooms_entered": [{"frame": f, "room": r} for f, r in self.rooms_entered],
            "room_frames": self.room_frames,
            "final_health": self.health,
        }


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically: a reader sees the old file or the whole new one."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


def run_episode(
    env: DoomEnv,
    policy: Callable[[Observation], Action],
    out: Path,
    *,
    seed: int = 0,
    on_step: Callable[[Observation, Action], None] | None = None,
) -> EpisodeSummary:
    """Play `policy` until the episode ends; write steps.jsonl, episode.lmp, summary.json, map.png.

    The engine finishes writing episode.lmp when the episode is reset or the env is closed.
    """
    from doomagent.env.mapplot import save_map

    out.mkdir(parents=True, exist_ok=True)
    obs, info = env.reset(seed=seed, options={"record": out / "episode.lmp"})
    path = [obs.position[:2]]
    decisions = 0
    with (out / "steps.jsonl").open("w") as steps:
        while True:
            action = policy(obs)
            prev = obs
            obs, _, terminated, truncated, info = env.step(action)
            decisions += 1
            path.append(obs.position[:2])
            steps.write(
                json.dumps(
                    {
                        "frame": prev.frame,
                        "room": prev.room,
                        "x": round(prev.position[0], 2),
                        "y": round(prev.position[1], 2),
                        "angle": round(prev.angle, 2),
                        "health": prev.hud.health,
                        "action": action.value,
                    }
                )
                + "\n"
            )
            steps.flush()
            if on_step is not None:
                on_step(obs, action)
            if terminated or truncated:
                break
    summary = EpisodeSummary(
        info["outcome"], info["frame"], decisions, info["room_entries"], info["room_frames"], obs.hud.health
    )
    write_json(out / "summary.json", summary.as_dict())
    save_map(env.rooms, out / "map.png", path=np.array(path), outcome=summary.outcome)
    return summary
