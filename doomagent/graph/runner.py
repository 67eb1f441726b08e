"""Run trials of a recipe: the graph over a real DoomEnv, logs written as they happen, a summary at the end.

`run_trial` plays a whole trial; `stream_trial` yields each decision as it happens (the nodes that ran,
the action, usage so far, the custom state keys) for callers that drive their own loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doomagent import rundir
from doomagent.env.config import EnvConfig
from doomagent.env.doom_env import DoomEnv
from doomagent.errors import (
    ConfigError,
)
from doomagent.graph._session import SessionOptions, TrialSession
from doomagent.graph.builder import GraphBuilder
from doomagent.providers.base import Model
from doomagent.providers.limits import Limits
from doomagent.providers.resolve import resolve_model
from doomagent.recipes import Recipe
from doomagent.rundir.summary import TrialResult, write_json
from doomagent.rundir.usage import Usage
from doomagent.runtime.context import RunContext


@dataclass(frozen=True)
class Decision:
    """One decision of a trial, as `stream_trial` yields it and `on_progress` receives it."""

    trial: int
    decision: int  # 0-based index of this decision
    frame: int  # the frame after the action
    max_frames: int | None
    room: str | None
    health: int
    action: str
    reason: str
    parse_ok: bool  # False: the answer was unusable and WAIT was played
    nodes: tuple[str, ...]  # the nodes that ran in this decision, in order
    calls: int  # model calls so far, all roles
    tokens: int
    cost: float
    usage: Usage = field(repr=False, default_factory=Usage)  # per role, so far
    state: dict[str, Any] = field(default_factory=dict)  # the graph's custom keys after this decision


@dataclass(frozen=True)
class _Options:
    full_prompts: bool = False
    resume: bool = False
    limits: Limits | None = None
    make_env: Callable[[EnvConfig], DoomEnv] = DoomEnv


def _role_settings(recipe: Recipe, roles: frozenset[str] | None) -> dict[str, Any]:
    """Return the settings of the roles to build: those the graph's nodes call (all the recipe's by default)."""
    if recipe.roles is None:
        if roles:
            raise ConfigError(
                f"the graph calls roles {', '.join(sorted(roles))} but recipe {recipe.name!r} has no roles",
                hint="add a roles: section to the recipe",
            )
        return {}
    if roles is None:
        skip = {"vision"} if recipe.perception == "engine" else set()
        return {name: s for name, s in recipe.roles.items() if name not in skip}
    out = {}
    for name in sorted(roles):
        settings = recipe.roles.get(name)
        if settings is None:
            raise ConfigError(
                f"a node of the graph calls role {name!r}, which recipe {recipe.name!r} does not have",
                hint=f"add roles.{name}: {{model: ...}} to the recipe (or --set {name}.model=...)",
            )
        out[name] = settings
    return out


def build_models(recipe: Recipe, roles: frozenset[str] | None = None) -> dict[str, Model]:
    """Return one model per role to play: `roles` (those a graph calls), or every role of the recipe.

    Local models share one server per model; it starts with the first call or `start()`.
    """
    servers: dict[str, Any] = {}
    return {name: resolve_model(s, servers=servers) for name, s in _role_settings(recipe, roles).items()}


def check_models(recipe: Recipe, roles: frozenset[str] | None = None) -> None:
    """Raise a typed error now for a model that cannot be used (missing key, missing local package), or a map
    that cannot be played (a WAD or map that does not exist, no player start): before any folder is written."""
    build_models(recipe, roles)
    from doomagent.env.geometry import MapGeometry

    _ = MapGeometry.load(recipe.env.map, recipe.env.wad).start


class TrialStream:
    """A trial being played: iterate it for its decisions; `result` holds the summary once it ends.

    Closing it early (or breaking out of the loop) ends the trial as `interrupted`, with its files written.
    """

    def __init__(self, run: Callable[[TrialStream], Iterator[Decision]]) -> None:
        self.result: TrialResult | None = None
        self._it = run(self)

    def __iter__(self) -> Iterator[Decision]:
        return self._it

    def __next__(self) -> Decision:
        return next(self._it)

    def close(self) -> None:
        """Stop the trial now; its files and summary are written."""
        self._it.close()  # type: ignore[attr-defined]

    def __enter__(self) -> TrialStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stream_trial(
    recipe: Recipe,
    *,
    trial: int = 0,
    seed: int | None = None,
    out: str | Path | None = None,
    models: Mapping[str, Model] | None = None,
    builder: GraphBuilder | None = None,
    recipe_dir: str | Path | None = None,
    full_prompts: bool = False,
    resume: bool = False,
    limits: Limits | None = None,
    make_env: Callable[[EnvConfig], DoomEnv] = DoomEnv,
) -> TrialStream:
    """Start a trial and return it as a stream of decisions (see run_trial for the arguments)."""
    builder = builder or GraphBuilder.from_recipe(recipe)
    folder = Path(out) if out is not None else None
    base = Path(recipe_dir) if recipe_dir is not None else None
    if models is None:
        built = build_models(recipe, builder.roles)
    else:
        built = dict(models)
        missing = builder.roles - built.keys()
        if missing:
            raise ConfigError(
                f"no model given for role(s) {', '.join(sorted(missing))} that the graph calls",
                hint="pass models={role: Model, ...} for every role, or leave models out to build them",
            )
    seed = trial if seed is None else seed
    options = _Options(full_prompts=full_prompts, resume=resume, limits=limits, make_env=make_env)

    def run(stream: TrialStream) -> Iterator[Decision]:
        return _play(stream, recipe, builder, built, trial, seed, folder, base, options, own=models is None)

    return TrialStream(run)


def run_trial(
    recipe: Recipe,
    *,
    trial: int = 0,
    seed: int | None = None,
    out: str | Path | None = None,
    models: Mapping[str, Model] | None = None,
    builder: GraphBuilder | None = None,
    recipe_dir: str | Path | None = None,
    on_progress: Callable[[Decision], None] | None = None,
    full_prompts: bool = False,
    resume: bool = False,
    limits: Limits | None = None,
    make_env: Callable[[EnvConfig], DoomEnv] = DoomEnv,
) -> TrialResult:
    """Play one trial and return its summary.

    Args:
        recipe: the resolved recipe (see load_recipe).
        trial: the trial's number (in summaries and progress).
        seed: the engine's seed (default: the trial number).
        out: a folder for steps.jsonl, calls.jsonl, prompts.jsonl, episode.lmp and summary.json (None: memory only).
        models: a Model per role the graph calls; by default they are built from the recipe (only the
            roles the graph's nodes call: a removed node's role needs no model and no key). Roles naming
            `local/<name>` get a llama.cpp server on 127.0.0.1 for the trial.
        builder: the graph to play (default: GraphBuilder.from_recipe(recipe)).
        recipe_dir: the folder the recipe's relative paths (walkthrough, prompts_dir) start from.
        on_progress: called after every decision.
        full_prompts: write prompts inline in calls.jsonl instead of once each in prompts.jsonl.
        resume: go on from the checkpoint in `out` if it holds one (the recipe's `checkpoint_every` sets
            how often a trial saves one); otherwise the trial starts over.
        limits: rate limits and a budget shared with other trials (a `Coordinator`, or the eval's).
        make_env: builds the environment from the recipe's env settings (default DoomEnv, the real engine;
            `FakeEnv` plays the graph without one, for tests of nodes, routers and gates).
    """
    stream = stream_trial(
        recipe,
        trial=trial,
        seed=seed,
        out=out,
        models=models,
        builder=builder,
        recipe_dir=recipe_dir,
        full_prompts=full_prompts,
        resume=resume,
        limits=limits,
        make_env=make_env,
    )
    with stream:
        for decision in stream:
            if on_progress is not None:
                on_progress(decision)
    assert stream.result is not None
    return stream.result


async def arun_trial(recipe: Recipe, **kwargs: Any) -> TrialResult:
    """Play one trial from async code, in a worker thread (same arguments as run_trial)."""
    return await asyncio.to_thread(run_trial, recipe, **kwargs)


def _play(
    stream: TrialStream,
    recipe: Recipe,
    builder: GraphBuilder,
    models: dict[str, Model],
    trial: int,
    seed: int,
    out: Path | None,
    recipe_dir: Path | None,
    options: _Options,
    *,
    own: bool,
) -> Iterator[Decision]:
    graph = builder.compile()  # a graph that does not compile fails before anything starts
    settings = SessionOptions(options.full_prompts, options.resume, options.limits, own, options.make_env)
    session = TrialSession(
        recipe, builder, graph, models, trial=trial, seed=seed, out=out, recipe_dir=recipe_dir, options=settings
    )
    try:
        with session:
            for state in session.decisions():
                assert session.ctx is not None
                yield _decision(trial, recipe, state, session.ctx, builder.custom_keys)
    finally:
        stream.result = session.result


def _decision(trial: int, recipe: Recipe, state: dict[str, Any], ctx: RunContext, custom: tuple[str, ...]) -> Decision:
    usage = ctx.usage
    totals = usage.totals
    steps = ctx.log.steps
    return Decision(
        trial=trial,
        decision=state["decision"] - 1,
        frame=state["frame"],
        max_frames=recipe.env.max_frames,
        room=state.get("room"),
        health=state.get("health", 0),
        action=state.get("action", ""),
        reason=state.get("reason", ""),
        parse_ok=bool(steps[-1]["parse_ok"]) if steps else True,
        nodes=tuple(state.get("trace") or ()),
        calls=totals.calls,
        tokens=totals.tokens,
        cost=totals.cost,
        usage=Usage(roles=dict(usage.roles)),
        state={k: state.get(k) for k in custom},
    )


def write_recipe(recipe: Recipe, out: str | Path) -> None:
    """Write the resolved recipe to the run folder (it holds key variable names, never keys)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / rundir.RECIPE, recipe.public_dict())
