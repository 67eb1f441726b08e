"""`doomagent doctor`: the first command to run on a new machine."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from doomagent.cli._common import AllowOutsideOption, _fail, app, out
from doomagent.errors import DoomAgentError

_STYLE = {"ok": "green", "missing": "yellow", "broken": "bold red"}


@app.command()
def doctor(
    recipe: Annotated[
        str | None, typer.Argument(help="a recipe to check for: its models, keys and local servers")
    ] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="KEY=VALUE override, as for run")] = None,
    model: Annotated[str | None, typer.Option(help="LiteLLM model for planner, experts and agent")] = None,
    vision_model: Annotated[str | None, typer.Option("--vision-model", help="LiteLLM model for vision")] = None,
    models: Annotated[bool, typer.Option(help="load each installed local model and have it answer one prompt")] = True,
    allow_outside_files: AllowOutsideOption = False,
) -> None:
    """Check the engine, WADs, local models, provider keys and optional parts; say how to fix each."""
    from doomagent.cli._checks import Finding, run_checks
    from doomagent.recipes import load_recipe

    resolved = None
    if recipe is not None:
        try:
            resolved, folder = load_recipe(
                recipe,
                overrides=sets or [],
                model=model,
                vision_model=vision_model,
                allow_outside_files=allow_outside_files,
            )
            resolved.walkthrough_text(folder)
        except DoomAgentError as exc:
            _fail(exc)

    def show(f: Finding) -> None:
        line = Text.assemble((f"{f.status:<8}", _STYLE[f.status]), f"{f.name:<24} {f.detail}")
        if f.fix and f.status != "ok":
            line.append(f"  fix: {f.fix}", style="yellow")
        out.print(line)

    healthy = run_checks(resolved, models=models, emit=show)
    what = f"recipe {resolved.name}" if resolved is not None else "the engine"
    if not healthy:
        out.print(f"not ready: something {what} needs is missing or broken (above)")
        raise typer.Exit(1)
    out.print(f"ready: {what} has what it needs" + ("" if resolved else "; give a recipe to check its models"))
