"""Checkpoints of a trial in progress, so that a trial killed mid-way resumes instead of starting over.

A checkpoint lives in `<trial>/checkpoint/`:

- `graph.sqlite`: the graph state after the decision, stored by LangGraph's SqliteSaver through its public
  API (one thread per checkpoint, `decision-<n>`; the previous thread is deleted once meta.json names the
  new one, so the database holds one checkpoint);
- `meta.json`, written last (the commit point): the decision and frame, where the player stood, the byte
  length of each log (steps.jsonl, calls.jsonl, ...), usage so far, the path walked, the seed and the
  state of models that keep one (the seeded test model's random generator).

Resuming truncates the logs to those lengths (decisions after the checkpoint are played again, with their
model calls), restarts the engine with the trial's seed and replays the logged decisions' inputs into it.
The engine is deterministic, so it reaches the checkpoint's exact state, checked against the recorded
frame, position and health; its demo recording restarts at tic 0 and so covers the whole trial.
(ViZDoom's own save games are not used: a game loaded from one applies the first tic's movement
differently from the game that saved it, so a resumed trial would drift from an unbroken one.)
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doomagent import rundir
from doomagent.errors import ConfigError, EngineError
from doomagent.providers.base import Stateful
from doomagent.rundir.log import RunLog, read_jsonl
from doomagent.rundir.plan import has_checkpoint

if TYPE_CHECKING:
    from doomagent.env.doom_env import DoomEnv
    from doomagent.env.observation import Observation
    from doomagent.runtime.context import RunContext

FOLDER = rundir.CHECKPOINT
_VERSION = 1


@dataclass
class Checkpoint:
    """What a trial needs to go on from a decision."""

    decision: int
    frame: int
    seed: int
    position: tuple[float, float]
    health: int
    offsets: dict[str, int]  # log file name -> byte length at the checkpoint
    usage: dict[str, Any]
    path_length: float
    models: dict[str, Any] = field(default_factory=dict)  # role -> state of a model that keeps one
    state: dict[str, Any] = field(default_factory=dict)  # the graph state
    resumes: int = 0  # times the trial has gone on from a checkpoint so far


def _config(thread: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _saver(path: Path) -> Any:
    from langgraph.checkpoint.sqlite import SqliteSaver

    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


def _meta_thread(folder: Path) -> str | None:
    import json

    try:
        return str(json.loads((folder / "meta.json").read_text(encoding="utf-8")).get("thread", "trial"))
    except (OSError, ValueError, AttributeError):
        return None


def log_lengths(trial: Path) -> dict[str, int]:
    """Return the byte length of each log of a trial folder."""
    return {p.name: p.stat().st_size for p in sorted(trial.glob("*.jsonl"))}


class Checkpointer:
    """Save a trial's checkpoints: one SQLite database kept open, the latest checkpoint kept in it."""

    def __init__(self, trial: Path) -> None:
        self.folder = trial / FOLDER
        self._saver: Any = None
        self._thread: str | None = None  # the thread of the checkpoint meta.json names

    def save(self, checkpoint: Checkpoint) -> None:
        """Write a checkpoint: the graph state first, then meta.json (which makes it count), then drop the
        previous one. Killed at any point, the folder holds a whole checkpoint: this one or the last."""
        from langgraph.checkpoint.base import empty_checkpoint

        from doomagent.rundir.summary import write_json

        if self._saver is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._saver = _saver(self.folder / "graph.sqlite")
            self._thread = _meta_thread(self.folder)  # a resumed trial's checkpoint, replaced by this one
        saved = empty_checkpoint()
        saved["channel_values"] = checkpoint.state
        thread = f"decision-{checkpoint.decision}"
        try:
            stored = self._saver.put(_config(thread), saved, {"source": "update", "step": checkpoint.decision}, {})
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"the graph state cannot be checkpointed: {exc}",
                hint="keep state values JSON-like (numbers, strings, lists, dicts, pydantic models), "
                "or turn checkpoints off with checkpoint_every: null",
            ) from exc
        checkpoint_id = stored["configurable"]["checkpoint_id"]
        meta = {
            "version": _VERSION,
            "thread": thread,
            "checkpoint_id": checkpoint_id,
            "decision": checkpoint.decision,
            "frame": checkpoint.frame,
            "seed": checkpoint.seed,
            "position": list(checkpoint.position),
            "health": checkpoint.health,
            "offsets": checkpoint.offsets,
            "usage": checkpoint.usage,
            "path_length": checkpoint.path_length,
            "models": checkpoint.models,
            "resumes": checkpoint.resumes,
        }
        write_json(self.folder / "meta.json", meta)
        if self._thread is not None and self._thread != thread:  # only the one meta.json names is needed now
            self._saver.delete_thread(self._thread)
        self._thread = thread

    def close(self) -> None:
        """Close the database."""
        if self._saver is not None:
            self._saver.conn.close()
            self._saver = None


