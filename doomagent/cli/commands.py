"""The commands that play, draw and report: map, demo, run, report, replay, serve, recipes."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from doomagent import rundir
from doomagent.cli._common import AllowOutsideOption, ProfileOption, WadOption, _fail, app, out
from doomagent.errors import ConfigError, DoomAgentError

if TYPE_CHECKING:
    from doomagent.env.config import EnvConfig


@app.command("map")
def map_cmd(
    map_name: Annotated[str, typer.Argument(help="map name, e.g. E1M1 or MAP01")] = "E1M1",
    wad: WadOption = None,
    out_path: Annotated[Path, typer.Option("--out", help="picture to write (.png, .svg, .pdf)")] = Path("map.png"),
    profile: ProfileOption = None,
) -> None:
    """Draw a map from above: walls, doors, rooms, the route, start, exit and the progression plan's
    objectives numbered in order (keys, locked doors, switches, trigger lines, teleporters, bosses)."""
    from doomagent.env.geometry import MapGeometry
    from doomagent.env.mapplot import save_map
    from doomagent.env.progression import ProgressionPlan, plan_for
    from doomagent.env.rooms import build_rooms
    from doomagent.errors import NoPlanError

    if out_path.suffix.lower() not in (".png", ".svg", ".pdf"):
        _fail(ConfigError(f"cannot write a picture to {out_path}", hint="end --out with .png, .svg or .pdf"))
    try:
        geometry = MapGeometry.load(map_name, wad)
        rooms = build_rooms(geometry, profile)
    except DoomAgentError as exc:
        _fail(exc)
    plan: ProgressionPlan | None
    try:
        plan, why = plan_for(geometry), None
    except NoPlanError as exc:
        plan, why = None, exc.message
    save_map(rooms, out_path, plan=plan)
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
    if plan is not None:
        for i, objective in enumerate(plan.objectives, 1):
            where = rooms.room_of_sector(objective.sector)
            out.print(f"{i:>3}. {objective.text}" + (f" (room {where})" if where else ""))
    else:
        out.print(f"no progression plan: {why}")
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
    from doomagent.recipes import Recipe
    from doomagent.rundir.log import read_jsonl

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
    path = [(s["x"], s["y"]) for s in read_jsonl(out_dir / rundir.STEPS)] + [summary.final_position]
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
    from doomagent.cli._play import RunPlan, close_run, play_trials

    plan = RunPlan(resolved, recipe_dir, folder, trials, seed, full_prompts, resume, overwrite)
    close_run(play_trials(plan, f"doomagent run {recipe}"), folder)


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
    from doomagent.eval.report import find_groups, map_key, write_report

    if death_scope not in ("room", "trial"):
        _fail(ConfigError(f"--death-scope {death_scope!r} is not room or trial"))
    target = out_dir or folders[0] / "report"
    try:
        groups = find_groups(folders)
        extra: list[Path] = []
        envs = {map_key(g.env): g.env for g in groups}
        for key, env in envs.items():
            hangar = env.wad is not None and env.wad.stem.lower() in ("doom", "doom1", "doomu") and env.map == "E1M1"
            here = [g for g in groups if map_key(g.env) == key]
            if reference_trials and not hangar and not any(g.recipe.get("strategy") == "reference" for g in here):
                where = target / "reference-runs" / (key if len(envs) > 1 else "")
                extra.append(_reference_runs(where, env, reference_trials))
        write_report([*folders, *extra], target, lam=lam, death_scope=death_scope)  # type: ignore[arg-type]
    except DoomAgentError as exc:
        _fail(exc)
    if len(envs) > 1:
        out.print(f"wrote {target}/suite.md, suite.html, suite.json and a report per map in {target}/<wad>_<map>/")
    else:
        out.print(f"wrote {target}/report.md, report.html, trajectories.png, rooms.png, metrics.json")


CEILINGS = ("reference", "reference-nav")  # normal play, and the same navigator taking no damage


def _reference_runs(folder: Path, env: EnvConfig, trials: int) -> Path:
    """Play (or resume) the reference navigator's trials on the same map for the two ceiling rows: `reference`
    and `reference-nav` (god mode), each a group folder under `folder`."""

    from doomagent.eval import plan_jobs, run_jobs
    from doomagent.recipes import Recipe, load_recipe

    recipes: list[tuple[Recipe, Path | None]] = []
    for name in CEILINGS:
        # The ceiling plays to the reference recipe's own frame budget, not to the eval's --max-frames: a navigator
        # cut at 1,000 frames would say nothing about the map.
        shipped, _ = load_recipe(name)
        settings = {"max_frames": shipped.env.max_frames, "god": shipped.env.god}
        recipes.append((Recipe(name=name, strategy="reference", env=env.model_copy(update=settings)), None))
    jobs, _ = plan_jobs(recipes, trials=trials, out=folder, seed=0)  # a group folder per recipe
    if jobs:
        out.print(f"playing {len(jobs)} reference-navigator trials for the ceiling rows…")
        run_jobs(jobs, workers=min(len(jobs), os.cpu_count() or 1))
    return folder


@app.command()
def replay(
    trial: Annotated[Path, typer.Argument(help="a trial folder (trial-NNN) of a run or eval")],
    out_path: Annotated[
        Path, typer.Option("--out", help="trial.webp (small, any browser), trial.gif, or trial.mp4 ([video] extra)")
    ] = Path("trial.webp"),
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
