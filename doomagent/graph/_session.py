"""One trial from start to summary: set up (models, walkthrough, engine, logs, context), resume or start, play
the graph decision by decision, then finish (summary, demo, logs, checkpoint, models) whatever happened.

`TrialSession` is a context manager: entering sets the trial up, `decisions()` plays it, leaving ends it. How
the trial ended (`outcome`, `error`, `error_kind`) is decided on leaving, from the exception if one ended it.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from doomagent import rundir
from doomagent.env.config import EnvConfig
from doomagent.env.doom_env import DoomEnv
from doomagent.env.outcome import FINISHED
from doomagent.errors import EngineError, FatalProviderError, ModelServerError, ProviderUnreachableError, RunError
from doomagent.graph.builder import GraphBuilder
from doomagent.graph.checkpoint import (
    Checkpoint,
    Checkpointer,
    clear_checkpoint,
    load_checkpoint,
    replay_to,
    save_trial,
    truncate_logs,
)
from doomagent.graph.live import LiveView
from doomagent.providers.base import Closable, Gated, Model, Startable, Stateful
from doomagent.providers.limits import Limits
from doomagent.recipes import Recipe
from doomagent.rundir.log import RunLog
from doomagent.rundir.summary import TrialResult, write_json
from doomagent.rundir.usage import Usage
from doomagent.runtime.calls import Reachability, RoleGate
from doomagent.runtime.context import RunContext
from doomagent.runtime.state import initial_state, merge_update, state_reducers


class PlayerEnded(BaseException):
    """Raised by a node whose player (an MCP client, a person) ended the game: the trial ends as `ended`."""


# Errors that end a trial with outcome `error` and a summary (the trial failed; the program goes on).
TRIAL_ERRORS = (FatalProviderError, EngineError, ModelServerError, ProviderUnreachableError)


@dataclass
class SessionOptions:
    """How a trial is played beyond its recipe."""

    full_prompts: bool = False
    resume: bool = False
    limits: Limits | None = None
    own_models: bool = True  # close the models' servers at the end (they were built for this trial)
    make_env: Callable[[EnvConfig], DoomEnv] = DoomEnv  # the environment from the recipe's env settings


def over_budget(recipe: Recipe, usage: Usage) -> bool:
    """Return True when the trial has spent its recipe's budget of calls or dollars."""
    budget = recipe.budget
    totals = usage.totals
    return (budget.max_calls is not None and totals.calls >= budget.max_calls) or (
        budget.max_cost is not None and totals.cost >= budget.max_cost
    )


