"""The `doomagent` command line: map pictures and scripted episodes."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from doomagent.errors import ConfigError, DoomAgentError, UserError

if TYPE_CHECKING:
    from rich.progress import TaskID

    from doomagent.env.config import EnvConfig
    from doomagent.eval.runner import Event
    from doomagent.graph.runner import Decision
    from doomagent.recipes import Recipe

app = typer.Typer(add_completion=False, no_args_is_help=True, help="LLM/VLM agents that play Doom on the real engine.")
# Plain text everywhere: user text (paths, hints such as `doomagent[video]`) prints literally, and lines are
# never wrapped (a pipe or a file gets whole lines whatever the width).
err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)
out = Console(markup=False, highlight=False, soft_wrap=True)

WadOption = Annotated[Path | None, typer.Option("--wad", help="IWAD path (default: vizdoom's freedoom1.wad)")]
AllowOutsideOption = Annotated[
    bool,
    typer.Option(
        "--allow-outside-files",
        help="let the recipe read files outside its folder (walkthrough, prompts_dir, room profile); "
        "for recipes you trust",
    ),
]
ProfileOption = Annotated[Path | None, typer.Option("--profile", help="YAML naming rooms as sector sets")]


def _fail(exc: DoomAgentError) -> NoReturn:
    """Print the error and its hint; exit 2 for what the user can fix, 1 for a failure at run time."""
    err.print(Text.assemble(("error: ", "bold red"), exc.message))
    if exc.hint:
        err.print(Text.assemble(("hint: ", "yellow"), exc.hint))
    raise typer.Exit(2 if isinstance(exc, UserError) else 1)


@app.command("map")
def map_cmd(
    map_name: Annotated[str, typer.Argument(help="map name, e.g. E1M1 or MAP01")] = "E1M1",
    wad: WadOption = None,
    out_path: Annotated[Path, typer.Option("--out", help="picture to write (.png, .svg, .pdf)")] = Path("map.png"),
    profile: ProfileOption = None,
) -> None:
    """Draw a map from above with walls, doors, rooms, the route, start and exit."""
    from doomagent.env.geometry import MapGeometry
    from doomagent.env.mapplot import save_map
    from doomagent.env.rooms import build_rooms

    if out_path.suffix.lower() not in (".png", ".svg", ".pdf"):
        _fail(ConfigError(f"cannot write a picture to {out_path}", hint="end --out with .png, .svg or .pdf"))
    try:
        geometry = MapGeometry.load(map_name, wad)
        rooms = build_rooms(geometry, profile)
    except DoomAgentError as exc:
        _fail(exc)
    save_map(rooms, out_path)
    table = Table(title=f"{geometry.wad_path.name} {geometry.name}: rooms ({rooms.source})")
    for col in ("room", "on route", "sectors", "name"):
        table.add_column(col)
    for room in rooms.rooms:
        sectors = sorted(room.sectors)
        shown = ", ".join(map(str, sectors[:12])) + (f", … ({len(sectors)})" if len(sectors) > 12 else "")
        table.add_row(room.label, "yes" if room.on_route else "", shown, room.name or "")
    out.print(table)
    if rooms.route:
        out.print(
            f"route: {rooms.route.length:.0f} map units through {len(rooms.route.sectors)} sectors"
            + (f", keys needed: {', '.join(rooms.route.keys)}" if rooms.route.keys else "")
        )
    out.print(f"wrote {out_path}")


@app.command()
def demo(
    map_name: Annotated[str, typer.Option("--map", help="map name")] = "E1M1",
    wad: WadOption = None,
    skill: Annotated[int, typer.Option(min=1, max=5, help="1-5; 3 is Hurt Me Plenty")] = 3,
    max_frames: Annotated[int, typer.Option("--max-frames", min=2, help="frame cap")] = 3000,
    seed: Annotated[int, typer.Option(help="engine seed")] = 3,
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the episode's files")] = Path("runs/demo"),
    profile: ProfileOption = None,
) -> None:
    """Play a short scripted episode (the reference navigator, no model): map, summary, steps, demo."""
    import numpy as np

    from doomagent.env.config import EnvConfig
    from doomagent.env.mapplot import save_map
    from doomagent.graph import run_trial
    from doomagent.graph.runner import read_jsonl
    from doomagent.recipes import Recipe

    try:
        env = EnvConfig(wad=wad, map=map_name, skill=skill, max_frames=max_frames, room_profile=profile)
        recipe = Recipe(name="reference", strategy="reference", env=env)
        with out.status("playing…") as status:
            summary = run_trial(
                recipe,
                seed=seed,
                out=out_dir,
                on_progress=lambda d: status.update(
                    f"frame {d.frame:5d}  room {d.room or '-'}  health {d.health:3d}  {d.action}"
                ),
            )
        from doomagent.env.geometry import MapGeometry
        from doomagent.env.rooms import build_rooms

        rooms = build_rooms(MapGeometry.load(map_name, wad), profile)
    except DoomAgentError as exc:
        _fail(exc)
    path = [(s["x"], s["y"]) for s in read_jsonl(out_dir / "steps.jsonl")] + [summary.final_position]
    save_map(rooms, out_dir / "map.png", path=np.array(path, dtype=float), outcome=summary.outcome.value)
    entered = ", ".join(f"{r} @{f}" for f, r in summary.rooms_entered)
    out.print(
        f"outcome {summary.outcome.value} after {summary.frames} frames "
        f"({summary.decisions} decisions); rooms entered: {entered}"
    )
    out.print(f"frames per room: {summary.room_frames}")
    out.print(f"wrote {out_dir}/summary.json, steps.jsonl, episode.lmp, map.png")


@app.command()
def run(
    recipe: Annotated[str, typer.Argument(help="recipe name (naive, walkthrough, plan, k-levels) or YAML path")],
    model: Annotated[str | None, typer.Option(help="LiteLLM model for planner, experts and agent")] = None,
    vision_model: Annotated[str | None, typer.Option("--vision-model", help="LiteLLM model for vision")] = None,
    sets: Annotated[
        list[str] | None, typer.Option("--set", help="KEY=VALUE override, e.g. agent.temperature=0.5")
    ] = None,
    max_frames: Annotated[int | None, typer.Option("--max-frames", min=2, help="frame cap per trial")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="run folder (default runs/<recipe>-<time>)")] = None,
    trials: Annotated[int, typer.Option(min=1, help="trials to play, one after another")] = 1,
    seed: Annotated[int, typer.Option(help="seed of the first trial; trial i uses seed + i")] = 0,
    full_prompts: Annotated[bool, typer.Option("--full-prompts", help="inline prompts in calls.jsonl")] = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="keep the folder's finished trials and play the missing ones")
    ] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="delete the folder's trials and start over")] = False,
    allow_outside_files: AllowOutsideOption = False,
) -> None:
    """Play a recipe with its models and write every step, call, demo and summary to a run folder."""
    import time

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from doomagent._proc import sigterm_as_interrupt
    from doomagent.eval.runner import plan_run
    from doomagent.folders import disk_error, exclusive
    from doomagent.graph import run_trial
    from doomagent.graph.runner import check_models
    from doomagent.recipes import load_recipe

    if resume and overwrite:
        _fail(ConfigError("give --resume or --overwrite, not both"))
    try:
        resolved, recipe_dir = load_recipe(
            recipe,
            overrides=sets or [],
            model=model,
            vision_model=vision_model,
            max_frames=max_frames,
            allow_outside_files=allow_outside_files,
        )
        resolved.walkthrough_text(recipe_dir)
        check_models(resolved)  # fail fast on a missing key or package, before the engine starts
    except DoomAgentError as exc:
        _fail(exc)
    folder = out_dir or Path("runs") / f"{resolved.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    total = resolved.env.max_frames or 100_000
    columns = [
        TextColumn("trial {task.fields[trial]}"),
        BarColumn(bar_width=16),
        TextColumn("{task.completed:.0f}/{task.total:.0f}"),
        TextColumn("{task.fields[info]}", markup=False),
        TimeElapsedColumn(),
    ]
    results = []
    try:
        with exclusive(folder, f"doomagent run {recipe}"), sigterm_as_interrupt():
            todo = plan_run(folder, resolved, trials, resume=resume, overwrite=overwrite)
            with Progress(*columns, console=out, transient=False) as bar:
                for i in todo:
                    task = bar.add_task("", total=total, trial=i, info="")

                    def show(p: Decision, task: TaskID = task) -> None:
                        info = f"{p.room or '-'} hp {p.health} {p.action:<12} {p.calls} calls {p.tokens} tok"
                        bar.update(task, completed=p.frame, info=f"{info} ${p.cost:.3f}")

                    result = run_trial(
                        resolved,
                        trial=i,
                        seed=seed + i,
                        out=folder / f"trial-{i:03d}",
                        recipe_dir=recipe_dir,
                        on_progress=show,
                        full_prompts=full_prompts,
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
    for r in results:
        rooms = ", ".join(f"{room}@{f}" for f, room in r.rooms_entered)
        out.print(
            f"trial {r.trial}: {r.outcome} after {r.frames} frames, {r.decisions} decisions, "
            f"{r.waits} WAIT fallbacks; rooms {rooms}"
        )
    out.print(f"wrote {folder}")
    failed = [r for r in results if r.outcome == "error"]
    if failed:
        err.print(Text.assemble(("error: ", "bold red"), failed[0].error or "the provider failed"))
        raise typer.Exit(1)


@app.command("eval")
def eval_cmd(
    recipes: Annotated[list[str], typer.Argument(help="recipes: shipped names or YAML paths")],
    trials: Annotated[int, typer.Option(min=1, help="trials per recipe (the paper ran 10)")] = 10,
    workers: Annotated[int | None, typer.Option(min=1, help="worker processes (default: CPU count)")] = None,
    out_dir: Annotated[Path, typer.Option("--out", help="eval folder; rerunning resumes it")] = Path("runs/eval"),
    model: Annotated[str | None, typer.Option(help="LiteLLM model for planner, experts and agent")] = None,
    vision_model: Annotated[str | None, typer.Option("--vision-model", help="LiteLLM model for vision")] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="KEY=VALUE override for every recipe")] = None,
    max_frames: Annotated[int | None, typer.Option("--max-frames", min=2, help="frame cap per trial")] = None,
    seed: Annotated[int, typer.Option(help="seed of trial 0; trial i uses seed + i")] = 0,
    allow_outside_files: AllowOutsideOption = False,
) -> None:
    """Play trials of recipes in parallel worker processes; rerun the same command to resume."""

    from doomagent._proc import sigterm_as_interrupt
    from doomagent.folders import disk_error, exclusive
    from doomagent.graph.runner import check_models
    from doomagent.recipes import load_recipe

    try:
        loaded: list[tuple[Recipe, Path | None]] = []
        for name in recipes:
            recipe, folder = load_recipe(
                name,
                overrides=sets or [],
                model=model,
                vision_model=vision_model,
                max_frames=max_frames,
                allow_outside_files=allow_outside_files,
            )
            recipe.walkthrough_text(folder)
            check_models(recipe)  # a missing key or package fails here, before any worker starts
            loaded.append((recipe, folder))
    except DoomAgentError as exc:
        _fail(exc)
    try:
        with exclusive(out_dir, "doomagent eval"), sigterm_as_interrupt():
            results = _eval_jobs(loaded, trials, out_dir, seed, workers)
    except KeyboardInterrupt:
        err.print("stopped: finished trials are kept; run the same command to resume")
        raise typer.Exit(130) from None
    except DoomAgentError as exc:
        _fail(exc)
    except OSError as exc:
        _fail(disk_error(exc))
    failed: dict[str, str] = {}
    for summary in results:
        if summary.get("outcome") == "error":
            group = f"{summary.get('recipe')} / {summary.get('model')}"
            failed.setdefault(group, str(summary.get("error") or "the provider failed"))
    for group, why in failed.items():
        err.print(Text.assemble(("failed: ", "bold red"), f"{group}: {why}"))
    if failed:
        err.print("fix the cause, then run the same command: finished trials are kept, failed ones play again")
        raise typer.Exit(1)
    out.print(f"done: {out_dir}; next: doomagent report {out_dir}")


def _eval_jobs(
    loaded: list[tuple[Recipe, Path | None]], trials: int, out_dir: Path, seed: int, workers: int | None
) -> list[dict[str, object]]:
    """Plan and play an eval's trials with a live display; return the summaries of the trials played."""
    import os

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from doomagent.eval import plan_jobs, run_jobs

    jobs, done = plan_jobs(loaded, trials=trials, out=out_dir, seed=seed)
    total = len(jobs) + done
    out.print(f"{total} trials: {done} already finished, {len(jobs)} to play in {out_dir}")
    columns = [
        TextColumn("{task.description}", markup=False),
        BarColumn(bar_width=20),
        TextColumn("{task.completed:.0f}/{task.total:.0f}"),
        TextColumn("{task.fields[info]}", markup=False),
        TimeElapsedColumn(),
    ]
    with Progress(*columns, console=out) as bar:
        overall = bar.add_task("all trials", total=total, completed=done, info="")
        running: dict[tuple[str, int], TaskID] = {}

        def on_event(e: Event) -> None:
            key = (e.group, e.trial)
            if e.kind == "start":
                running[key] = bar.add_task(f"{e.group} #{e.trial}", total=e.max_frames or 100_000, info="")
            elif e.kind == "step" and key in running:
                bar.update(running[key], completed=e.frame, info=e.info)
            elif e.kind == "end":
                if key in running:
                    bar.remove_task(running.pop(key))
                bar.advance(overall)
                bar.console.print(f"{e.group} #{e.trial}: {e.info} after {e.frame} frames")
            elif e.kind == "retry":
                bar.advance(overall, -1)
                bar.console.print(f"{e.group} #{e.trial}: the engine died ({e.info}); playing it once more")

        return run_jobs(jobs, workers=workers or min(len(jobs) or 1, os.cpu_count() or 1), on_event=on_event)


