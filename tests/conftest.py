"""Shared fixtures; every test runs offline: sockets may only reach loopback addresses."""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest

for _key, _value in {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "HF_HUB_OFFLINE": "1",
}.items():
    os.environ.setdefault(_key, _value)

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: Any) -> None:
    host = address[0] if isinstance(address, tuple) else address
    if (
        isinstance(host, str)
        and self.family in (socket.AF_INET, socket.AF_INET6)
        and not (host.startswith("127.") or host in ("localhost", "::1"))
    ):
        raise RuntimeError(f"tests must not reach the network (tried {address!r})")
    _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


# The engine tier: modules whose tests all play the real engine (others mark single tests `engine`).
ENGINE_MODULES = {
    "test_checkpoint",
    "test_cli_run",
    "test_docs",
    "test_env",
    "test_eval",
    "test_extend",
    "test_faults",
    "test_graph",
    "test_local_model",
    "test_paper_recipes",
    "test_perception",
    "test_realtime",
    "test_scale",
    "test_watch",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in ENGINE_MODULES:
            item.add_marker(pytest.mark.engine)


@pytest.fixture(autouse=True)
def _fast_tier_starts_no_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the fast tier honest: a test not marked `engine` may not start ViZDoom."""
    if request.node.get_closest_marker("engine") is not None:
        return

    def refuse(self: object) -> None:
        raise RuntimeError("a fast-tier test started the engine: mark it @pytest.mark.engine")

    monkeypatch.setattr("doomagent.env.doom_env.DoomEnv._make_game", refuse)


@pytest.fixture(scope="session")
def e1m1():
    """Return freedoom1 E1M1's geometry."""
    from doomagent.env import MapGeometry

    return MapGeometry.load("E1M1")


@pytest.fixture(scope="session")
def e1m1_rooms(e1m1):
    """Return freedoom1 E1M1's automatic rooms."""
    from doomagent.env.rooms import auto_rooms

    return auto_rooms(e1m1)
