"""Plan an eval's trials and play them on a backend (local processes or Ray), resumably: finished trials are
kept, cut-off trials go on from their last checkpoint, and shared limits hold across all workers."""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from doomagent.env.outcome import FINISHED
from doomagent.errors import ConfigError
from doomagent.limits import Coordinator, Limits, RateLimit
from doomagent.recipes import Recipe


@dataclass(frozen=True)
class Job:
    """One trial to play."""

    group: str  # folder name of the recipe x model
    recipe: dict[str, Any]  # the resolved recipe, as data (pickles across processes)
    recipe_dir: str | None
    folder: str
    trial: int
    seed: int


@dataclass(frozen=True)
class Event:
    """A worker's news: a trial started, made a decision, or ended."""

    kind: str  # start, step, end, retry (the engine or the worker died: the trial plays again), cut
    group: str
    trial: int
    frame: int = 0
    max_frames: int | None = None
    info: str = ""


def group_name(recipe: Recipe) -> str:
    """Return the folder name of a recipe x model: `plan__gpt-4o`."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", recipe.agent_model).strip("-")
    return recipe.name if slug in ("", recipe.strategy) else f"{recipe.name}__{slug}"


def is_finished(folder: Path) -> bool:
    """Return True if a trial folder holds a complete summary."""
    try:
        summary = json.loads((folder / "summary.json").read_text())
    except (OSError, json.JSONDecodeError):
        return False
    return summary.get("outcome") in FINISHED


def claim_folder(folder: Path, recipe: Recipe, *, hint: str) -> None:
    """Write the recipe to `folder`/recipe.json, or check that the recipe already there is the same one."""
    from doomagent.summary import write_json

    data = recipe.public_dict()
    saved = folder / "recipe.json"
    if not saved.exists():
        write_json(saved, data)
    elif json.loads(saved.read_text(encoding="utf-8")) != json.loads(json.dumps(data)):
        raise ConfigError(f"{folder} holds trials of a different {recipe.name} recipe", hint=hint)


def unfinished_trials(folder: Path, trials: int) -> list[int]:
    """Return the trial numbers still to play. An unfinished trial (killed, interrupted) with a checkpoint
    keeps its folder and goes on from it; one without is cleared, since it starts over."""
    from doomagent.graph.checkpoint import has_checkpoint

    todo = []
    for i in range(trials):
        trial_dir = folder / f"trial-{i:03d}"
        if is_finished(trial_dir):
            continue
        if trial_dir.exists() and not has_checkpoint(trial_dir):
            shutil.rmtree(trial_dir)
        todo.append(i)
    return todo


def plan_jobs(recipes: list[tuple[Recipe, Path | None]], *, trials: int, out: Path, seed: int) -> tuple[list[Job], int]:
    """Return the trials still to play (unfinished ones are cleared) and how many are already done."""
    jobs: list[Job] = []
    done = 0
    for recipe, recipe_dir in recipes:
        group = group_name(recipe)
        folder = out / group
        folder.mkdir(parents=True, exist_ok=True)
        claim_folder(folder, recipe, hint="pick another --out, or delete that folder to start over")
        todo = unfinished_trials(folder, trials)
        done += trials - len(todo)
        data = recipe.public_dict()
        base = str(recipe_dir) if recipe_dir else None
        jobs += [Job(group, data, base, str(folder / f"trial-{i:03d}"), i, seed + i) for i in todo]
    return jobs, done


def plan_run(folder: Path, recipe: Recipe, trials: int, *, resume: bool, overwrite: bool) -> list[int]:
    """Return the trial numbers `doomagent run` plays in `folder`, after --resume / --overwrite say what to
    keep of the trials already there."""
    existing = sorted(p for p in folder.glob("trial-*") if p.is_dir())
    if existing and not (resume or overwrite):
        raise ConfigError(
            f"{folder} already holds {len(existing)} trial(s)",
            hint="--resume keeps the finished ones and plays the rest, --overwrite starts over, or give another --out",
        )
    if overwrite:
        for path in existing:
            shutil.rmtree(path)
        (folder / "recipe.json").unlink(missing_ok=True)
    claim_folder(folder, recipe, hint="resume with the same recipe and options, or use --overwrite")
    return unfinished_trials(folder, trials)


BackendName = Literal["local", "ray"]
REPLAYED_ERRORS = ("engine", "model_server")  # a trial that ended so is played once more
MAX_LOST = 3  # times a trial whose worker or node died is played again before the eval gives up


@dataclass(frozen=True)
class EvalLimits:
    """Limits over a whole eval: rate limits per model (shared by every worker) and a budget."""

    rate_limits: dict[str, RateLimit] = field(default_factory=dict)
    max_cost: float | None = None
    max_calls: int | None = None

    @property
    def active(self) -> bool:
        """Return True if there is anything to enforce."""
        return bool(self.rate_limits) or self.max_cost is not None or self.max_calls is not None

    def coordinator(self) -> Coordinator:
        """Return a fresh holder of these limits."""
        return Coordinator(self.rate_limits, max_cost=self.max_cost, max_calls=self.max_calls)


def rate_limits_of(recipes: list[Recipe], extra: dict[str, RateLimit] | None = None) -> dict[str, RateLimit]:
    """Collect the rate limits the recipes' roles declare, by model; `extra` (the command line) wins."""
    found: dict[str, RateLimit] = {}
    for recipe in recipes:
        for _, settings in recipe.roles.items() if recipe.roles is not None else ():
            if settings.rate_limit is not None:
                found.setdefault(settings.model, settings.rate_limit)
    return {**found, **(extra or {})}