def load_checkpoint(trial: Path, state_class: type | None = None) -> Checkpoint | None:
    """Return the trial's checkpoint, or None if it has none (or only a torn one)."""
    import json

    if not has_checkpoint(trial):
        return None
    folder = trial / FOLDER
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if meta.get("version") != _VERSION:
        return None
    for name, length in meta["offsets"].items():
        log = trial / name
        if not log.is_file() or log.stat().st_size < length:
            return None  # a log lost lines the checkpoint counts on
    saver = _saver(folder / "graph.sqlite")
    try:
        # 0.5's checkpoints kept every decision in one thread, `trial`
        found = saver.get_tuple(_config(str(meta.get("thread", "trial")), meta.get("checkpoint_id")))
    except sqlite3.DatabaseError:
        found = None
    finally:
        saver.conn.close()
    if found is None or found.metadata.get("step") != meta["decision"]:
        return None  # the state meta.json names is not there: not a whole checkpoint
    state = dict(found.checkpoint["channel_values"])
    _restore_tuples(state, state_class)
    return Checkpoint(
        decision=int(meta["decision"]),
        frame=int(meta["frame"]),
        seed=int(meta["seed"]),
        position=(float(meta["position"][0]), float(meta["position"][1])),
        health=int(meta["health"]),
        offsets={str(k): int(v) for k, v in meta["offsets"].items()},
        usage=dict(meta["usage"]),
        path_length=float(meta["path_length"]),
        models=dict(meta.get("models") or {}),
        state=state,
        resumes=int(meta.get("resumes", 0)),
    )


def _restore_tuples(state: dict[str, Any], state_class: type | None) -> None:
    # The serializer stores tuples as lists; give keys declared as tuples their type back, so prompts
    # that print them read the same after a resume.
    if state_class is None:
        return
    with contextlib.suppress(Exception):
        hints = typing.get_type_hints(state_class)
        for key, hint in hints.items():
            if typing.get_origin(hint) is tuple and isinstance(state.get(key), list):
                state[key] = tuple(state[key])


def truncate_logs(trial: Path, offsets: dict[str, int]) -> None:
    """Cut each log back to its length at the checkpoint; logs begun after it are removed."""
    for path in trial.glob("*.jsonl"):
        length = offsets.get(path.name)
        if length is None:
            path.unlink()
            continue
        with path.open("r+b") as handle:
            handle.truncate(length)


def clear_checkpoint(trial: Path) -> None:
    """Remove a finished trial's checkpoint."""
    shutil.rmtree(trial / FOLDER, ignore_errors=True)


def save_trial(
    checkpointer: Checkpointer,
    out: Path,
    state: dict[str, Any],
    ctx: RunContext,
    models: Mapping[str, Any],
    seed: int,
    path_length: float,
    resumes: int,
) -> None:
    """Save a playing trial's checkpoint after a decision: its graph state and what the next decision needs."""
    obs = ctx.observation
    assert obs is not None
    model_states = {}
    for role, model in models.items():
        if isinstance(model, Stateful):
            model_states[role] = model.checkpoint_state()
    checkpointer.save(
        Checkpoint(
            decision=state["decision"],
            frame=ctx.env.frame,
            seed=seed,
            position=(obs.position[0], obs.position[1]),
            health=obs.hud.health,
            offsets=log_lengths(out),
            usage=ctx.usage.as_dict(),
            path_length=path_length,
            models=model_states,
            state=state,
            resumes=resumes,
        ),
    )


def replay_to(
    env: DoomEnv,
    log: RunLog,
    saved: Checkpoint,
    out: Path,
    obs: Observation,
    seen: Callable[[Observation, str], None] | None = None,
) -> Observation:
    """Play the logged decisions' inputs into a freshly reset engine, up to the checkpoint; check it is there.
    `seen` gets each replayed decision's screen and key (image history)."""
    steps = read_jsonl(out / rundir.STEPS)
    if len(steps) != saved.decision:
        raise EngineError(
            f"{out}: the checkpoint counts {saved.decision} decisions but steps.jsonl holds {len(steps)}",
            hint="the trial folder was changed by hand; delete it to play the trial from the start",
        )
    for step in steps:
        before = obs
        obs = env.step(step["action"], lag=int(step.get("lag", 0)))[0]
        if seen is not None:
            seen(before, step["action"])
    log.steps.extend(steps)
    log.calls.extend(read_jsonl(out / rundir.CALLS))
    where = (obs.position[0], obs.position[1])
    if env.frame != saved.frame or where != saved.position or obs.hud.health != saved.health:
        raise EngineError(
            f"{out}: replaying the logged decisions reached frame {env.frame} at {where}, not the checkpoint's "
            f"frame {saved.frame} at {saved.position}",
            hint="the engine, WAD or environment settings changed since the trial began; delete the folder to "
            "play the trial from the start",
        )
    return obs
