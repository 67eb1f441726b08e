"""Run trials of a recipe: the graph over a real DoomEnv, logs written as they happen, a summary at the end."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doomagent.env import DoomEnv
from doomagent.episode import write_json
from doomagent.graph.builder import GraphBuilder, recursion_limit
from doomagent.graph.context import RunContext
from doomagent.graph.state import DoomState, merge_update
from doomagent.providers import make_model
from doomagent.providers.base import Model
from doomagent.recipes import Recipe
from doomagent.runlog import RunLog

ROLE_NAMES = ("vision", "planner", "experts", "agent")


@dataclass(frozen=True)
class Progress:
    """One decision, as streamed to a progress display."""

    trial: int
    frame: int
    max_frames: int | None
    room: str | None
    health: int
    action: str
    reason: str
    calls: int
    tokens: int
    cost: float


@dataclass
class TrialResult:
    """How a trial ended, with its totals."""

    trial: int
    outcome: str
    frames: int
    decisions: int
    waits: int
    rooms_entered: list[tuple[int, str]]
    room_frames: dict[str, int]
    usage: dict[str, Any] = field(default_factory=dict)
    folder: Path | None = None
    seed: int = 0
    recipe: str = ""
    model: str = ""
    final_position: tuple[float, float] = (0.0, 0.0)
    path_length: float = 0.0
    env: dict[str, Any] = field(default_factory=dict)
    audit: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Return JSON-ready data."""
        totals = {
            k: sum(v.get(k, 0) for v in self.usage.values())
            for k in ("calls", "errors", "input_tokens", "output_tokens", "cost")
        }
        return {
            "trial": self.trial,
            "recipe": self.recipe,
            "model": self.model,
            "seed": self.seed,
            "outcome": self.outcome,
            "frames": self.frames,
            "decisions": self.decisions,
            "waits": self.waits,
            "rooms_entered": [{"frame": f, "room": r} for f, r in self.rooms_entered],
            "room_frames": self.room_frames,
            "final_position": [round(v, 2) for v in self.final_position],
            "path_length": round(self.path_length, 2),
            "usage": self.usage,
            "totals": totals,
            "env": self.env,
            "vision_audit": {
                **self.audit,
                "hallucination_rate": (
                    self.audit.get("hallucinated", 0) / self.audit["calls"] if self.audit.get("calls") else None
                ),
            },
        }


def _over_budget(recipe: Recipe, usage: dict[str, Any]) -> bool:
    budget = recipe.budget
    calls = sum(u.get("calls", 0) for u in usage.values())
    cost = sum(u.get("cost", 0.0) for u in usage.values())
    return (budget.max_calls is not None and calls >= budget.max_calls) or (
        budget.max_cost is not None and cost >= budget.max_cost
    )


def _roles(recipe: Recipe) -> dict[str, Any]:
    if recipe.roles is None:
        return {}
    skip = {"vision"} if recipe.perception == "engine" else set()
    return {r: getattr(recipe.roles, r) for r in ROLE_NAMES if r not in skip and getattr(recipe.roles, r) is not None}


def check_models(recipe: Recipe) -> None:
    """Raise a typed error now for a model that cannot be used (missing key, missing local package)."""
    from doomagent.providers.local import check_local, is_local

    for settings in _roles(recipe).values():
        if is_local(settings.model):
            check_local(settings.model.split("/", 1)[1])
        else:
            make_model(settings)


@contextmanager
def serving_local_models(recipe: Recipe) -> Iterator[Recipe]:
    """Start an embedded llama.cpp server per local model the recipe names; yield the recipe pointed at them."""
    from doomagent.providers.local import PREFIX, local_names, server_for

    roles = _roles(recipe)
    names = local_names(list(roles.values()))
    if not names:
        yield recipe
        return
    servers = {name: server_for(name) for name in names}
    try:
        for server in servers.values():
            server.start()
        data = recipe.model_dump()
        for role, settings in roles.items():
            if settings.model.startswith(PREFIX):
                server = servers[settings.model[len(PREFIX) :]]
                slot = data["roles"][role]
                slot.update(model=f"openai/{server.alias}", api_base=server.api_base)
                if slot.get("structured") == "auto":
                    slot["structured"] = "grammar"  # llama.cpp enforces the answer's form (a schema for plans)
        yield Recipe.model_validate(data)
    finally:
        for server in servers.values():
            server.stop()


def build_models(recipe: Recipe) -> dict[str, Model]:
    """Return one model per role the recipe plays."""
    return {role: make_model(settings) for role, settings in _roles(recipe).items()}


