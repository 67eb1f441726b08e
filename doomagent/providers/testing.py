"""Test doubles that answer like models: scripted by a function or a list, or seeded random."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from doomagent.providers.base import ModelRequest, ModelResponse, ToolCall

Reply = str | ModelResponse | BaseException
Script = Callable[[ModelRequest], Reply] | Iterable[Reply]


@dataclass
class ScriptedModel:
    """Answer each request from a function of it, or from a list in turn (the last answer repeats).

    An exception in the script is raised, as a provider failure would be. `latency` is the latency each
    answer reports, and a delay per call (time.sleep / asyncio.sleep) unless `sleep` is False: a virtual
    latency, for the real-time protocol's deterministic tests. Requests are kept in `calls` (the newest
    `keep_calls` of them; None keeps all, for tests). A request holds its screenshots' pixels, so a long trial
    with every request kept holds every screen: models built from recipes (`test`, `test:N`) keep none.
    """

    script: Script
    name: str = "scripted"
    latency: float = 0.0
    sleep: bool = True
    cost: float | None = None  # US dollars each answer reports (to try budgets)
    calls: list[ModelRequest] = field(default_factory=list)
    keep_calls: int | None = None  # how many of the newest requests `calls` keeps (None: all)
    served: int = 0  # answers given: where a list script stands

    def checkpoint_state(self) -> dict[str, Any]:
        """Return what the next answers depend on, for a trial's checkpoint."""
        return {"served": self.served}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Go on from a checkpoint's state."""
        self.served = int(state.get("served", 0))

    def __post_init__(self) -> None:
        if not callable(self.script):
            replies = list(self.script)
            if not replies:
                raise ValueError("ScriptedModel needs at least one reply")
            self._replies = replies

    def _reply(self, request: ModelRequest) -> ModelResponse:
        if self.keep_calls is None or self.keep_calls > 0:
            self.calls.append(request)
            if self.keep_calls is not None and len(self.calls) > self.keep_calls:
                del self.calls[0]
        self.served += 1
        if callable(self.script):
            reply = self.script(request)
        else:
            reply = self._replies[min(self.served - 1, len(self._replies) - 1)]
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, ModelResponse):
            return reply
        return ModelResponse(
            text=str(reply),
            model=self.name,
            latency_s=self.latency,
            input_tokens=len(request.text()) // 4,
            output_tokens=max(1, len(str(reply)) // 4),
            cost=self.cost,
        )

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer from the script."""
        if self.latency and self.sleep:
            time.sleep(self.latency)
        return self._reply(request)

    async def acomplete(self, request: ModelRequest) -> ModelResponse:
        """Answer from the script without blocking the loop."""
        if self.latency and self.sleep:
            await asyncio.sleep(self.latency)
        return self._reply(request)


_MOVES = ("UP", "UP", "UP", "LEFT", "RIGHT", "STRAFE LEFT", "STRAFE RIGHT", "FIRE", "USE", "DOWN")
_AIMS = re.compile(r"AIM 1 to AIM (\d+)")
_SIGHTS = ("a corridor ahead", "a door on the far wall", "an open room", "a wall close in front")


class SeededTestModel(ScriptedModel):
    """Answer every role plausibly with seeded randomness: reproducible, offline, free."""

    def __init__(
        self,
        seed: int = 0,
        *,
        latency: float = 0.0,
        sleep: bool = True,
        cost: float | None = None,
        name: str | None = None,
        keep_calls: int | None = None,
    ) -> None:
        self._rng = random.Random(seed)
        super().__init__(
            self._answer, name=name or f"test:{seed}", latency=latency, sleep=sleep, cost=cost, keep_calls=keep_calls
        )

    def checkpoint_state(self) -> dict[str, Any]:
        """Return the random generator's state (and the answers given), for a trial's checkpoint."""
        version, internal, gauss = self._rng.getstate()
        return {"served": self.served, "rng": [version, list(internal), gauss]}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Go on from a checkpoint's state."""
        super().restore_state(state)
        version, internal, gauss = state["rng"]
        self._rng.setstate((version, tuple(internal), gauss))

    def _answer(self, request: ModelRequest) -> str | ModelResponse:
        rng = self._rng
        if request.tools is not None:  # a tool-call answer: press a key (tools mode)
            key, why, sight = rng.choice(_MOVES), rng.choice(_SIGHTS), rng.choice(_SIGHTS)
            call = ToolCall("press", {"seen": sight, "key": key, "reason": why}, f'{{"key": "{key}"}}')
            return ModelResponse(text="", model=self.name, latency_s=self.latency, tool_calls=(call,), cost=self.cost)
        if request.role == "vision":
            sight = rng.choice(_SIGHTS)
            return (
                f'{{"room": "A grey room with {sight}.", "enemies": [], "items": [], "hazards": [], '
                '"hud": ["health 100%", "ammo 50"]}'
            )
        if request.role == "planner":
            return "1. Look for the door.\n2. Walk to it.\n3. Press USE to open it."
        moves: tuple[str, ...] = _MOVES
        grid = _AIMS.search(request.text())
        if grid is not None:  # aiming is on (env.grid): aims are moves too
            moves = _MOVES + tuple(f"AIM {k}" for k in range(1, int(grid.group(1)) + 1))
        if request.has_image:  # a direct strategy's Agent or Experts: what it saw first
            return f"SEEN: {rng.choice(_SIGHTS)}\nACTION: {rng.choice(moves)}\nREASON: {rng.choice(_SIGHTS)}"
        return f"ACTION: {rng.choice(moves)}\nREASON: {rng.choice(_SIGHTS)}"
