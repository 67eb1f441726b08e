"""`doomagent watch`: a run or eval, live in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from doomagent.cli._common import _fail, app, err, out
from doomagent.errors import DoomAgentError

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@app.command()
def watch(
    folder: Annotated[Path, typer.Argument(help="a run or eval folder (playing or finished)")],
    port: Annotated[int, typer.Option(min=0, max=65535, help="port to listen on (0: any free one)")] = 8765,
    host: Annotated[
        str, typer.Option(help="address to listen on; 127.0.0.1 keeps it to this machine (0.0.0.0: every network)")
    ] = "127.0.0.1",
) -> None:
    """Serve a live view of a run or eval: screens, map, reasons and cost as the agent plays."""
    from doomagent.watch import serve

    if host not in _LOOPBACK:
        err.print(f"warning: listening on {host}: anyone who can reach this machine can see the run")

    def ready(url: str) -> None:
        out.print(f"watching {folder} at {url} (Ctrl-C stops)")
        out.file.flush()  # a program reading our output (a test, a script) gets the address now

    try:
        serve(folder, host=host, port=port, on_ready=ready)
    except DoomAgentError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        out.print("stopped")
