"""`doomagent mcp`: Doom as Model Context Protocol tools, so an agent built elsewhere (Claude Desktop or Code, the
OpenAI Agents SDK, LangGraph's MCP adapters, ...) plays through the same harness and gets a row in the tables.

Tools: `new_game`, `look` (the screen as an image, the HUD and optionally the engine's facts as text), `press`
(one of the paper's actions, optionally repeated, with the client's reason), `status`, `end_game`; the map of
the game in progress is the resource `doomagent://map`. Each session plays one game at a time; every game is
a trial folder under the server's output folder (`<wad>_<map>/mcp__<client>/trial-NNN/`), so `report`,
`replay` and `watch` read it. Bad arguments are tool errors and the session goes on. Needs the `mcp` extra.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, Image  # the `mcp` extra: this module is imported only when it is there

from doomagent import rundir
from doomagent.env.config import EnvConfig
from doomagent.errors import DoomAgentError
from doomagent.players.external import ExternalGame, external_recipe, next_trial

MAX_REPEAT = 100
SHIPPED_WADS: dict[str, Path | None] = {"freedoom1": None, "freedoom2": Path("freedoom2.wad")}  # ViZDoom's own


@dataclass
class ServerSettings:
    """What `doomagent mcp` serves: where games go, their frame cap, and the WADs a client may pick."""

    out: Path
    max_frames: int = 20_000
    wads: dict[str, Path | None] = field(default_factory=lambda: dict(SHIPPED_WADS))  # name -> WAD (None: freedoom1)


class Games:
    """The games of every session of one server: one per session, each in a trial folder of its own."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self._games: dict[str, ExternalGame] = {}
        self._lock = threading.Lock()

    def get(self, session: str) -> ExternalGame:
        """Return the session's game; a tool error when it has none."""
        game = self._games.get(session)
        if game is None:
            raise _error("no game in this session: call new_game first")
        return game

    def new(self, session: str, client: str, env: EnvConfig, seed: int) -> ExternalGame:
        """Start a game for the session (one at a time) in the next free trial folder of its group."""
        old = self._games.get(session)
        if old is not None and not old.over:
            raise _error("this session's game is still playing: call end_game first (one game per session)")
        recipe = external_recipe("mcp", env)
        with self._lock:  # two sessions of one client never take the same trial number
            folder = self._group(client, recipe.public_dict())
            trial = next_trial(folder)
            (folder / f"trial-{trial:03d}").mkdir(parents=True)
        game = ExternalGame(recipe, folder, trial=trial, seed=seed)
        self._games[session] = game
        return game.start()

    def _group(self, client: str, recipe: dict[str, Any]) -> Path:
        env = recipe["env"]
        wad = Path(env["wad"]).stem.lower() if env.get("wad") else "freedoom1"
        base = self.settings.out / f"{wad}_{env['map']}" / f"mcp__{client}"
        recipe_file = base / rundir.RECIPE
        if not recipe_file.is_file() or json.loads(recipe_file.read_text(encoding="utf-8")) == recipe:
            return base
        digest = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:6]
        return base.with_name(f"{base.name}-{digest}")  # other settings (skill, frame cap): a group of their own

    def all(self) -> list[ExternalGame]:
        """Return every game, oldest first."""
        return list(self._games.values())

    def close(self) -> None:
        """End every game still playing."""
        for game in self._games.values():
            game.end()


def _error(message: str) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


def _session_key(ctx: Any) -> str:
    """Return what identifies the client's session: its MCP session id over HTTP, its connection over stdio (the
    SDK hands each request a session object of its own)."""
    try:
        headers = ctx.headers or {}
    except Exception:  # no HTTP request behind this call (stdio)
        headers = {}
    sid = headers.get("mcp-session-id") if hasattr(headers, "get") else None
    if sid:
        return f"http:{sid}"
    session = ctx.session
    return f"connection:{id(getattr(session, '_connection', session))}"


def _client(ctx: Any) -> str:
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    name = getattr(getattr(params, "client_info", None), "name", None) or "client"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(name))[:40].strip("-.") or "client"


def _state(game: ExternalGame) -> dict[str, Any]:
    obs = game.observation()
    result = game.result
    return {
        "frame": obs.frame,
        "health": obs.hud.health,
        "room": obs.room,
        "outcome": result.outcome.value if result is not None else None,
        "decisions": game.last.decision + 1 if game.last is not None else 0,
        "folder": str(game.trial_folder),
    }


def build_server(settings: ServerSettings) -> Any:
    """Return the MCP server (the official SDK's MCPServer) with doomagent's tools and the map resource."""
    from mcp.server import MCPServer

    tools = DoomTools(Games(settings))
    server = MCPServer(
        "doomagent",
        instructions="Play Doom: new_game, then look and press until the outcome is set; end_game to stop.",
    )
    for tool in (tools.new_game, tools.press, tools.status, tools.end_game):
        server.tool()(tool)
    server.tool(structured_output=False)(tools.look)
    server.resource("doomagent://map", name="map", mime_type="image/png")(tools.map_picture)
    server.games = tools.games  # type: ignore[attr-defined]  # for the CLI's cleanup
    return server


