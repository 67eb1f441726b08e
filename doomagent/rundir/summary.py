"""One trial summary type: what `run_trial` returns, what summary.json holds, what eval, metrics and
reports read back."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from doomagent import rundir
from doomagent.env.outcome import Outcome
from doomagent.rundir.usage import Usage


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically: a reader sees the old file or the whole new one. The temporary file's name is the
    writer's own (process and thread), so two threads writing one file (two MCP games starting in one group
    write its recipe.json) never replace each other's half-written temp file; the last whole write wins."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class VisionAudit(BaseModel):
    """Vision reports scored against the engine's truth."""

    model_config = ConfigDict(extra="ignore")

    calls: int = 0
    hallucinated: int = 0

    @property
    def hallucination_rate(self) -> float | None:
        """Return the share of scored reports that claimed something the engine did not show."""
        return self.hallucinated / self.calls if self.calls else None


class TrialResult(BaseModel):
    """How a trial ended, with its totals (summary.json, read back with `TrialResult.load`)."""

    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)

    trial: int = 0
    recipe: str = ""
    model: str = ""
    seed: int = 0
    outcome: Outcome
    frames: int
    decisions: int = 0
    waits: int = 0
    rooms_entered: list[tuple[int, str]] = Field(default_factory=list)  # (frame, room) at each entry
    room_frames: dict[str, int] = Field(default_factory=dict)
    final_position: tuple[float, float] = (0.0, 0.0)
    path_length: float = 0.0
    wait_frames: int = 0  # real-time protocol: frames the game ran while the model thought
    resumes: int = 0  # times the trial went on from a checkpoint after being cut off
    usage: Usage = Field(default_factory=Usage)
    env: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None  # what ended a trial with outcome `error`, with its hint
    # provider (retrying cannot fix it, or it stopped answering), engine or model_server (the engine or the local
    # model's server died: eval plays the trial once more), node (a node raised; the exception is re-raised)
    error_kind: str | None = None
    audit: VisionAudit = Field(default_factory=VisionAudit, validation_alias=AliasChoices("vision_audit", "audit"))
    folder: Path | None = Field(None, exclude=True)  # where the trial's files are
    distance_to_exit: float | None = Field(None, exclude=True)  # filled in by reports (walking distance)
    progress: float | None = Field(None, exclude=True)  # filled in by reports: share of the route walked, 0-1

    @field_validator("rooms_entered", mode="before")
    @classmethod
    def _entries(cls, value: Any) -> Any:
        return [(e["frame"], e["room"]) if isinstance(e, dict) else e for e in value or []]

    @field_validator("usage", mode="before")
    @classmethod
    def _usage(cls, value: Any) -> Any:
        return value if isinstance(value, Usage) else Usage.from_dict(value)

    @field_validator("audit", mode="before")
    @classmethod
    def _audit(cls, value: Any) -> Any:
        return VisionAudit(**value) if isinstance(value, dict) else value

    @property
    def entries(self) -> tuple[tuple[int, str], ...]:
        """Return (frame, room) each time the player entered a room."""
        return tuple(self.rooms_entered)

    def as_dict(self) -> dict[str, Any]:
        """Return JSON-ready data: summary.json's layout."""
        totals = self.usage.totals.model_dump()
        totals.pop("latency_s", None)
        return {
            "trial": self.trial,
            "recipe": self.recipe,
            "model": self.model,
            "seed": self.seed,
            "outcome": self.outcome.value,
            "frames": self.frames,
            "decisions": self.decisions,
            "waits": self.waits,
            "rooms_entered": [{"frame": f, "room": r} for f, r in self.rooms_entered],
            "room_frames": self.room_frames,
            "final_position": [round(v, 2) for v in self.final_position],
            "path_length": round(self.path_length, 2),
            "wait_frames": self.wait_frames,
            "resumes": self.resumes,
            "usage": self.usage.as_dict(),
            "totals": totals,
            "env": self.env,
            "vision_audit": {**self.audit.model_dump(), "hallucination_rate": self.audit.hallucination_rate},
            **({"error": self.error, "error_kind": self.error_kind} if self.error else {}),
        }

    @classmethod
    def load(cls, folder: Path) -> TrialResult:
        """Return the summary of a trial folder (its summary.json)."""
        data = json.loads((folder / rundir.SUMMARY).read_text(encoding="utf-8"))
        return cls.model_validate({**data, "folder": folder})
