"""`doomagent eval`: many trials of many recipes, on local workers or a Ray cluster, resumably."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from doomagent.cli._common import AllowOutsideOption, _fail, app, err, out
from doomagent.errors import ConfigError, DoomAgentError

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from doomagent.eval.jobs import EvalLimits, EvalResult, Event, Job
    from doomagent.providers.limits import RateLimit
    from doomagent.recipes import Recipe


WorkersOption = Annotated[
    int | None, typer.Option(min=1, help="trials at once (default: CPU count here, the cluster's CPUs on Ray)")
]
AddressOption = Annotated[
    str | None, typer.Option(help="Ray cluster: auto (the one running here) or ray://host:10001; none: start one")
]
RateLimitOption = Annotated[
    list[str] | None,
    typer.Option("--rate-limit", help="MODEL=LIMIT shared by all workers, e.g. gpt-4o=500/min,30000tok/min"),
]
MapsOption = Annotated[
    str | None,
    typer.Option("--maps", help="play every recipe on each of these maps: E1M1-E1M9, MAP01,MAP03 (a suite)"),
]
SuiteOption = Annotated[
    str | None,
    typer.Option(
        "--suite", help="play every recipe on a suite's maps: freedoom1-e1, freedoom1, freedoom2 or a YAML file"
    ),
]


@app.command("eval")
def eval_cmd(
    recipes: Annotated[list[str], typer.Argument(help="recipes: shipped names or YAML paths")],
    trials: Annotated[int, typer.Option(min=1, help="trials per recipe (the paper ran 10)")] = 10,
    workers: WorkersOption = None,
    out_dir: Annotated[Path, typer.Option("--out", help="eval folder; rerunning resumes it")] = Path("runs/eval"),
    model: Annotated[str | None, typer.Option(help="LiteLLM model for planner, experts and agent")] = None,
    vision_model: Annotated[str | None, typer.Option("--vision-model", help="LiteLLM model for vision")] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="KEY=VALUE override for every recipe")] = None,
    max_frames: Annotated[int | None, typer.Option("--max-frames", min=2, help="frame cap per trial")] = None,
    seed: Annotated[int, typer.Option(help="seed of trial 0; trial i uses seed + i")] = 0,
    backend: Annotated[str, typer.Option(help="local (worker processes) or ray (a Ray cluster)")] = "local",
    address: AddressOption = None,
    rate_limits: RateLimitOption = None,
    max_cost: Annotated[float | None, typer.Option("--max-cost", min=0.0, help="US dollars for the whole eval")] = None,
    max_calls: Annotated[int | None, typer.Option("--max-calls", min=1, help="model calls for the whole eval")] = None,
    maps: MapsOption = None,
    suite: SuiteOption = None,
    allow_outside_files: AllowOutsideOption = False,
) -> None:
    """Play trials of recipes in parallel (local workers or Ray); rerun the same command to resume."""
    from doomagent._internal.proc import sigterm_as_interrupt
    from doomagent.eval.jobs import EvalLimits
    from doomagent.eval.runner import rate_limits_of
    from doomagent.rundir.folders import disk_error, exclusive

    try:
        maps, sets = _check_eval_options(backend, address, suite, maps, sets or [])
        loading = _Loading(sets, model, vision_model, max_frames, allow_outside_files)
        batches = _load_batches(recipes, loading, maps, out_dir)
        limits = EvalLimits(
            rate_limits=rate_limits_of(
                [r for batch in batches.values() for r, _ in batch], _read_rate_limits(rate_limits or [])
            ),
            max_cost=max_cost or None,
            max_calls=max_calls,
        )
    except DoomAgentError as exc:
        _fail(exc)
    try:
        with exclusive(out_dir, "doomagent eval"), sigterm_as_interrupt():
            result = _eval_jobs(batches, trials, out_dir, seed, workers, backend, address, limits)
    except KeyboardInterrupt:
        err.print("stopped: finished trials are kept, cut ones go on from their checkpoints; run the same command")
        raise typer.Exit(130) from None
    except DoomAgentError as exc:
        _fail(exc)
    except OSError as exc:
        _fail(disk_error(exc))
    _close_eval(result, by_map=maps is not None, out_dir=out_dir)


def _check_eval_options(
    backend: str, address: str | None, suite: str | None, maps: str | None, sets: list[str]
) -> tuple[str | None, list[str]]:
    """Refuse options that do not go together; return the maps to play and the overrides (a suite's WAD added)."""
    if backend not in ("local", "ray"):
        raise ConfigError(f"--backend {backend!r} is not local or ray")
    if address is not None and backend != "ray":
        raise ConfigError("--address is for the ray backend", hint="add --backend ray")
    if suite is None:
        return maps, sets
    if maps is not None:
        raise ConfigError("give --suite or --maps, not both", hint="a suite names its maps itself")
    from doomagent.eval.suites import load_suite

    chosen, suite_dir = load_suite(suite)
    return chosen.maps, [*sets, f"env.wad={chosen.wad_path(suite_dir)}"]


@dataclass(frozen=True)
class _Loading:
    """How each recipe named on the command line is loaded."""

    sets: list[str]
    model: str | None
    vision_model: str | None
    max_frames: int | None
    allow_outside_files: bool


def _load_batches(
    recipes: list[str], how: _Loading, maps: str | None, out_dir: Path
) -> dict[Path, list[tuple[Recipe, Path | None]]]:
    """Load every recipe on every map (checked: walkthrough, models) into batches by output folder."""
    from doomagent.graph.runner import check_models
    from doomagent.recipes import load_recipe

    batches: dict[Path, list[tuple[Recipe, Path | None]]] = {}
    for name in recipes:
        recipe, folder = load_recipe(
            name,
            overrides=how.sets,
            model=how.model,
            vision_model=how.vision_model,
            max_frames=how.max_frames,
            allow_outside_files=how.allow_outside_files,
        )
        for on_map, map_out in _on_maps(recipe, maps, out_dir):
            on_map.walkthrough_text(folder)  # a walkthrough written for another map is refused here
            check_models(on_map)  # a missing key or package fails here, before any worker starts
            batches.setdefault(map_out, []).append((on_map, folder))
    return batches


def _close_eval(result: EvalResult, *, by_map: bool, out_dir: Path) -> None:
    """Print each group's closing lines and what was spent; exit 1 when a group failed."""
    from doomagent.cli._closing import group_lines, never_answered
    from doomagent.rundir.summary import TrialResult

    failed: dict[str, str] = {}
    groups: dict[str, list[TrialResult]] = {}
    for summary in result.summaries:
        group = f"{summary.get('recipe')} / {summary.get('model')}"
        if by_map:
            group += f" / {(summary.get('env') or {}).get('map')}"
        groups.setdefault(group, []).append(TrialResult.model_validate(summary))
        if summary.get("outcome") == "error":
            failed.setdefault(group, str(summary.get("error") or "the provider failed"))
    for group, played in groups.items():
        for line in group_lines(group, played):
            out.print(line)
        silent = sorted({role for t in played for role in never_answered(t.usage)})
        if group not in failed and silent:
            failed[group] = f"no call of role {', '.join(silent)} got an answer in a whole trial"
    for group, why in failed.items():
        err.print(Text.assemble(("failed: ", "bold red"), f"{group}: {why}"))
    if failed:
        err.print("fix the cause, then run the same command: finished trials are kept, failed ones play again")
        raise typer.Exit(1)
    if result.spent:
        spent = result.spent
        out.print(
            f"spent ${spent.get('cost', 0):.4f} in {spent.get('calls', 0)} calls; "
            f"{spent.get('rate_limit_waits', 0)} requests held {spent.get('rate_limit_wait_s', 0):.1f} s by rate limits"
        )
    if result.cut:
        out.print(f"cut: the eval's budget is spent; {result.not_started} trials not started (see {out_dir}/eval.json)")
    out.print(f"done: {out_dir}; next: doomagent report {out_dir}")


class _EvalDisplay:
    """Show an eval's events: a bar per running trial under the overall one, a line per end, retry and cut."""

    def __init__(self, bar: Progress, overall: TaskID) -> None:
        self.bar, self.overall = bar, overall
        self.running: dict[tuple[str, int], TaskID] = {}

    def __call__(self, e: Event) -> None:
        bar, key = self.bar, (e.group, e.trial)
        if e.kind == "start":
            if key not in self.running:
                self.running[key] = bar.add_task(f"{e.group} #{e.trial}", total=e.max_frames or 100_000, info="")
        elif e.kind == "step" and key in self.running:
            bar.update(self.running[key], completed=e.frame, info=e.info)
        elif e.kind in ("end", "retry"):
            if key in self.running:
                bar.remove_task(self.running.pop(key))
            if e.kind == "end":
                bar.advance(self.overall)
                bar.console.print(f"{e.group} #{e.trial}: {e.info} after {e.frame} frames")
            else:
                bar.console.print(f"{e.group} #{e.trial}: {e.info}; playing it again")
        elif e.kind == "cut":
            bar.console.print(f"{e.group} #{e.trial}: {e.info}")


def _read_rate_limits(specs: list[str]) -> dict[str, RateLimit]:
    """Read `MODEL=LIMIT` options."""
    from doomagent.providers.limits import RateLimit

    found: dict[str, RateLimit] = {}
    for spec in specs:
        model, sep, limit = spec.rpartition("=")
        if not sep or not model or not limit:
            raise ConfigError(f"--rate-limit {spec!r} is not MODEL=LIMIT", hint="e.g. --rate-limit gpt-4o=500/min")
        found[model] = RateLimit.parse(limit)
    return found


def _on_maps(recipe: Recipe, maps: str | None, out_dir: Path) -> list[tuple[Recipe, Path]]:
    """Return the recipe on each map `maps` names, with the folder its trials go to (`--out` without --maps,
    `--out/<wad>_<map>` with it)."""
    if maps is None:
        return [(recipe, out_dir)]
    from doomagent.cli.maps import select_maps
    from doomagent.env.geometry import resolve_wad
    from doomagent.env.wad import Wad
    from doomagent.eval.report import map_key

    names = select_maps(maps, Wad(resolve_wad(recipe.env.wad)).map_names)
    played = [recipe.model_copy(update={"env": recipe.env.model_copy(update={"map": name})}) for name in names]
    return [(r, out_dir / map_key(r.env)) for r in played]


def _eval_jobs(
    batches: dict[Path, list[tuple[Recipe, Path | None]]],
    trials: int,
    out_dir: Path,
    seed: int,
    workers: int | None,
    backend: str,
    address: str | None,
    limits: EvalLimits,
) -> EvalResult:
    """Plan and play an eval's trials with a live display; return what was played."""
    import os

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from doomagent.eval import plan_jobs
    from doomagent.eval.runner import run_eval

    jobs: list[Job] = []
    done = 0
    for batch_out, batch in batches.items():
        planned, finished = plan_jobs(batch, trials=trials, out=batch_out, seed=seed)
        jobs += planned
        done += finished
    total = len(jobs) + done
    where = "on Ray" + (f" at {address}" if address else "") if backend == "ray" else "on local workers"
    out.print(f"{total} trials: {done} already finished, {len(jobs)} to play in {out_dir} {where}")
    for model, limit in limits.rate_limits.items():
        out.print(f"rate limit for {model}: {limit.describe()} across all workers")
    columns = [
        TextColumn("{task.description}", markup=False),
        BarColumn(bar_width=20),
        TextColumn("{task.completed:.0f}/{task.total:.0f}"),
        TextColumn("{task.fields[info]}", markup=False),
        TimeElapsedColumn(),
    ]
    with Progress(*columns, console=out) as bar:
        on_event = _EvalDisplay(bar, bar.add_task("all trials", total=total, completed=done, info=""))
        if workers is None and backend != "ray":  # Ray: the cluster's CPUs
            workers = min(len(jobs) or 1, os.cpu_count() or 1)
        return run_eval(
            jobs,
            workers=workers,
            on_event=on_event,
            backend="ray" if backend == "ray" else "local",
            address=address,
            limits=limits,
            out=out_dir,
        )
