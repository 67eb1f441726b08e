"""Play one eval trial in a worker (a local process or a Ray task): the same code on every backend."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from doomagent.eval.jobs import Event, Job
from doomagent.providers.limits import Limits
from doomagent.recipes import Recipe

STEP_EVERY = 20  # frames between the step events a trial sends


def play_job(
    job: Job,
    *,
    folder: Path,
    emit: Callable[[Event], None],
    limits: Limits | None = None,
    recipe_dir: Path | None = None,
    on_decision: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """Play (or resume from its checkpoint) one trial into `folder`; return its summary."""
    from doomagent.graph import run_trial

    recipe = Recipe.model_validate(job.recipe)
    emit(Event("start", job.group, job.trial, 0, recipe.env.max_frames))

    def progress(p: Any) -> None:
        if on_decision is not None:
            on_decision(p)
        if p.frame % STEP_EVERY == 0:
            waits = p.usage.totals.rate_waits
            info = f"{p.room or '-'} hp {p.health} {p.action}" + (f" ({waits} rate waits)" if waits else "")
            emit(Event("step", job.group, job.trial, p.frame, recipe.env.max_frames, info))

    result = run_trial(
        recipe,
        trial=job.trial,
        seed=job.seed,
        out=folder,
        recipe_dir=recipe_dir if recipe_dir is not None else (Path(job.recipe_dir) if job.recipe_dir else None),
        on_progress=progress,
        resume=True,
        limits=limits,
    )
    emit(Event("end", job.group, job.trial, result.frames, recipe.env.max_frames, result.outcome))
    return result.as_dict()
