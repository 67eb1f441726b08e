"""Watch a run or eval live in the browser: `doomagent watch DIR` (extra `[watch]`: Starlette and uvicorn)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from doomagent.errors import ConfigError

__all__ = ["make_app", "serve"]


def make_app(folder: Path) -> Any:
    """Return the ASGI app showing `folder` (see doomagent.watch.app)."""
    _check_installed()
    from doomagent.watch.app import make_app as build

    return build(folder)


def serve(folder: Path, *, host: str = "127.0.0.1", port: int = 8765, on_ready: Any = None) -> None:
    """Serve the watch pages for `folder` until interrupted; `on_ready(url)` is called once listening."""
    app = make_app(folder)
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port}: {exc.strerror}", hint="pick another --port (0: any free one)"
        ) from None
    sock.listen(128)  # connections wait in the backlog until the server takes them: the address works at once
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    if on_ready is not None:
        on_ready(f"http://{shown}:{bound}/")
    server.run(sockets=[sock])


def _check_installed() -> None:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ConfigError(
            "doomagent watch needs Starlette and uvicorn", hint="pip install 'doomagent[watch]'"
        ) from None