@app.command()
def report(
    folders: Annotated[list[Path], typer.Argument(help="eval or run folders")],
    out_dir: Annotated[Path | None, typer.Option("--out", help="report folder (default: FIRST/report)")] = None,
    lam: Annotated[float, typer.Option("--lambda", help="D-PMAT death weight in frames")] = 1000.0,
    death_scope: Annotated[
        str,
        typer.Option(
            help="room: a death counts against the room it happened in "
            "(matches the paper's Table 1); trial: against every room"
        ),
    ] = "room",
    reference_trials: Annotated[
        int,
        typer.Option(min=0, help="reference-navigator trials to run for the ceiling row when none are given (0: none)"),
    ] = 3,
) -> None:
    """Write a Table-1 style Markdown table, an HTML page with trajectories, and metrics.json."""
    from doomagent.eval.report import find_groups, write_report

    if death_scope not in ("room", "trial"):
        _fail(ConfigError(f"--death-scope {death_scope!r} is not room or trial"))
    target = out_dir or folders[0] / "report"
    try:
        groups = find_groups(folders)
        extra: list[Path] = []
        env = groups[0].env
        hangar = env.wad is not None and env.wad.stem.lower() in ("doom", "doom1", "doomu") and env.map == "E1M1"
        if reference_trials and not hangar and not any(g.recipe.get("strategy") == "reference" for g in groups):
            extra.append(_reference_runs(target / "reference-runs", env, reference_trials))
        write_report([*folders, *extra], target, lam=lam, death_scope=death_scope)  # type: ignore[arg-type]
    except DoomAgentError as exc:
        _fail(exc)
    out.print(f"wrote {target}/report.md, report.html, trajectories.png, rooms.png, metrics.json")


