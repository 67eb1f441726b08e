"""`doomagent play`: a person plays a map in the browser, through the same frame semantics and room tracking as a
model, recorded as recipe `human` (strategy external) so `report` shows a human row beside the models.

Two protocols: `paused` (the paper's: the game waits, each key press is one decision) and `realtime` (35 tics a
second: every 2 tics the key held now is the decision, WAIT when none). Keys as in Doom: arrows walk and turn,
Alt + left/right strafe, Ctrl fires, Space uses, Shift runs, 1-7 pick a weapon.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from doomagent.env.actions import Action, parse_action
from doomagent.env.config import EnvConfig
from doomagent.players.external import ExternalGame, external_recipe, next_trial

STATIC = Path(__file__).with_name("static")
Protocol = Literal["paused", "realtime"]
TICS_PER_SECOND = 35


class HumanGame:
    """One person's game: an ExternalGame, and in real time a clock that plays the held key every decision."""

    def __init__(self, env: EnvConfig, out: Path, *, protocol: Protocol = "paused", seed: int = 0) -> None:
        recipe = external_recipe("human", env)
        self.game = ExternalGame(recipe, out, trial=next_trial(out), seed=seed)
        self.protocol = protocol
        self.held: Action | None = None
        self._lock = threading.Lock()
        self._clock: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> HumanGame:
        """Start the game (and the real-time clock)."""
        self.game.start()
        if self.protocol == "realtime":
            self._clock = threading.Thread(target=self._tick, name="human-clock", daemon=True)
            self._clock.start()
        return self

    def key(self, name: str, down: bool = True) -> dict[str, Any]:
        """Take a key: paused, a press is a decision (a release does nothing); real time, the held key changes."""
        action = parse_action(name)
        if self.protocol == "paused":
            if down and not self.game.over:
                with self._lock:
                    self.game.press(action, "key press")
        else:
            self.held = action if down else (None if self.held is action else self.held)
        return self.state()

    def state(self) -> dict[str, Any]:
        """Return what the page shows: frame, health, room, position, angle, outcome."""
        obs = self.game.observation()
        result = self.game.result
        return {
            "frame": obs.frame,
            "health": obs.hud.health,
            "room": obs.room,
            "x": round(obs.position[0], 1),
            "y": round(obs.position[1], 1),
            "angle": round(obs.angle, 1),
            "decisions": self.game.last.decision + 1 if self.game.last is not None else 0,
            "outcome": result.outcome.value if result is not None else None,
            "protocol": self.protocol,
            "folder": str(self.game.trial_folder),
        }

    def end(self) -> dict[str, Any]:
        """End the game; return its state."""
        self._stop.set()
        if self._clock is not None:
            self._clock.join(5)
        with self._lock:
            self.game.end()
        return self.state()

    def _tick(self) -> None:
        period = self.game.recipe.env.decision_frames / TICS_PER_SECOND
        due = time.perf_counter()
        while not self._stop.is_set() and not self.game.over:
            due += period
            with self._lock:
                if self.game.over:
                    break
                self.game.press(self.held or Action.WAIT, "held" if self.held else "")
            time.sleep(max(0.0, due - time.perf_counter()))


def make_app(game: HumanGame) -> Any:
    """Return the Starlette app of the play page."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Route

    no_store = {"Cache-Control": "no-store"}

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "play.html", headers=no_store)

    async def key(request: Request) -> Response:
        try:
            body = json.loads(await request.body() or b"{}")
            state = await asyncio.to_thread(game.key, str(body.get("key", "")), bool(body.get("down", True)))
        except Exception as exc:  # a key the game does not know, a game that is over: said, not crashed
            return JSONResponse({"error": str(exc).splitlines()[0]}, status_code=400)
        return JSONResponse(state, headers=no_store)

    async def state(request: Request) -> Response:
        return JSONResponse(game.state(), headers=no_store)

    async def screen(request: Request) -> Response:
        jpeg = game.game.observation().encode_image("jpeg", quality=80)
        return Response(jpeg, media_type="image/jpeg", headers=no_store)

    async def end(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(game.end), headers=no_store)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        game.end()

    routes = [
        Route("/", page),
        Route("/api/key", key, methods=["POST"]),
        Route("/api/state", state),
        Route("/api/screen", screen),
        Route("/api/end", end, methods=["POST"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
