"""Plan a run folder: which trials of a recipe are done, which to play, and claiming a folder for a recipe.

A trial is finished when its summary says so; an unfinished one with a checkpoint keeps its folder (it goes on
from there), one without is cleared (it starts over).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from doomagent import rundir
from doomagent.env.outcome import FINISHED
from doomagent.errors import ConfigError
from doomagent.recipes import Recipe


def has_checkpoint(trial: Path) -> bool:
    """Return True if a trial folder holds a complete checkpoint."""
    return all((trial / rundir.CHECKPOINT / name).is_file() for name in rundir.CHECKPOINT_FILES)


def group_name(recipe: Recipe) -> str:
    """Return the folder name of a recipe x model: `plan__gpt-4o`."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", recipe.agent_model).strip("-")
    return recipe.name if slug in ("", recipe.strategy) else f"{recipe.name}__{slug}"


def is_finished(folder: Path) -> bool:
    """Return True if a trial folder holds a complete summary."""
    try:
        summary = json.loads((folder / rundir.SUMMARY).read_text())
    except (OSError, json.JSONDecodeError):
        return False
    return summary.get("outcome") in FINISHED


def claim_folder(folder: Path, recipe: Recipe, *, hint: str) -> None:
    """Write the recipe to `folder`/recipe.json, or check that the recipe already there is the same one."""
    from doomagent.rundir.summary import write_json

    data = recipe.public_dict()
    saved = folder / rundir.RECIPE
    if not saved.exists():
        write_json(saved, data)
    elif json.loads(saved.read_text(encoding="utf-8")) != json.loads(json.dumps(data)):
        raise ConfigError(f"{folder} holds trials of a different {recipe.name} recipe", hint=hint)


def unfinished_trials(folder: Path, trials: int) -> list[int]:
    """Return the trial numbers still to play. An unfinished trial (killed, interrupted) with a checkpoint
    keeps its folder and goes on from it; one without is cleared, since it starts over."""
    todo = []
    for i in range(trials):
        trial_dir = folder / f"trial-{i:03d}"
        if is_finished(trial_dir):
            continue
        if trial_dir.exists() and not has_checkpoint(trial_dir):
            shutil.rmtree(trial_dir)
        todo.append(i)
    return todo


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
        (folder / rundir.RECIPE).unlink(missing_ok=True)
    claim_folder(folder, recipe, hint="resume with the same recipe and options, or use --overwrite")
    return unfinished_trials(folder, trials)
