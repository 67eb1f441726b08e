"""A game played from outside doomagent, one press at a time: by an MCP client or a person at a browser.

The game is an ordinary trial: the graph is a `player` node that waits for the next press and the usual `act`
node, played on a thread of its own by `run_trial`, so the trial folder is the one `doomagent run` writes
(steps.jsonl with the player's reasons, summary.json, the demo, live/) and `report`, `replay` and `watch` read
it. The recipe is `strategy: external`, named for the player (`mcp`, `human`): its row in the tables.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doomagent.env.actions import Action, parse_action
from doomagent.env.config import EnvConfig
from doomagent.env.observation import Observation
from doomagent.errors import ConfigError, DoomAgentError
from doomagent.graph._session import PlayerEnded
from doomagent.graph.builder import GraphBuilder, Step
from doomagent.graph.runner import Decision, run_trial, write_recipe
from doomagent.recipes import Recipe
from doomagent.rundir.summary import TrialResult
from doomagent.runtime.context import RunContext

_END = object()  # the player ended the game


class GameEnded(BaseException):
    """Raised in the player node when the player ends the game before the episode is over."""


@dataclass(frozen=True)
class Press:
    """One press from the player: the key and why."""

    action: Action
    reason: str = ""


class ExternalGame:
    """One trial driven by presses from another thread (an MCP tool handler, a web request).

    `start()` plays the trial on a thread until its first decision waits for a press; `press()` plays one
    decision and returns it; `end()` stops the trial (outcome `ended` unless the episode ended) and returns its
    summary.
    """

    def __init__(self, recipe: Recipe, folder: Path, *, trial: int = 0, seed: int = 0, timeout: float = 120.0) -> None:
        if recipe.strategy != "external":
            raise ConfigError(f"an external game plays strategy external, not {recipe.strategy!r}")
        self.recipe, self.folder, self.trial, self.seed, self.timeout = recipe, folder, trial, seed, timeout
        self.ctx: RunContext | None = None
        self.result: TrialResult | None = None
        self.error: BaseException | None = None
        self.last: Decision | None = None
        self._presses: queue.Queue[Any] = queue.Queue()
        self._decisions: queue.Queue[Any] = queue.Queue()
        self._waiting = threading.Event()  # the player node waits for a press
        self._thread = threading.Thread(target=self._play, name=f"game-{recipe.name}", daemon=True)

    @property
    def trial_folder(self) -> Path:
        """Return the trial's folder."""
        return self.folder / f"trial-{self.trial:03d}"

    @property
    def over(self) -> bool:
        """Return True once the trial has ended (the episode, or the player, ended it)."""
        return not self._thread.is_alive() and self._thread.ident is not None

    def start(self) -> ExternalGame:
        """Start the trial and wait until it waits for the first press; raise what stopped it from starting."""
        write_recipe(self.recipe, self.folder)
        self._thread.start()
        while not self._waiting.wait(0.05):
            if not self._thread.is_alive():
                self._thread.join()
                raise self.error or ConfigError("the game ended before its first decision")
        return self

    def observation(self) -> Observation:
        """Return what the player sees now."""
        if self.ctx is None or self.ctx.observation is None:
            raise ConfigError("the game has not started")
        return self.ctx.observation

    def press(self, action: Action | str, reason: str = "") -> Decision:
        """Play one decision with this key; return it. ConfigError once the game is over."""
        key = parse_action(action)
        if self.over:
            raise ConfigError(f"the game is over ({self._outcome()}); start a new one")
        self._waiting.clear()
        self._presses.put(Press(key, " ".join(reason.split())[:200]))
        item = self._decisions.get(timeout=self.timeout)
        if item is _END:
            self._thread.join()
            if self.error is not None:
                raise self.error
            raise ConfigError(f"the game is over ({self._outcome()}); start a new one")
        self.last = item
        if not self._decisions.empty() and self._decisions.queue[0] is _END:
            self._thread.join(self.timeout)  # the episode ended with this decision: the summary is written
        else:
            self._wait_for_next()
        return item

    def end(self) -> TrialResult | None:
        """Stop the trial (if it still plays) and return its summary."""
        if self._thread.is_alive():
            self._presses.put(_END)
            self._thread.join(self.timeout)
        return self.result

    def _wait_for_next(self) -> None:
        while not self._waiting.wait(0.05):
            if not self._thread.is_alive():
                return

    def _outcome(self) -> str:
        return self.result.outcome.value if self.result is not None else "ended"

    # -- on the trial's thread -----------------------------------------------------------------

    def _play(self) -> None:
        builder = GraphBuilder([Step("player", self._node), Step("act", _act())])
        try:
            self.result = run_trial(
                self.recipe,
                trial=self.trial,
                seed=self.seed,
                out=self.trial_folder,
                builder=builder,
                models={},
                on_progress=self._decisions.put,
            )
        except (DoomAgentError, OSError) as exc:
            self.error = exc
        finally:
            self._decisions.put(_END)

    def _node(self, state: Any, runtime: Any) -> dict[str, Any]:
        self.ctx = runtime.context
        self._waiting.set()
        item = self._presses.get()
        if item is _END:
            raise PlayerEnded  # the trial ends as `ended`, its summary written
        return {"action": item.action.value, "reason": item.reason, "parse_ok": True, "raw": ""}


def _act() -> Any:
    from doomagent import nodes

    return nodes.act


def next_trial(folder: Path) -> int:
    """Return the number of the next trial folder of a group (0 for a new one)."""
    taken = [int(p.name[6:]) for p in folder.glob("trial-*") if p.name[6:].isdigit()] if folder.is_dir() else []
    return max(taken, default=-1) + 1


def external_recipe(player: str, env: EnvConfig) -> Recipe:
    """Return the recipe of a game played from outside: `strategy: external`, named for the player."""
    return Recipe(name=player, strategy="external", env=env, checkpoint_every=None)