def run_trial(recipe: Recipe, *, models: dict[str, Model] | None = None, **kwargs: Any) -> TrialResult:
    """Play one trial; with `out`, write steps.jsonl, calls.jsonl, prompts/, episode.lmp and summary.json.

    Roles that name an embedded local model (`local/smollm2`) get a llama.cpp server on 127.0.0.1 for
    the trial, stopped when it ends. Keyword arguments: trial, seed, out, builder, recipe_dir,
    on_progress, full_prompts.
    """
    if models is not None:
        return _play(recipe, models=models, **kwargs)
    with serving_local_models(recipe) as served:
        return _play(served, models=build_models(served), **kwargs)


def _play(
    recipe: Recipe,
    *,
    trial: int = 0,
    seed: int | None = None,
    out: Path | None = None,
    models: dict[str, Model] | None = None,
    builder: GraphBuilder | None = None,
    recipe_dir: Path | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    full_prompts: bool = False,
) -> TrialResult:
    models = models if models is not None else build_models(recipe)
    builder = builder or GraphBuilder.from_recipe(recipe)
    graph = builder.compile()
    env = DoomEnv(recipe.env)
    log = RunLog(out, full_prompts=full_prompts)
    ctx = RunContext(
        env=env,
        recipe=recipe,
        models=models,
        log=log,
        walkthrough=recipe.walkthrough_text(recipe_dir),
        allowed=recipe.allowed_actions,
        prompts_dir=(recipe_dir / recipe.prompts_dir) if recipe.prompts_dir and recipe_dir else recipe.prompts_dir,
    )
    seed = trial if seed is None else seed
    obs, _info = env.reset(seed=seed, options={"record": out / "episode.lmp"} if out is not None else None)
    path_length = 0.0
    ctx.observation = obs
    state: DoomState = {
        "frame": 0,
        "decision": 0,
        "room": obs.room,
        "health": obs.hud.health,
        "position": obs.position,
        "angle": obs.angle,
        "outcome": None,
        "done": False,
        "waits": 0,
        "history": [],
        "usage": {},
        "audit": {},
        "plan_frame": None,
        "experts_frame": None,
    }
    max_frames = recipe.env.max_frames or 100_000
    config = {"recursion_limit": recursion_limit(max_frames, recipe.env.decision_frames, len(builder.steps))}
    outcome = "interrupted"
    try:
        for chunk in graph.stream(state, config=config, context=ctx, stream_mode="updates"):
            for node, update in chunk.items():
                if update:
                    before = state.get("position")
                    merge_update(state, update)
                    if node == "act" and before is not None:
                        path_length += math.dist(before[:2], state["position"][:2])
                if node == "act" and not state.get("done") and _over_budget(recipe, state.get("usage", {})):
                    outcome = "budget"
                    break
                if node == "act" and on_progress is not None:
                    usage = state.get("usage", {})
                    on_progress(
                        Progress(
                            trial,
                            state["frame"],
                            recipe.env.max_frames,
                            state.get("room"),
                            state.get("health", 0),
                            state["action"],
                            state.get("reason", ""),
                            sum(u["calls"] for u in usage.values()),
                            sum(u["input_tokens"] + u["output_tokens"] for u in usage.values()),
                            sum(u["cost"] for u in usage.values()),
                        )
                    )
            if outcome == "budget":
                break
        if outcome != "budget":
            outcome = state.get("outcome") or "interrupted"
    except KeyboardInterrupt:
        outcome = "interrupted"
        raise
    finally:
        result = TrialResult(
            trial,
            outcome,
            env.frame,
            state.get("decision", 0),
            state.get("waits", 0),
            list(env.tracker.entries),
            dict(env.tracker.frames),
            state.get("usage", {}),
            out,
            seed=seed,
            recipe=recipe.name,
            model=recipe.agent_model,
            final_position=tuple(state.get("position", (0.0, 0.0))[:2]),  # type: ignore[arg-type]
            path_length=path_length,
            env=recipe.env.model_dump(mode="json"),
            audit=dict(state.get("audit", {})),
        )
        env.close()  # finishes the demo file
        log.close()
        if out is not None:
            write_json(out / "summary.json", result.as_dict())
    return result


async def arun_trial(recipe: Recipe, **kwargs: Any) -> TrialResult:
    """Play one trial from async code, in a worker thread (see run_trial)."""
    return await asyncio.to_thread(run_trial, recipe, **kwargs)


def write_recipe(recipe: Recipe, out: Path) -> None:
    """Write the resolved recipe to the run folder (it holds key variable names, never keys)."""
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "recipe.json", recipe.public_dict())


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Return the records of a JSONL log."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