def _reference_runs(folder: Path, env: EnvConfig, trials: int) -> Path:
    """Play (or resume) reference-navigator trials on the same map, for the ceiling row."""
    import os

    from doomagent.eval import plan_jobs, run_jobs
    from doomagent.recipes import Recipe

    recipe = Recipe(name="reference", strategy="reference", env=env)
    jobs, _ = plan_jobs([(recipe, None)], trials=trials, out=folder, seed=0)
    if jobs:
        out.print(f"playing {len(jobs)} reference-navigator trials for the ceiling row…")
        run_jobs(jobs, workers=min(len(jobs), os.cpu_count() or 1))
    return folder


@app.command()
def replay(
    trial: Annotated[Path, typer.Argument(help="a trial folder (trial-NNN) of a run or eval")],
    out_path: Annotated[Path, typer.Option("--out", help="trial.gif or trial.mp4")] = Path("trial.gif"),
    every: Annotated[int, typer.Option(min=1, help="keep one frame in this many")] = 2,
    scale: Annotated[float, typer.Option(min=0.1, max=2.0, help="resize factor")] = 0.5,
    captions: Annotated[bool, typer.Option(help="caption frames with action and reason")] = True,
) -> None:
    """Re-render a trial from its demo recording, with no model call."""
    from doomagent.eval.replay import replay_trial

    try:
        n = replay_trial(trial, out_path, every=every, captions=captions, scale=scale)
    except DoomAgentError as exc:
        _fail(exc)
    out.print(f"wrote {out_path} ({n} frames)")


