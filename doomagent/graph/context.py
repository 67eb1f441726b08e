"""The run context every node receives: the environment, the models, the prompts and the log."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from doomagent.env import DoomEnv, Observation
from doomagent.env.actions import Action
from doomagent.providers.base import Model
from doomagent.recipes import Recipe
from doomagent.runlog import RunLog


@dataclass
class RunContext:
    """Everything a node needs besides the state; nodes never build their own clients."""

    env: DoomEnv
    recipe: Recipe
    models: dict[str, Model]  # role -> model: vision, planner, experts, agent (and custom roles)
    log: RunLog
    walkthrough: str | None = None
    prompts_dir: Path | None = None
    observation: Observation | None = None  # the latest screen and HUD; kept out of graph state
    allowed: frozenset[Action] = field(default_factory=lambda: frozenset(Action))
    scratch: dict[str, object] = field(default_factory=dict)  # per-trial objects of custom nodes

    def model(self, role: str) -> Model:
        """Return the model playing `role`."""
        try:
            return self.models[role]
        except KeyError:
            raise KeyError(f"no model for role {role!r}; the recipe has {sorted(self.models)}") from None

    @property
    def level(self) -> str:
        """Return the level's name for prompts."""
        return self.env.geometry.name
