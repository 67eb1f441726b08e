"""Other players: `doomagent mcp` (Doom as MCP tools, over stdio for Claude Desktop/Code and other MCP clients, or
streamable HTTP on 127.0.0.1) and `doomagent play` (a person, in the browser)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from doomagent.cli._common import _fail, app, err
from doomagent.errors import ConfigError, DoomAgentError


@app.command("mcp")
def mcp_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="where games' trial folders go")] = Path("runs/mcp"),
    http: Annotated[bool, typer.Option("--http", help="serve streamable HTTP instead of stdio")] = False,
    port: Annotated[int, typer.Option(min=0, max=65535, help="HTTP port (0: any free one)")] = 8766,
    max_frames: Annotated[int, typer.Option("--max-frames", min=2, help="the most frames a game may play")] = 20_000,
    wads: Annotated[
        list[Path] | None, typer.Option("--wad", help="another WAD clients may pick, by its name (doom.wad: doom)")
    ] = None,
) -> None:
    """Serve Doom as MCP tools (new_game, look, press, status, end_game; the map as a resource); every game is a
    trial folder under --out that report, replay and watch read."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        _fail(ConfigError("doomagent mcp needs the MCP SDK", hint="pip install 'doomagent[mcp]'"))
    from doomagent.players.mcp_server import SHIPPED_WADS, ServerSettings, build_server

    known: dict[str, Path | None] = dict(SHIPPED_WADS)
    for wad in wads or []:
        if not wad.is_file():
            _fail(ConfigError(f"--wad {wad}: no such file"))
        known[wad.stem.lower()] = wad.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    server = build_server(ServerSettings(out=out_dir.resolve(), max_frames=max_frames, wads=known))
    try:
        if http:
            _serve_http(server, port)
        else:
            err.print(f"doomagent mcp: stdio, games in {out_dir}")  # stdout carries the protocol
            server.run("stdio")
    except DoomAgentError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        err.print("stopped")
    finally:
        server.games.close()


def _serve_http(server: object, port: int) -> None:
    import uvicorn

    sock = _listen(port)
    app = server.streamable_http_app()  # type: ignore[attr-defined]
    print(f"doomagent mcp: streamable HTTP at http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])


@app.command("play")
def play_cmd(
    map_name: Annotated[str, typer.Option("--map", help="the map to play")] = "E1M1",
    wad: Annotated[Path | None, typer.Option(help="IWAD (default freedoom1.wad)")] = None,
    skill: Annotated[int, typer.Option(min=1, max=5)] = 3,
    seed: Annotated[int, typer.Option(help="the engine's seed")] = 0,
    protocol: Annotated[
        str, typer.Option(help="paused: each key press is a decision (the paper's); realtime: 35 tics a second")
    ] = "paused",
    max_frames: Annotated[int, typer.Option("--max-frames", min=2, help="frame cap")] = 20_000,
    out_dir: Annotated[Path, typer.Option("--out", help="where the trial goes")] = Path("runs/human"),
    port: Annotated[int, typer.Option(min=0, max=65535, help="port on 127.0.0.1 (0: any free one)")] = 8767,
) -> None:
    """Play a map yourself in the browser; the game is recorded as recipe `human` and scored like a model's."""
    from doomagent.env.config import EnvConfig
    from doomagent.env.geometry import MapGeometry
    from doomagent.players.human import HumanGame, make_app

    if protocol not in ("paused", "realtime"):
        _fail(ConfigError(f"--protocol {protocol!r} is not paused or realtime"))
    try:
        env = EnvConfig(map=map_name, wad=wad, skill=skill, max_frames=max_frames)
        geometry = MapGeometry.load(env.map, env.wad)
        stem = geometry.wad_path.stem.lower()
        game = HumanGame(env, out_dir / f"{stem}_{env.map}" / "human", protocol=protocol, seed=seed)  # type: ignore[arg-type]
        game.start()
    except (DoomAgentError, ValueError) as exc:
        _fail(exc if isinstance(exc, DoomAgentError) else ConfigError(str(exc)))
    import uvicorn

    sock = _listen(port)
    print(f"doomagent play: {stem} {env.map} ({protocol}) at http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    try:
        uvicorn.Server(uvicorn.Config(make_app(game), log_level="warning", lifespan="on")).run(sockets=[sock])
    finally:
        state = game.end()
        err.print(f"trial in {state['folder']}: {state['decisions']} decisions, outcome {state['outcome']}")


def _listen(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}", hint="pick another --port") from None
    sock.listen(128)
    return sock
