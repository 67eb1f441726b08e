"""Plan an eval's trials and play them on a backend (local processes or Ray), resumably: finished trials are
kept, cut-off trials go on from their last checkpoint, and shared limits hold across all workers."""

from __future__ import annotations

import collections
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from doomagent.errors import ConfigError
from doomagent.eval.jobs import (
    MAX_LOST,
    REPLAYED_ERRORS,
    Backend,
    BackendName,
    EvalLimits,
    EvalResult,
    Event,
    Finished,
    Job,
)
from doomagent.providers.limits import RateLimit
from doomagent.recipes import Recipe
from doomagent.rundir.plan import claim_folder, group_name, unfinished_trials


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


def rate_limits_of(recipes: list[Recipe], extra: dict[str, RateLimit] | None = None) -> dict[str, RateLimit]:
    """Collect the rate limits the recipes' roles declare, by model; `extra` (the command line) wins."""
    found: dict[str, RateLimit] = {}
    for recipe in recipes:
        for _, settings in recipe.roles.items() if recipe.roles is not None else ():
            if settings.rate_limit is not None:
                found.setdefault(settings.model, settings.rate_limit)
    return {**found, **(extra or {})}


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
    if not jobs:
        return EvalResult(summaries=[])
    runner = _backend(backend, workers=workers, address=address, limits=limits)
    scheduler = _Scheduler(runner, workers or runner.capacity, on_event)
    try:
        result = scheduler.run(jobs)
    except KeyboardInterrupt:
        runner.interrupt()
        raise
    finally:
        runner.close()
    if out is not None:
        _record_cut(out, result, limits)
    return result


class _Scheduler:
    """Keep `workers` jobs playing on a backend; play again what a lost worker or a dead engine cut short."""

    def __init__(self, runner: Backend, workers: int, on_event: Callable[[Event], None] | None) -> None:
        self.runner, self.workers, self.on_event = runner, workers, on_event
        self.result = EvalResult(summaries=[])
        self.pending: collections.deque[Job] = collections.deque()
        self.running = 0
        self.engine_retried: set[str] = set()
        self.lost: collections.Counter[str] = collections.Counter()

    def emit(self, event: Event) -> None:
        """Pass a worker's news on."""
        if self.on_event is not None:
            self.on_event(event)

    def run(self, jobs: list[Job]) -> EvalResult:
        """Play every job; return the summaries, the cut and what was spent."""
        runner, result, pending = self.runner, self.result, self.pending
        pending.extend(jobs)
        while pending or self.running:
            spent = runner.limits is not None and runner.limits.exhausted()
            while pending and self.running < self.workers and not spent:
                runner.submit(pending.popleft())
                self.running += 1
            if spent and pending:
                result.cut = True
                result.not_started += len(pending)
                for job in pending:
                    self.emit(Event("cut", job.group, job.trial, info="the eval's budget is spent: not started"))
                pending.clear()
            finished = runner.poll(0.2)
            for event in runner.events():
                self.emit(event)
            for done in finished:
                self.running -= 1
                self._take(done)
        for event in runner.events():
            self.emit(event)
        if runner.limits is not None:
            result.spent = dict(runner.limits.spent())
        return result

    def _take(self, done: Finished) -> None:
        """Keep a finished job's summary, or queue the job again (lost worker; engine or server death once)."""
        job = done.job
        if done.lost is not None:
            self.lost[job.folder] += 1
            if self.lost[job.folder] > MAX_LOST:
                raise _lost_error(job, done.lost)
            self.emit(Event("retry", job.group, job.trial, 0, None, f"its worker was lost ({done.lost})"))
            self.pending.appendleft(job)
            return
        summary = done.summary or {}
        if summary.get("error_kind") in REPLAYED_ERRORS and job.folder not in self.engine_retried:
            self.engine_retried.add(job.folder)
            _clear_unless_checkpointed(Path(job.folder))
            self.emit(Event("retry", job.group, job.trial, 0, None, str(summary.get("error", ""))))
            self.pending.appendleft(job)
            return
        limits = self.runner.limits
        if summary.get("outcome") == "budget" and limits is not None and limits.exhausted():
            self.result.cut = True
        self.result.summaries.append(summary)


def _backend(name: BackendName, *, workers: int | None, address: str | None, limits: EvalLimits) -> Backend:
    if name == "ray":
        from doomagent.eval.ray_backend import RayBackend

        return RayBackend(address=address, limits=limits)
    if name == "local":
        from doomagent.eval.local import LocalBackend

        return LocalBackend(workers=workers or os.cpu_count() or 1, limits=limits)
    raise ConfigError(f"unknown backend {name!r}", hint="use local or ray")


def _clear_unless_checkpointed(folder: Path) -> None:
    from doomagent.rundir.plan import has_checkpoint

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
    from doomagent.rundir.summary import write_json

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