@app.command()
def serve(
    model: Annotated[str, typer.Option(help="local model: smollm2 or gemma3-270m")] = "smollm2",
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: a free one)")] = 0,
    weights: Annotated[
        str, typer.Option(help="q8_0 (re-encoded once, fastest here), f16, q4_0, or shipped (the file as it comes)")
    ] = "q8_0",
) -> None:
    """Serve an embedded local model (llama.cpp, OpenAI-compatible) on 127.0.0.1 until Ctrl-C."""
    import signal
    import time

    from doomagent.errors import EngineError
    from doomagent.providers.local import server_for

    def _stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # Ctrl-C and `kill` both stop it cleanly, also when started in the background (where SIGINT is ignored).
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    server = None
    try:
        server = server_for(f"{model}:{weights}")
        server.port = port
        server.start()
        out.print(f"serving {model} at {server.api_base} (model {server.alias!r}); Ctrl-C stops it")
        out.print(f"use it with: --model openai/{server.alias} --set agent.api_base={server.api_base}")
        while server.process is not None and server.process.poll() is None:
            time.sleep(0.5)
        code = server.process.returncode if server.process else None
        raise EngineError(f"the llama.cpp server stopped by itself (code {code}): {server.log_tail()}")
    except DoomAgentError as exc:
        _fail(exc)  # the server is stopped below, before the exit
    except KeyboardInterrupt:
        out.print("stopped")
    finally:
        if server is not None:
            server.stop()


