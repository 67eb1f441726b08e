"""What every command of the command line shares: the app, plain consoles, common options, failing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from doomagent.errors import DoomAgentError, UserError

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
