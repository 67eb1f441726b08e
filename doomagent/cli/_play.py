"""`doomagent run`'s trials: played one after another with a progress bar, then their closing lines."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from doomagent.cli._common import _fail, err, out
from doomagent.errors import DoomAgentError

if TYPE_CHECKING:
    from rich.progress import TaskID

    from doomagent.graph.runner import Decision
    from doomagent.recipes import Recipe
    from doomagent.rundir.summary import TrialResult


@dataclass(frozen=True)
class RunPlan:
    """What `doomagent run` plays: a recipe's trials into one folder."""

    recipe: Recipe
    recipe_dir: Path | None
    folder: Path
    trials: int
    seed: int
    full_prompts: bool
    resume: bool
    overwrite: bool


def play_trials(plan: RunPlan, holder: str) -> list[TrialResult]:
    """Play the trials the folder still needs, one after another, with a progress bar; stop at an error."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from doomagent._internal.proc import sigterm_as_interrupt
    from doomagent.graph import run_trial
    from doomagent.rundir.folders import disk_error, exclusive
    from doomagent.rundir.plan import plan_run

    folder = plan.folder
    total = plan.recipe.env.max_frames or 100_000
    columns = [
        TextColumn("trial {task.fields[trial]}"),
        BarColumn(bar_width=16),
        TextColumn("{task.completed:.0f}/{task.total:.0f}"),
        TextColumn("{task.fields[info]}", markup=False),
        TimeElapsedColumn(),
    ]
    results: list[TrialResult] = []
    try:
        with exclusive(folder, holder), sigterm_as_interrupt():
            todo = plan_run(folder, plan.recipe, plan.trials, resume=plan.resume, overwrite=plan.overwrite)
            with Progress(*columns, console=out, transient=False) as bar:
                for i in todo:
                    task = bar.add_task("", total=total, trial=i, info="")

                    def show(p: Decision, task: TaskID = task) -> None:
                        info = f"{p.room or '-'} hp {p.health} {p.action:<12} {p.calls} calls {p.tokens} tok"
                        bar.update(task, completed=p.frame, info=f"{info} ${p.cost:.3f}")

                    result = run_trial(
                        plan.recipe,
                        trial=i,
                        seed=plan.seed + i,
                        out=folder / f"trial-{i:03d}",
                        recipe_dir=plan.recipe_dir,
                        on_progress=show,
                        full_prompts=plan.full_prompts,
                        resume=True,  # a cut trial that plan_run kept goes on from its checkpoint
                    )
                    results.append(result)
                    if result.outcome == "error":
                        break
    except KeyboardInterrupt:
        err.print(f"stopped: everything up to now is in {folder}; --resume plays the rest")
        raise typer.Exit(130) from None
    except DoomAgentError as exc:
        _fail(exc)
    except OSError as exc:
        _fail(disk_error(exc))
    return results


def close_run(results: list[TrialResult], folder: Path) -> None:
    """Print each trial's closing lines; exit 1 when a trial failed or a role never got an answer."""
    from doomagent.cli._closing import never_answered, trial_lines

    for r in results:
        for line in trial_lines(r):
            out.print(line)
    out.print(f"wrote {folder}")
    failed = [r for r in results if r.outcome == "error"]
    if failed:
        err.print(Text.assemble(("error: ", "bold red"), failed[0].error or "the provider failed"))
        raise typer.Exit(1)
    silent = [(r, roles) for r in results if (roles := never_answered(r.usage))]
    if silent:
        r, roles = silent[0]
        err.print(
            Text.assemble(
                ("error: ", "bold red"),
                f"no call of role {', '.join(roles)} got an answer in trial {r.trial} "
                f"({r.usage.roles[roles[0]].calls} calls, all failed)",
            )
        )
        err.print(Text.assemble(("hint: ", "yellow"), f"see {folder}/trial-*/calls.jsonl; `doomagent doctor`"))
        raise typer.Exit(1)