class DoomTools:
    """The tools, each a method the server registers (its docstring is what the client reads)."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self.settings = games.settings

    def new_game(
        self, ctx: Context, map: str = "E1M1", wad: str = "freedoom1", skill: int = 3, seed: int = 0, frame_cap: int = 0
    ) -> str:
        """Start a game: `map` of `wad` (freedoom1, freedoom2, or a WAD the server was given), `skill` 1-5, the
        engine's `seed`, and `frame_cap` frames at most (0: the server's cap)."""
        settings = self.settings
        if wad not in settings.wads:
            raise _error(f"wad {wad!r} is not one this server plays: {', '.join(settings.wads)} (never a path)")
        if not 1 <= skill <= 5:
            raise _error(f"skill {skill} is not 1 to 5")
        if frame_cap < 0 or frame_cap > settings.max_frames:
            raise _error(f"frame_cap {frame_cap} is not 0 to the server's cap {settings.max_frames}")
        try:
            env = EnvConfig(map=map, wad=settings.wads[wad], skill=skill, max_frames=frame_cap or settings.max_frames)
            from doomagent.env.geometry import MapGeometry

            MapGeometry.load(env.map, env.wad)  # a map the WAD lacks is refused before any folder is written
            game = self.games.new(_session_key(ctx), _client(ctx), env, seed)
        except (DoomAgentError, ValueError) as exc:
            raise _error(str(exc).splitlines()[0]) from None
        started = f"game started: {wad} {env.map}, skill {skill}, seed {seed}, frame cap {env.max_frames}; "
        return started + json.dumps(_state(game))

    def look(self, ctx: Context, facts: bool = False) -> list[Any]:
        """Return the screen (640x400 JPEG) and the HUD; with `facts`, also what the engine reports in view."""
        game = self.games.get(_session_key(ctx))
        obs = game.observation()
        text = "\n".join([f"frame {obs.frame}, room {obs.room or '-'}", *obs.hud.as_lines()])
        if facts:
            from doomagent.answers.perception import engine_report

            assert game.ctx is not None
            text += "\n\nENGINE FACTS:\n" + engine_report(obs, game.ctx.env.rooms).as_text()
        return [Image(data=obs.encode_image("jpeg", quality=85), format="jpeg"), text]

    def press(self, ctx: Context, action: str, repeat: int = 1, reason: str = "") -> str:
        """Press one of the paper's keys (UP, DOWN, LEFT, RIGHT, STRAFE LEFT, STRAFE RIGHT, FIRE, USE, WAIT,
        SPEED, 1-7) for `repeat` decisions (1-100); `reason` goes to the trial's log. Returns what changed."""
        game = self.games.get(_session_key(ctx))
        if not 1 <= repeat <= MAX_REPEAT:
            raise _error(f"repeat {repeat} is not 1 to {MAX_REPEAT}")
        before = _state(game)
        try:
            for _ in range(repeat):
                game.press(action, reason)
                if game.over:
                    break
        except DoomAgentError as exc:
            raise _error(str(exc).splitlines()[0]) from None
        after = _state(game)
        changed = {k: [before[k], v] for k, v in after.items() if v != before[k] and k != "folder"}
        return json.dumps({**after, "changed": changed})

    def status(self, ctx: Context) -> str:
        """Return the game's frame, health, room, decisions, outcome (null while playing) and folder."""
        return json.dumps(_state(self.games.get(_session_key(ctx))))

    def end_game(self, ctx: Context) -> str:
        """End the session's game (outcome `ended` if the episode was not over); return its summary."""
        result = self.games.get(_session_key(ctx)).end()
        if result is None:
            raise _error("the game left no summary")
        keep = ("outcome", "frames", "decisions", "room_frames", "rooms_entered", "progress")
        return json.dumps({k: v for k, v in result.model_dump(mode="json").items() if k in keep})

    def map_picture(self) -> bytes:
        """The map of the newest game with its rooms and the path walked so far."""
        playing = list(self.games.all())
        if not playing or playing[-1].ctx is None:
            raise _error("no game yet")
        return _map_png(playing[-1])


def _map_png(game: ExternalGame) -> bytes:
    import numpy as np

    from doomagent.env.mapplot import save_map
    from doomagent.rundir.log import read_jsonl

    assert game.ctx is not None
    steps = read_jsonl(game.trial_folder / rundir.STEPS)
    path = np.array([(s["x"], s["y"]) for s in steps] or [game.observation().position[:2]], dtype=float)
    return save_map(game.ctx.env.rooms, game.trial_folder / rundir.LIVE / "map.png", path=path).read_bytes()
