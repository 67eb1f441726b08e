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
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    api = _Api(Watched.open(folder))
    routes = [
        Route("/", api.page("overview.html")),
        Route("/trial/{trial:path}", api.page("trial.html")),
        Route("/api/info", api.info),
        Route("/api/overview", api.overview),
        Route("/api/map", api.world),
        Route("/api/trial/{trial:path}", api.trial),
        Route("/api/steps/{trial:path}", api.steps),
        Route("/api/screen/{trial:path}", api.screen),
        Route("/api/frame/{trial:path}", api.frame),
        Route("/api/events", api.events),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        api.frames.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.watched = api.watched
    return app


_NO_STORE = {"Cache-Control": "no-store"}


class _Api:
    """The routes' handlers over one watched folder (Starlette requests in, responses out)."""

    def __init__(self, watched: Watched) -> None:
        self.watched = watched
        self.frames = _Frames()

    def env_key(self) -> str:
        """Return the folder's environment settings as the map picture's cache key."""
        return json.dumps(self.watched.env(), sort_keys=True)

    def trial_of(self, trial_id: str) -> TrialView:
        """Return one trial of the folder; a 404 for an id it does not hold."""
        try:
            return self.watched.get(trial_id)
        except KeyError:
            from starlette.exceptions import HTTPException

            raise HTTPException(404, "no such trial in this folder") from None

    def page(self, name: str) -> Any:
        """Return a handler that serves a static page."""
        from starlette.responses import FileResponse

        async def serve(request: Any) -> Any:
            return FileResponse(STATIC / name, headers=_NO_STORE)

        return serve

    def info(self, request: Any) -> Any:
        """The folder and its map's name."""
        from starlette.responses import JSONResponse

        return JSONResponse({"folder": str(self.watched.root), "map": map_data(self.env_key())["name"]})

    def overview(self, request: Any) -> Any:
        """Every trial's card and the running table."""
        from starlette.responses import JSONResponse

        return JSONResponse(self.watched.overview(), headers=_NO_STORE)

    def world(self, request: Any) -> Any:
        """The map (?trial=ID: that trial's map; an eval over several maps holds trials of each)."""
        from starlette.responses import JSONResponse

        wanted = request.query_params.get("trial")
        return JSONResponse(map_data(self.trial_of(wanted).map_key() if wanted else self.env_key()))

    def trial(self, request: Any) -> Any:
        """One trial in detail."""
        from starlette.responses import JSONResponse

        return JSONResponse(self.trial_of(request.path_params["trial"]).detail(), headers=_NO_STORE)

    def steps(self, request: Any) -> Any:
        """A trial's decisions so far."""
        from starlette.responses import JSONResponse

        records = self.trial_of(request.path_params["trial"]).steps.refresh()
        keep = ("decision", "frame", "room", "action", "reason", "parse_ok", "x", "y", "health")
        return JSONResponse([{k: s.get(k) for k in keep} for s in records], headers=_NO_STORE)

    def screen(self, request: Any) -> Any:
        """A playing trial's latest screen."""
        from starlette.responses import Response

        path = self.trial_of(request.path_params["trial"]).folder / rundir.LIVE / "screen.jpg"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return Response(status_code=404)
        return Response(data, media_type="image/jpeg", headers=_NO_STORE)

    def frame(self, request: Any) -> Any:
        """A finished trial's frame at ?decision=K, rendered from its demo."""
        from starlette.responses import Response

        view = self.trial_of(request.path_params["trial"])
        records = view.steps.refresh()
        try:
            k = int(request.query_params.get("decision", "0"))
            step = records[k]
        except (ValueError, IndexError):
            return Response("decision out of range", status_code=400)
        if view.summary() is None or not (view.folder / rundir.DEMO).is_file():
            return Response("the trial has no demo yet (it is still playing)", status_code=409)
        jpeg = self.frames.render(view, int(step["frame"]))
        return Response(jpeg, media_type="image/jpeg", headers={"X-Action": str(step.get("action"))})

    async def events(self, request: Any) -> Any:
        """Server-sent events: a version number whenever a watched file changes."""
        from starlette.responses import StreamingResponse

        async def stream() -> AsyncIterator[str]:
            last = None
            while not await request.is_disconnected():
                version = await asyncio.to_thread(_version, self.watched)
                if version != last:
                    last = version
                    yield f"data: {json.dumps({'version': version})}\n\n"
                await asyncio.sleep(POLL_S)

        return StreamingResponse(stream(), media_type="text/event-stream", headers=_NO_STORE)


def _version(watched: Watched) -> int:
    """Return a number that changes whenever a trial's logs, summary or live files change."""
    watched.scan()
    total = len(watched.trials)
    for view in watched.trials.values():
        for path in (view.steps.path, view.folder / rundir.SUMMARY, view.folder / rundir.LIVE / "status.json"):
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
