"""The run context every node receives: the environment, the models, the prompts, the log and usage."""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

from doomagent.env.actions import Action
from doomagent.env.doom_env import DoomEnv
from doomagent.env.observation import Observation, draw_grid
from doomagent.errors import ConfigError
from doomagent.providers.base import (
    CountsImages,
    Gated,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    Screenshot,
    user_message,
)
from doomagent.providers.limits import Limits
from doomagent.providers.settings import RoleSettings
from doomagent.recipes import Recipe, did_you_mean
from doomagent.rundir.log import RunLog
from doomagent.rundir.usage import Usage
from doomagent.runtime.calls import Check, RoleGate, attempt, failure_of


class Options(TypedDict, total=False):
    """What a request may set beyond its role's settings (RunContext.request and .ask take them)."""

    image: bool
    temperature: float | None
    max_tokens: int | None
    schema: dict[str, Any] | None
    schema_name: str
    grammar: str | None
    tools: tuple[dict[str, Any], ...] | None
    frame: int | None


@dataclass(frozen=True)
class Answer:
    """What `RunContext.ask` got back: the text ("" when nothing usable came), and the raw response."""

    text: str
    ok: bool  # an answer arrived and passed the check
    response: ModelResponse | None = None


@dataclass
class RunContext:
    """Everything a node needs besides the state; nodes never build their own clients."""

    env: DoomEnv
    recipe: Recipe
    models: dict[str, Model]  # role -> model: only the roles whose nodes are in the graph
    log: RunLog
    walkthrough: str | None = None
    prompts_dir: Path | None = None
    observation: Observation | None = None  # the latest screen and HUD; kept out of graph state
    allowed: frozenset[Action] = field(default_factory=lambda: frozenset(Action))
    scratch: dict[str, object] = field(default_factory=dict)  # per-trial objects of custom nodes
    usage: Usage = field(default_factory=Usage)  # every call of every role, counted as it happens
    custom_keys: tuple[str, ...] = ()  # state keys beyond DoomState, recorded per decision in steps.jsonl
    limits: Limits | None = None  # the eval's shared rate limits and budget (None: no limits)
    think_s: float = 0.0  # model time of the decision so far (the real-time protocol turns it into frames)
    decision_started: float = 0.0  # perf_counter() when the decision began (the real-time wall clock)
    wait_frames: int = 0  # frames the game ran while the model thought (real-time protocol)
    # this decision's calls so far: (role, model name, the logged error or None); the runner reads and clears it
    decision_calls: list[tuple[str, str, dict[str, Any] | None]] = field(default_factory=list)
    # earlier screens for image history: (frame, pixels, the key pressed after it), oldest first
    screens: collections.deque[tuple[int, Any, str]] = field(default_factory=collections.deque)
    _image_tokens: dict[str, int] = field(default_factory=dict, repr=False)  # one screen's tokens, by role

    def image_tokens(self, role: str) -> int:
        """Return the input tokens the role's screens cost (the recipe's image_history of them), as its model's
        provider counts them (LiteLLM's count for real models; 0 for models that do not count)."""
        model = self.model(role)
        if not isinstance(model, CountsImages) or self.observation is None:
            return 0
        each = self._image_tokens.get(role)
        if each is None:
            i = self.role(role).image
            shot = Screenshot(self.observation.screen, i.format, i.quality, i.max_side, i.detail)
            each = self._image_tokens[role] = model.image_tokens(shot.data_url, i.detail or "auto")
        return each * self.recipe.image_history

    def remember_screen(self, observation: Observation, action: str) -> None:
        """Keep a decision's screen and the key pressed after it, for requests with image history."""
        keep = self.recipe.image_history - 1
        if keep > 0:
            self.screens.append((observation.frame, observation.screen, action))
            while len(self.screens) > keep:
                self.screens.popleft()

    def limit_key(self, role: str) -> str:
        """Return the name `role`'s model goes by in rate limits: the recipe's model string."""
        settings = self.recipe.roles.get(role) if self.recipe.roles is not None else None
        return settings.model if settings is not None else self.model(role).name

    def model(self, role: str) -> Model:
        """Return the model playing `role`."""
        try:
            return self.models[role]
        except KeyError:
            raise ConfigError(
                f"no model for role {role!r} in this graph{did_you_mean(role, sorted(self.models))} "
                f"(roles: {', '.join(sorted(self.models)) or 'none'})",
                hint=f"add roles.{role} to the recipe and declare it on the node: add_node(..., roles=[{role!r}])",
            ) from None

    def role(self, role: str) -> RoleSettings:
        """Return the recipe's settings for `role` (temperature, max_tokens, model, ...)."""
        settings = self.recipe.roles.get(role) if self.recipe.roles is not None else None
        if settings is None:
            known = [name for name, _ in self.recipe.roles.items()] if self.recipe.roles is not None else []
            raise ConfigError(
                f"the recipe has no role {role!r}{did_you_mean(role, known)}",
                hint=f"add roles.{role}: {{model: ...}} to it",
            )
        return settings

    @property
    def aim(self) -> int:
        """Return the columns of the aiming grid (env.grid), 0 when aiming is off."""
        return self.env.config.grid or 0

    @property
    def level(self) -> str:
        """Return the level's name for prompts."""
        return self.env.geometry.name

    @property
    def frame(self) -> int:
        """Return the current frame."""
        return self.observation.frame if self.observation is not None else 0

    def call(self, role: str, request: ModelRequest, check: Check | None = None) -> ModelResponse | None:
        """Send a request to `role`'s model: the one path every model call takes (built-in nodes and `ask`).

        The call is logged to calls.jsonl, counted in usage and against the eval's budget, held to the rate
        limits; it returns None after a provider failure (logged, not raised). `check` classifies an answer
        that arrived but is unusable (it is returned, and logged as that failure). Raises what ends the
        trial: FatalProviderError (auth, permission, ...), ModelServerError (the local server is gone).
        """
        model = self.model(role)
        gate: contextlib.AbstractContextManager[float] = contextlib.nullcontext(0.0)
        if self.limits is not None and not (isinstance(model, Gated) and model.gate is not None):
            gate = RoleGate(self.limits, self.limit_key(role), self.usage)(request)
        outcome = attempt(model, request, gate, check)
        self.log.call(outcome.record(request), request.text())
        self.think_s += outcome.latency_s
        self.decision_calls.append((request.role, model.name, outcome.error))
        response = outcome.response
        if self.limits is not None:
            self.limits.charge(1, (response.cost or 0.0) if response else 0.0)
        self.usage.add(request.role, outcome.usage())
        outcome.raise_if_fatal(request)
        return response

    def request(
        self,
        role: str,
        prompt: str | Sequence[Message],
        *,
        image: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
        schema: dict[str, Any] | None = None,
        schema_name: str = "output",
        grammar: str | None = None,
        tools: tuple[dict[str, Any], ...] | None = None,
        frame: int | None = None,
    ) -> ModelRequest:
        """Return a request to `role`'s model with the role's settings (arguments as for `ask`; `frame`
        defaults to the current one). Built-in nodes and `ask` build their requests here.

        With `image`, the current screenshot follows the text; with the recipe's `image_history` N > 1 the N-1
        screens before it come first, oldest first, each after a line naming its frame and the key pressed
        after it (then `frame F: now` before the current one)."""
        settings = self.role(role)
        if isinstance(prompt, str):
            messages: Sequence[Message] = [self._user_message(prompt, settings) if image else user_message(prompt)]
        else:
            messages = list(prompt)
        return ModelRequest(
            role=role,
            messages=messages,
            temperature=settings.temperature if temperature is None else temperature,
            max_tokens=settings.max_tokens if max_tokens is None else max_tokens,
            schema=schema,
            schema_name=schema_name,
            grammar=grammar,
            tools=tools,
            frame=self.frame if frame is None else frame,
        )

    def _seen(self, pixels: Any) -> Any:
        """Return a screen as models see it: with the aiming grid drawn on it when env.grid is set."""
        grid = self.env.config.grid
        return draw_grid(pixels, grid) if grid else pixels

    def _user_message(self, text: str, settings: RoleSettings) -> Message:
        if self.observation is None:
            raise ConfigError("a request with the screenshot before the first observation")
        i = settings.image
        now = Screenshot(self._seen(self.observation.screen), i.format, i.quality, i.max_side, i.detail)
        if not self.screens:
            return user_message(text, now)  # one screen: the text, then the image (as before image history)
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for frame, pixels, action in self.screens:
            parts.append({"type": "text", "text": f"frame {frame}, then you pressed {action}:"})
            shot = Screenshot(self._seen(pixels), i.format, i.quality, i.max_side, i.detail)
            parts.append({"type": "image", "image": shot})
        parts.append({"type": "text", "text": f"frame {self.observation.frame}: now"})
        parts.append({"type": "image", "image": now})
        return {"role": "user", "content": parts}

    def ask(
        self, role: str, prompt: str | Sequence[Message], *, check: Check | None = None, **options: Unpack[Options]
    ) -> Answer:
        """Call `role`'s model the way the built-in nodes do: logged to calls.jsonl, counted in usage and
        against the budget, retried on transient errors; a failure returns an Answer with ok=False.

        Args:
            role: a role of the recipe (built-in or custom, e.g. "critic").
            prompt: the user message's text, or whole chat messages.
            check: classify an arrived but unusable answer (return a failure type, or None when fine).
            options: what `request` takes: `image` (attach the current screenshot, with the role's image
                settings), `temperature` and `max_tokens` (override the role's), `schema` (a JSON schema the
                answer should follow, where the provider supports it) and `schema_name`, `grammar` (GBNF, for
                llama.cpp servers), `frame`.
        """
        request = self.request(role, prompt, **options)
        response = self.call(role, request, check)
        failed = response is None or failure_of(check, response) is not None
        return Answer(text=response.text if response is not None else "", ok=not failed, response=response)
