"""The recipe's types: a model per role (with each role's settings), the strategy, the budget, the environment."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from doomagent._internal.redact import redact
from doomagent.env.actions import Action, parse_action
from doomagent.env.config import EnvConfig
from doomagent.errors import ActionParseError, ConfigError
from doomagent.providers.settings import RoleSettings
from doomagent.recipes.files import WALKTHROUGHS, auto_walkthrough, read_text, shipped_walkthrough

Strategy = Literal[
    "naive", "walkthrough", "plan", "k-levels", "direct", "direct-plan", "direct-k-levels", "reference", "external"
]
# One vision model sees the screen and answers the move (no Vision role); with a Planner, and with Experts too.
DIRECT_STRATEGIES = ("direct", "direct-plan", "direct-k-levels")
ROLE_NAMES = ("vision", "planner", "experts", "agent")  # the built-in roles; recipes may add their own
_ROLE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_RECIPE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class VisionRole(RoleSettings):
    """The Vision model: screenshot in, structured description out (paper: 0.1 / 2,880)."""

    temperature: float = 0.1
    max_tokens: int = 2880


class PlannerRole(RoleSettings):
    """The Planner: walkthrough + history + state in, a short plan out (paper: 0.1 / 150, every 30)."""

    temperature: float = 0.1
    max_tokens: int = 150
    every_frames: int = Field(30, ge=1)
    max_steps: int = Field(5, ge=1, le=20)


class ExpertsRole(RoleSettings):
    """The Experts: extra Agent calls on the plan prompt (paper: 3, every 60, Agent's 0.9 / 25)."""

    every_frames: int = Field(60, ge=1)
    count: int = Field(3, ge=1, le=16)


class AgentRole(RoleSettings):
    """The Agent: one action and a short reason per decision (paper: 0.9 / 25)."""


class Budget(BaseModel):
    """Caps per trial; a trial that reaches one ends cleanly with outcome `budget`."""

    model_config = ConfigDict(extra="forbid")

    max_calls: int | None = Field(None, ge=1, description="model calls, all roles together")
    max_cost: float | None = Field(None, gt=0, description="US dollars, as LiteLLM prices the calls")


class Roles(BaseModel):
    """The models of a recipe, one per role; a role left out is not played.

    Besides the built-in roles a recipe may name roles of its own (`critic: {model: ..., temperature: ...}`)
    for custom nodes; they take the same settings.
    """

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, RoleSettings] = Field(init=False)

    vision: VisionRole | None = None
    planner: PlannerRole | None = None
    experts: ExpertsRole | None = None
    agent: AgentRole

    @model_validator(mode="after")
    def _check_names(self) -> Roles:
        for name in self.__pydantic_extra__ or {}:
            if not _ROLE_NAME.match(name):
                raise ValueError(f"role name {name!r} must be lower-case letters, digits and _ (e.g. critic)")
        return self

    def get(self, name: str) -> RoleSettings | None:
        """Return the settings of role `name` (built-in or custom), or None when the recipe lacks it."""
        if name in ROLE_NAMES:
            value = getattr(self, name)
            return value if isinstance(value, RoleSettings) else None
        return (self.__pydantic_extra__ or {}).get(name)

    def items(self) -> Iterator[tuple[str, RoleSettings]]:
        """Yield (name, settings) for every role the recipe has, built-in ones first."""
        for name in ROLE_NAMES:
            value = self.get(name)
            if value is not None:
                yield name, value
        yield from (self.__pydantic_extra__ or {}).items()


