"""How an episode or a trial ends: one enum for the engine, the runner, eval, metrics and reports."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    """How a trial ended; the values are what summary.json holds."""

    EXIT = "exit"  # the player reached the exit
    DEATH = "death"
    STUCK = "stuck"  # stayed within stuck_radius for stuck_frames (the paper's timeout)
    MAX_FRAMES = "max_frames"  # the frame cap
    BUDGET = "budget"  # the recipe's call or cost cap
    ENDED = "ended"  # a player from outside (an MCP client, a person) ended the game
    INTERRUPTED = "interrupted"  # stopped from outside (Ctrl-C, a closed stream): not finished
    ERROR = "error"  # a failure that playing on cannot fix

    @property
    def finished(self) -> bool:
        """Return True for outcomes a resumed eval keeps (the trial ran to an end)."""
        return self in FINISHED


ENGINE_OUTCOMES = (Outcome.EXIT, Outcome.DEATH, Outcome.STUCK, Outcome.MAX_FRAMES)
FINISHED = frozenset({*ENGINE_OUTCOMES, Outcome.BUDGET, Outcome.ENDED})
