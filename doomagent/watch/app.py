"""The watch server: a Starlette app over one run or eval folder, plain HTML/JS pages, JSON and pictures.

Routes: `/` (every trial as a card, and the running table), `/trial/<id>` (one trial), `/api/...` (the
JSON the pages read, the live screen, frames re-rendered from a finished trial's demo) and `/api/events`
(server-sent events: a number that changes whenever a watched file does).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from doomagent import rundir
from doomagent.watch.data import TrialView, Watched, map_data

STATIC = Path(__file__).with_name("static")
POLL_S = 0.5  # how often the server looks for changed files


def make_app(folder: Path) -> Any:
    """Return the ASGI app that shows `folder` (a run or eval folder); ConfigError if it is not one."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    watched = Watched.open(folder)
    frames = _Frames()
    no_store = {"Cache-Control": "no-store"}

    def env_key() -> str:
        return json.dumps(watched.env(), sort_keys=True)

    def trial_of(request: Request) -> TrialView:
        try:
            return watched.get(request.path_params["trial"])
        except KeyError:
            from starlette.exceptions import HTTPException

            raise HTTPException(404, "no such trial in this folder") from None

    def page(name: str) -> Any:
        async def serve(request: Request) -> Response:
            return FileResponse(STATIC / name, headers=no_store)

        return serve

    def info(request: Request) -> Response:
        return JSONResponse({"folder": str(watched.root), "map": map_data(env_key())["name"]})

    def overview(request: Request) -> Response:
        return JSONResponse(watched.overview(), headers=no_store)

    def world(request: Request) -> Response:
        # ?trial=ID: that trial's map (an eval over several maps holds trials of each).
        wanted = request.query_params.get("trial")
        return JSONResponse(map_data(trial_of_id(wanted).map_key() if wanted else env_key()))

    def trial_of_id(trial_id: str) -> TrialView:
        try:
            return watched.get(trial_id)
        except KeyError:
            from starlette.exceptions import HTTPException

            raise HTTPException(404, "no such trial in this folder") from None

    def trial(request: Request) -> Response:
        return JSONResponse(trial_of(request).detail(), headers=no_store)

    def steps(request: Request) -> Response:
        records = trial_of(request).steps.refresh()
        keep = ("decision", "frame", "room", "action", "reason", "parse_ok", "x", "y", "health")
        return JSONResponse([{k: s.get(k) for k in keep} for s in records], headers=no_store)

    def screen(request: Request) -> Response:
        path = trial_of(request).folder / "live" / "screen.jpg"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return Response(status_code=404)
        return Response(data, media_type="image/jpeg", headers=no_store)

    def frame(request: Request) -> Response:
        view = trial_of(request)
        records = view.steps.refresh()
        try:
            k = int(request.query_params.get("decision", "0"))
            step = records[k]
        except (ValueError, IndexError):
            return Response("decision out of range", status_code=400)
        if view.summary() is None or not (view.folder / rundir.DEMO).is_file():
            return Response("the trial has no demo yet (it is still playing)", status_code=409)
        jpeg = frames.render(view, int(step["frame"]))
        return Response(jpeg, media_type="image/jpeg", headers={"X-Action": str(step.get("action"))})

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            last = None
            while not await request.is_disconnected():
                version = await asyncio.to_thread(_version, watched)
                if version != last:
                    last = version
                    yield f"data: {json.dumps({'version': version})}\n\n"
                await asyncio.sleep(POLL_S)

        return StreamingResponse(stream(), media_type="text/event-stream", headers=no_store)

    routes = [
        Route("/", page("overview.html")),
        Route("/trial/{trial:path}", page("trial.html")),
        Route("/api/info", info),
        Route("/api/overview", overview),
        Route("/api/map", world),
        Route("/api/trial/{trial:path}", trial),
        Route("/api/steps/{trial:path}", steps),
        Route("/api/screen/{trial:path}", screen),
        Route("/api/frame/{trial:path}", frame),
        Route("/api/events", events),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        frames.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.watched = watched
    return app


def _version(watched: Watched) -> int:
    """Return a number that changes whenever a trial's logs, summary or live files change."""
    watched.scan()
    total = len(watched.trials)
    for view in watched.trials.values():
        for path in (view.steps.path, view.folder / rundir.SUMMARY, view.folder / "live" / "status.json"):
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            total += stat.st_size + stat.st_mtime_ns
    return total


class _Frames:
    """Engines replaying finished trials' demos, one per trial (the last few kept), to render frames."""

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._envs: OrderedDict[Path, Any] = OrderedDict()

    def render(self, view: TrialView, frame: int) -> bytes:
        """Return the JPEG of the screen at `frame` of the trial's demo."""
        from PIL import Image

        from doomagent.env.config import EnvConfig
        from doomagent.env.doom_env import DoomEnv

        with self._lock:
            env = self._envs.pop(view.folder, None)
            if env is None:
                summary = view.summary() or {}
                env = DoomEnv(EnvConfig.model_validate({**(summary.get("env") or {}), "max_frames": None}))
            self._envs[view.folder] = env
            while len(self._envs) > self.keep:
                self._envs.popitem(last=False)[1].close()
            obs = env.replay_at(view.folder / rundir.DEMO, frame)
            buffer = io.BytesIO()
            Image.fromarray(obs.screen).save(buffer, format="JPEG", quality=85)
            return buffer.getvalue()

    def close(self) -> None:
        """Stop the engines."""
        with self._lock:
            for env in self._envs.values():
                env.close()
            self._envs.clear()