@dataclass
class EvalResult:
    """What an eval played: the summaries of its trials, and whether its budget cut it short."""

    summaries: list[dict[str, Any]]
    cut: bool = False  # the eval-wide budget ran out: trials were stopped or never started
    not_started: int = 0
    spent: dict[str, Any] = field(default_factory=dict)


@dataclass
class Finished:
    """A trial a backend reports done: its summary, or why its worker was lost."""

    job: Job
    summary: dict[str, Any] | None
    lost: str | None = None  # the worker or its node died (the trial may play again)


class Backend(Protocol):
    """Where trials play: local processes, or a Ray cluster."""

    limits: Limits | None  # the eval's shared limits, as the driver reaches them
    capacity: int  # trials it can play at once

    def submit(self, job: Job) -> None:
        """Start a trial."""
        ...

    def poll(self, timeout: float) -> list[Finished]:
        """Return the trials that ended within `timeout` seconds."""
        ...

    def events(self) -> list[Event]:
        """Return the workers' news since the last call."""
        ...

    def interrupt(self) -> None:
        """Stop the running trials as Ctrl-C would, giving them a few seconds to write their summaries."""
        ...

    def close(self) -> None:
        """Stop the workers (and anything the backend started)."""
        ...


def run_jobs(
    jobs: list[Job],
    *,
    workers: int | None,
    on_event: Callable[[Event], None] | None = None,
    backend: BackendName = "local",
    address: str | None = None,
    limits: EvalLimits | None = None,
) -> list[dict[str, Any]]:
    """Play the jobs (see run_eval) and return their summaries."""
    return run_eval(jobs, workers=workers, on_event=on_event, backend=backend, address=address, limits=limits).summaries


