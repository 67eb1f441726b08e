"""The `doomagent` command line: map pictures, runs, evals, reports, replays and the live view."""

from __future__ import annotations

import sys

from doomagent.cli import commands, doctor, evaluate, maps, players, watch  # noqa: F401  (they add their commands)
from doomagent.cli._common import app, err
from doomagent.errors import DoomAgentError

__all__ = ["app", "main"]


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
    sys.exit(code)