recipes_app = typer.Typer(help="List the shipped recipes, or print one to copy and edit.")
app.add_typer(recipes_app, name="recipes")


@recipes_app.callback(invoke_without_command=True)
def recipes_list(ctx: typer.Context) -> None:
    """List the recipes that ship with doomagent, one line each."""
    if ctx.invoked_subcommand is not None:
        return
    import yaml

    from doomagent.recipes import shipped_recipes

    found = shipped_recipes()
    if not found:
        _fail(ConfigError("no shipped recipes found", hint="reinstall doomagent: its recipes are package data"))
    for path in found:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out.print(f"{path.stem:<12} {data.get('strategy', '?'):<12} {data.get('description', '')}")
    out.print("show one: doomagent recipes show NAME; play one: doomagent run NAME")


@recipes_app.command("show")
def recipes_show(name: Annotated[str, typer.Argument(help="a shipped recipe's name")]) -> None:
    """Print a shipped recipe's YAML (redirect it to a file to make it your own)."""
    from doomagent.recipes import shipped_recipes

    found = {p.stem: p for p in shipped_recipes()}
    if name not in found:
        _fail(ConfigError(f"no shipped recipe named {name!r}", hint=f"shipped: {', '.join(found)}"))
    sys.stdout.write(found[name].read_text(encoding="utf-8"))


def main() -> None:
    """Run the command line, turning stray user errors into exit code 2."""
    code: int = 0
    try:
        app(standalone_mode=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except DoomAgentError as exc:  # pragma: no cover - commands catch their own
        err.print(f"error: {exc}")
        code = 2
    from doomagent.env.doom_env import abandoned_engines

    if abandoned_engines():  # an engine died: leave without the destructor that would wait on it
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