def run_eval(
    jobs: list[Job],
    *,
    workers: int | None,
    on_event: Callable[[Event], None] | None = None,
    backend: BackendName = "local",
    address: str | None = None,
    limits: EvalLimits | None = None,
    out: Path | None = None,
) -> EvalResult:
    """Play the jobs, at most `workers` at a time, and return what was played.

    Args:
        jobs: the trials (see plan_jobs).
        workers: trials playing at once (None: this machine's CPUs, or the Ray cluster's).
        on_event: called in this process with every worker's news.
        backend: `local` (worker processes on this machine) or `ray` (Ray tasks; see `address`).
        address: the Ray cluster: None starts one on this machine, `auto` joins the local one, or
            `ray://host:10001`.
        limits: rate limits per model and a budget, shared by every worker of the eval.
        out: the eval folder; `eval.json` there records a cut by the budget.

    A trial whose engine or model server died is played once more; one whose worker or node died is played
    again (from its checkpoint) up to MAX_LOST times. Once the budget is spent no trial starts, running ones end with
    outcome `budget`, and the result says the eval was cut.
    """
    limits = limits or EvalLimits()
    result = EvalResult(summaries=[])
    if not jobs:
        return result
    runner = _backend(backend, workers=workers, address=address, limits=limits)
    workers = workers or runner.capacity
    pending = collections.deque(jobs)
    running = 0
    engine_retried: set[str] = set()
    lost: collections.Counter[str] = collections.Counter()

    def emit(event: Event) -> None:
        if on_event is not None:
            on_event(event)

    try:
        while pending or running:
            spent = runner.limits is not None and runner.limits.exhausted()
            while pending and running < workers and not spent:
                runner.submit(pending.popleft())
                running += 1
            if spent and pending:
                result.cut = True
                result.not_started += len(pending)
                for job in pending:
                    emit(Event("cut", job.group, job.trial, info="the eval's budget is spent: not started"))
                pending.clear()
            finished = runner.poll(0.2)
            for event in runner.events():
                emit(event)
            for done in finished:
                running -= 1
                job = done.job
                if done.lost is not None:
                    lost[job.folder] += 1
                    if lost[job.folder] > MAX_LOST:
                        raise _lost_error(job, done.lost)
                    emit(Event("retry", job.group, job.trial, 0, None, f"its worker was lost ({done.lost})"))
                    pending.appendleft(job)
                    continue
                summary = done.summary or {}
                if summary.get("error_kind") in REPLAYED_ERRORS and job.folder not in engine_retried:
                    engine_retried.add(job.folder)
                    _clear_unless_checkpointed(Path(job.folder))
                    emit(Event("retry", job.group, job.trial, 0, None, str(summary.get("error", ""))))
                    pending.appendleft(job)
                    continue
                if summary.get("outcome") == "budget" and runner.limits is not None and runner.limits.exhausted():
                    result.cut = True
                result.summaries.append(summary)
        for event in runner.events():
            emit(event)
        if runner.limits is not None:
            result.spent = dict(runner.limits.spent())
    except KeyboardInterrupt:
        runner.interrupt()
        raise
    finally:
        runner.close()
    if out is not None:
        _record_cut(out, result, limits)
    return result


def _backend(name: BackendName, *, workers: int | None, address: str | None, limits: EvalLimits) -> Backend:
    if name == "ray":
        from doomagent.eval.ray_backend import RayBackend

        return RayBackend(address=address, limits=limits)
    if name == "local":
        from doomagent.eval.local import LocalBackend

        return LocalBackend(workers=workers or os.cpu_count() or 1, limits=limits)
    raise ConfigError(f"unknown backend {name!r}", hint="use local or ray")


def _clear_unless_checkpointed(folder: Path) -> None:
    from doomagent.graph.checkpoint import has_checkpoint

    if not has_checkpoint(folder):
        shutil.rmtree(folder, ignore_errors=True)


def _lost_error(job: Job, why: str) -> Exception:
    from doomagent.errors import RunError

    return RunError(
        f"{job.group} trial {job.trial}: its worker was lost {MAX_LOST + 1} times ({why})",
        hint="check the cluster's nodes; run the same command again to resume",
    )


def _record_cut(out: Path, result: EvalResult, limits: EvalLimits) -> None:
    """Write eval.json: whether the budget cut the eval, what was spent, and the caps."""
    from doomagent.summary import write_json

    path = out / "eval.json"
    before: dict[str, Any] = {}
    if path.exists():
        try:
            before = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            before = {}
    write_json(
        path,
        {
            "cut": bool(result.cut),
            "cut_before": bool(before.get("cut") or before.get("cut_before")),
            "not_started": result.not_started,
            "max_cost": limits.max_cost,
            "max_calls": limits.max_calls,
            "rate_limits": {model: limit.describe() for model, limit in limits.rate_limits.items()},
            "spent": result.spent,
        },
    )
