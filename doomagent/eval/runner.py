"""Run many trials of many recipes in worker processes, resumably: finished trials are kept."""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import re
import shutil
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doomagent._proc import die_with_parent
from doomagent.env.outcome import FINISHED
from doomagent.errors import ConfigError
from doomagent.recipes import Recipe

DONE_OUTCOMES = FINISHED


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

    kind: str  # start, step, end, retry (the engine died: the trial plays again)
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
    return summary.get("outcome") in DONE_OUTCOMES


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
    """Return the trial numbers still to play; the folder of an unfinished (killed, interrupted) trial is
    cleared, since it starts over."""
    todo = []
    for i in range(trials):
        trial_dir = folder / f"trial-{i:03d}"
        if is_finished(trial_dir):
            continue
        if trial_dir.exists():
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


_EVENTS: Any = None  # in a worker: the queue back to the eval
_PARENT = 0  # in a worker: the eval's pid


def _init_worker(events: Any, parent: int, environ: dict[str, str]) -> None:
    """Set a worker up: its news queue, death with the fork server (which dies with the eval), and the
    eval's environment (the fork server may have started earlier, before a key variable was set)."""
    global _EVENTS, _PARENT
    die_with_parent()
    os.environ.clear()
    os.environ.update(environ)
    _EVENTS, _PARENT = events, parent


def _play(job: Job) -> dict[str, Any]:
    """Play one trial in a worker process; return its summary."""
    from doomagent.graph import run_trial

    events, parent = _EVENTS, _PARENT
    recipe = Recipe.model_validate(job.recipe)
    events.put(Event("start", job.group, job.trial, 0, recipe.env.max_frames))

    def progress(p: Any) -> None:
        if p.frame % 20 == 0:
            try:
                os.kill(parent, 0)
            except ProcessLookupError:  # the eval was killed: stop rather than write on as an orphan
                os._exit(3)
            info = f"{p.room or '-'} hp {p.health} {p.action}"
            events.put(Event("step", job.group, job.trial, p.frame, recipe.env.max_frames, info))

    result = run_trial(
        recipe,
        trial=job.trial,
        seed=job.seed,
        out=Path(job.folder),
        recipe_dir=Path(job.recipe_dir) if job.recipe_dir else None,
        on_progress=progress,
    )
    events.put(Event("end", job.group, job.trial, result.frames, recipe.env.max_frames, result.outcome))
    return result.as_dict()


def run_jobs(jobs: list[Job], *, workers: int, on_event: Callable[[Event], None] | None = None) -> list[dict[str, Any]]:
    """Play the jobs on `workers` processes; return their summaries as they finish.

    A trial whose engine died is played once more (event kind `retry`); workers, the fork server and
    the engines all stop within moments of the eval's own death, however it dies.
    """
    if not jobs:
        return []
    # A fork server that has imported the heavy modules once: workers start in milliseconds, with no
    # engine or thread state inherited from this process (as plain fork would).
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["doomagent.graph", "doomagent.nodes", "doomagent.env", "vizdoom"])
    events = ctx.Queue()
    results: list[dict[str, Any]] = []
    retried: set[str] = set()
    pool = ProcessPoolExecutor(
        max_workers=max(1, workers),
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(events, os.getpid(), dict(os.environ)),
    )
    try:
        running: dict[Future[dict[str, Any]], Job] = {pool.submit(_play, job): job for job in jobs}
        while running:
            finished, _ = wait(set(running), timeout=0.2, return_when=FIRST_COMPLETED)
            _drain(events, on_event)
            for future in finished:
                job = running.pop(future)
                summary = future.result()
                if summary.get("error_kind") == "engine" and job.folder not in retried:
                    retried.add(job.folder)
                    shutil.rmtree(job.folder, ignore_errors=True)
                    if on_event is not None:
                        on_event(Event("retry", job.group, job.trial, 0, None, str(summary.get("error", ""))))
                    running[pool.submit(_play, job)] = job
                    continue
                results.append(summary)
        _drain(events, on_event)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def _drain(events: Any, on_event: Callable[[Event], None] | None) -> None:
    while True:
        try:
            event = events.get_nowait()
        except (queue.Empty, EOFError, OSError):
            return
        if on_event is not None:
            on_event(event)