class Recipe(BaseModel):
    """A prompt strategy with its models and environment."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    strategy: Strategy
    perception: Literal["model", "engine", "hybrid"] = Field(
        "model",
        validation_alias=AliasChoices("perception", "vision"),  # `vision: engine` reads as well
        description="model: the Vision model; engine: the engine's own facts, no model (text-only "
        "models can play); hybrid: the model's text plus the engine's facts",
    )
    roles: Roles | None = Field(None, description="models per role; the reference strategy plays none")
    env: EnvConfig = Field(default_factory=lambda: EnvConfig(max_frames=5000))
    walkthrough: str | None = Field(
        None,
        description="auto: the shipped hand-written one for this WAD and map when there is one, else one written "
        "from the map's progression plan (the default for strategies that read a walkthrough); a shipped name "
        "(freedoom1_E1M1); or a path to a text file",
    )
    budget: Budget = Field(default_factory=Budget)
    context_tokens: int = Field(32768, ge=512, description="history is clipped to fit this context")
    history_chunk: int = Field(
        1,
        ge=1,
        description="drop the oldest moves this many at a time when the history outgrows the context, so "
        "consecutive prompts share their beginning (prompt caching; 8 suits a local model)",
    )
    actions: list[str] | None = Field(None, description="the actions the Agent may answer; default: all")
    prompts_dir: Path | None = Field(None, description="a folder of your own vision/planner/agent .j2 files")
    unreachable_after: int | None = Field(
        10,
        ge=1,
        description="end the trial (outcome error, provider unreachable) after this many decisions in a row "
        "whose model calls all failed with connection errors, 5xx or timeouts after their retries; a few "
        "failures in a row are played as WAIT; null: never",
    )
    image_history: int = Field(
        1,
        ge=1,
        le=16,
        description="screenshots sent to each role that takes images (Vision, a direct strategy's Agent and "
        "Experts): the current one and the N-1 before it, oldest first, each labelled with its frame and the "
        "key pressed after it",
    )
    checkpoint_every: int | None = Field(
        25,
        ge=1,
        description="decisions between a trial's checkpoints (trials written to a folder): a trial cut off "
        "resumes from its last one, repeating at most this many decisions' model calls; null: none",
    )

    @field_validator("name")
    @classmethod
    def _check_name(cls, v: str) -> str:
        # The name becomes a folder name (runs/<name>-..., <out>/<name>__<model>): never a path.
        if not _RECIPE_NAME.match(v):
            raise ValueError(
                f"name {v!r} must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit)"
            )
        return v

    @field_validator("actions")
    @classmethod
    def _check_actions(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        if not v:
            raise ValueError("actions is empty: list the actions the Agent may answer, or leave it out for all 17")
        out = []
        for name in v:
            try:
                out.append(parse_action(name).value)
            except ActionParseError as exc:
                raise ValueError(f"unknown action {name!r}; {exc.hint}") from None
        return out

    @model_validator(mode="after")
    def _check_strategy(self) -> Recipe:
        if self.strategy == "reference" and not self.env.live_map:
            self.env = self.env.model_copy(update={"live_map": True})  # the navigator reads the live map
        if self.strategy in ("reference", "external"):  # the navigator; a player outside (MCP client, a person)
            return self
        if self.roles is None:
            raise ValueError(f"strategy {self.strategy!r} needs roles (an agent at least)")
        if self.direct:
            if self.roles.vision is not None:
                raise ValueError(
                    f"strategy {self.strategy!r} has no Vision role: its Agent sees the screen itself "
                    "(remove roles.vision, or play plan / k-levels)"
                )
        elif self.perception != "engine" and self.roles.vision is None:
            raise ValueError(f"perception {self.perception!r} needs roles.vision (or set perception: engine)")
        if self.strategy in ("plan", "k-levels", "direct-plan", "direct-k-levels") and self.roles.planner is None:
            raise ValueError(f"strategy {self.strategy!r} needs roles.planner")
        if self.strategy in ("k-levels", "direct-k-levels") and self.roles.experts is None:
            raise ValueError(f"strategy {self.strategy!r} needs roles.experts")
        return self

    @property
    def direct(self) -> bool:
        """Return True for the direct strategies (the Agent sees the screenshot; no Vision role)."""
        return self.strategy in DIRECT_STRATEGIES

    @property
    def allowed_actions(self) -> frozenset[Action]:
        """Return the actions the Agent may answer."""
        return frozenset(Action(a) for a in self.actions) if self.actions else frozenset(Action)

    @property
    def walkthrough_auto(self) -> bool:
        """Return True when the walkthrough is chosen for the map (`auto`, or none named by a strategy that
        reads one)."""
        if self.walkthrough is None:
            return self.strategy not in ("naive", "reference", "external")
        return self.walkthrough.lower() == "auto"

    def walkthrough_text(self, base: Path | None = None) -> str | None:
        """Return the walkthrough's text: for `auto` the map's shipped one or one written from its
        progression plan; a shipped one by name; or a file relative to `base`."""
        if self.walkthrough_auto:
            return auto_walkthrough(self.env.map, self.env.wad)
        if self.walkthrough is None:
            return None
        shipped = shipped_walkthrough(self.walkthrough)
        if shipped is not None:
            self._check_walkthrough_map(shipped.stem)
        path = shipped or Path(self.walkthrough).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
        if not path.is_file():
            names = ", ".join(p.stem for p in sorted(WALKTHROUGHS.glob("*.md")))
            raise ConfigError(
                f"walkthrough {self.walkthrough!r} not found", hint=f"give a file path, or a shipped name: {names}"
            )
        return read_text(path, "walkthrough").strip()

    def _check_walkthrough_map(self, name: str) -> None:
        """Refuse a shipped walkthrough written for another map than the one the recipe plays."""
        wad_stem, _, map_name = name.partition("_")
        played_wad = Path(self.env.wad).stem.lower() if self.env.wad is not None else "freedoom1"
        if (wad_stem.lower(), map_name.upper()) != (played_wad, self.env.map.upper()):
            raise ConfigError(
                f"walkthrough {name!r} was written for {wad_stem} {map_name}, but the recipe plays "
                f"{played_wad} {self.env.map}: its steps would mislead the model",
                hint="give a walkthrough file for this map (walkthrough: my_map.md), or play the naive strategy, "
                "which needs none",
            )

    @property
    def agent_model(self) -> str:
        """Return the Agent's model string, or the strategy's name when no model plays."""
        if self.strategy == "external":
            return self.name  # who played: `mcp` (or the client's name), `human`
        return self.roles.agent.model if self.roles is not None else self.strategy

    def public_dict(self) -> dict[str, Any]:
        """Return the recipe as plain data for the run folder: secrets (keys in `extra`, headers, URL user
        info, anything named like a key or token) masked; `api_key_env` keeps the variable's name only."""
        data: dict[str, Any] = redact(self.model_dump(mode="json", exclude_none=True))
        return data