class TrialSession:
    """One trial's resources and record, from setup to summary."""

    def __init__(
        self,
        recipe: Recipe,
        builder: GraphBuilder,
        graph: Any,
        models: dict[str, Model],
        *,
        trial: int,
        seed: int,
        out: Path | None,
        recipe_dir: Path | None,
        options: SessionOptions,
    ) -> None:
        self.recipe, self.builder, self.graph, self.models = recipe, builder, graph, models
        self.trial, self.seed, self.out, self.recipe_dir, self.options = trial, seed, out, recipe_dir, options
        self.started: list[Model] = []
        self.env: DoomEnv | None = None
        self.log: RunLog | None = None
        self.ctx: RunContext | None = None
        self.state: dict[str, Any] = {}
        self.path_length = 0.0
        self.resumes = 0
        self.outcome = "interrupted"
        self.error: str | None = None
        self.error_kind: str | None = None
        self.result: TrialResult | None = None
        self._disk_full = False
        self._closed = False
        every = recipe.checkpoint_every or 0
        self._every = every
        self._checkpointer = Checkpointer(out) if out is not None and every else None

    # -- setup ---------------------------------------------------------------------------------

    def __enter__(self) -> TrialSession:
        try:
            self._setup()
        except BaseException as exc:
            # The trial ends here (an engine that died at reset still gets its summary); nothing is played.
            if not self.__exit__(type(exc), exc, exc.__traceback__):
                raise
        return self

    def _setup(self) -> None:
        recipe, out, options = self.recipe, self.out, self.options
        saved = load_checkpoint(out, self.builder.state) if (options.resume and out is not None) else None
        if saved is None and out is not None:
            clear_checkpoint(out)  # a checkpoint from an earlier start of this trial is not this one's
        self._start_models()
        walkthrough = recipe.walkthrough_text(self.recipe_dir)
        self.env = env = options.make_env(recipe.env)
        if saved is not None and out is not None:
            truncate_logs(out, saved.offsets)
        self.log = log = RunLog(out, full_prompts=options.full_prompts, append=saved is not None)
        if out is not None and walkthrough is not None:
            (out / rundir.WALKTHROUGH).write_text(walkthrough + "\n", encoding="utf-8")  # what the prompts read
        prompts_dir = recipe.prompts_dir
        if prompts_dir is not None and self.recipe_dir is not None:
            prompts_dir = self.recipe_dir / prompts_dir
        self.ctx = ctx = RunContext(
            env=env,
            recipe=recipe,
            models=self.models,
            log=log,
            walkthrough=walkthrough,
            allowed=recipe.allowed_actions,
            prompts_dir=prompts_dir,
            custom_keys=self.builder.custom_keys,
            limits=options.limits,
        )
        if options.limits is not None:
            for role, model in self.models.items():
                if isinstance(model, Gated):
                    model.gate = RoleGate(options.limits, ctx.limit_key(role), ctx.usage)
        obs, _info = env.reset(seed=self.seed, options={"record": out / rundir.DEMO} if out is not None else None)
        if saved is not None and out is not None:
            obs = self._resume(saved, obs)
        else:
            self.state = initial_state(obs)
        ctx.observation = obs
        ctx.decision_started = time.perf_counter()

    def _start_models(self) -> None:
        for model in self.models.values():
            if isinstance(model, Startable):
                model.start()
                self.started.append(model)

    def _resume(self, saved: Checkpoint, obs: Any) -> Any:
        """Replay the logged inputs up to the checkpoint and take its state, usage and models' state."""
        assert self.env is not None and self.log is not None and self.ctx is not None and self.out is not None
        obs = replay_to(self.env, self.log, saved, self.out, obs, self.ctx.remember_screen)
        self.ctx.usage = Usage.from_dict(saved.usage)
        self.ctx.wait_frames = sum(int(step.get("lag", 0)) for step in self.log.steps)
        for role, model_state in saved.models.items():
            model = self.models.get(role)
            if isinstance(model, Stateful):
                model.restore_state(model_state)
        self.path_length, self.resumes = saved.path_length, saved.resumes + 1
        self.state = dict(saved.state)
        return obs

    # -- play ----------------------------------------------------------------------------------

    def decisions(self) -> Iterator[dict[str, Any]]:
        """Play the graph; yield the state after each decision's `act`. Sets `outcome` when the game ends or the
        budget runs out; checkpoints every `checkpoint_every` decisions."""
        if self._closed:
            return
        ctx, recipe, builder, state = self.ctx, self.recipe, self.builder, self.state
        assert ctx is not None
        reducers = state_reducers(builder.state)
        reach = Reachability(recipe.unreachable_after)
        live = LiveView(self.out) if self.out is not None else None
        max_frames = recipe.env.max_frames or 100_000
        config = {"recursion_limit": builder.recursion_limit(max_frames, recipe.env.decision_frames)}
        limits = self.options.limits
        for chunk in self.graph.stream(state, config=config, context=ctx, stream_mode="updates"):
            for node, update in chunk.items():
                before = state.get("position")
                if update:
                    merge_update(state, update, reducers)
                if node != "act":
                    continue
                if before is not None:
                    self.path_length += math.dist(before[:2], state["position"][:2])
                if live is not None:
                    live.update(ctx.observation, state, force=bool(state.get("done")))
                yield state
                calls, ctx.decision_calls = ctx.decision_calls, []
                if state.get("done"):
                    continue
                reach.decision(calls)
                if over_budget(recipe, ctx.usage) or (limits is not None and limits.exhausted()):
                    self.outcome = "budget"
                    return
                if self._checkpointer is not None and self.out is not None and state["decision"] % self._every == 0:
                    save_trial(
                        self._checkpointer, self.out, state, ctx, self.models, self.seed, self.path_length, self.resumes
                    )
        self.outcome = state.get("outcome") or "interrupted"

    # -- finish --------------------------------------------------------------------------------

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: TracebackType | None) -> bool:
        if self._closed:
            return False
        self._closed = True
        suppress = False
        if isinstance(exc, PlayerEnded):
            self.outcome, suppress = "ended", True
        elif isinstance(exc, OSError):
            self._disk_full = True  # the trial's files could not be written: no summary claims it finished
        elif isinstance(exc, TRIAL_ERRORS):
            if self.env is not None:  # before the engine started there is nothing to summarise: re-raise
                self.outcome, self.error, self.error_kind = "error", str(exc), _error_kind(exc)
                suppress = True
        elif isinstance(exc, Exception):  # a node (often a custom one) raised: the trial failed, not interrupted
            self.outcome, self.error, self.error_kind = "error", f"{type(exc).__name__}: {exc}"[:1000], "node"
        self.result = self._summary()
        with contextlib.ExitStack() as cleanup:  # each step runs even if an earlier one raises
            if self.options.own_models:
                for model in self.started:
                    if isinstance(model, Closable):
                        cleanup.callback(model.close)
            cleanup.callback(self._write_summary)
            if self._checkpointer is not None:
                cleanup.callback(self._checkpointer.close)
            if self.log is not None:
                cleanup.callback(self.log.close)
            cleanup.callback(self._close_engine)
        return suppress

    def _summary(self) -> TrialResult | None:
        env, ctx, state, log = self.env, self.ctx, self.state, self.log
        if env is None or ctx is None:
            return None
        return TrialResult(
            trial=self.trial,
            outcome=self.outcome,
            frames=env.frame,
            # an interrupt between the step's log line and the state's update: the log is the record
            decisions=max(state.get("decision", 0), len(log.steps) if log is not None else 0),
            waits=state.get("waits", 0),
            rooms_entered=list(env.tracker.entries),
            room_frames=dict(env.tracker.frames),
            usage=ctx.usage,
            folder=self.out,
            seed=self.seed,
            recipe=self.recipe.name,
            model=self.recipe.agent_model,
            final_position=tuple(state.get("position", (0.0, 0.0))[:2]),
            path_length=self.path_length,
            wait_frames=ctx.wait_frames,
            resumes=self.resumes,
            env=self.recipe.env.model_dump(mode="json"),
            audit=dict(state.get("audit", {})),
            error=self.error,
            error_kind=self.error_kind,
        )

    def _close_engine(self) -> None:
        if self.env is None:
            return
        with contextlib.suppress(EngineError):  # an engine that died cannot be closed cleanly
            self.env.close()  # finishes the demo file
        demo = self.out / rundir.DEMO if self.out is not None else None
        if demo is not None and demo.exists() and demo.stat().st_size == 0:
            demo.unlink()  # a demo the engine never wrote (it died, or the disk is full) is no demo

    def _write_summary(self) -> None:
        out, result = self.out, self.result
        if out is not None and result is not None and not (self._disk_full and self.outcome == "interrupted"):
            write_json(out / rundir.SUMMARY, result.as_dict())
            if self.outcome in FINISHED:
                clear_checkpoint(out)  # a finished trial never resumes


def _error_kind(exc: RunError) -> str:
    """Return the summary's `error_kind` for an error that ended a trial."""
    if isinstance(exc, EngineError):
        return "engine"
    if isinstance(exc, ModelServerError):
        return "model_server"
    return "provider"
