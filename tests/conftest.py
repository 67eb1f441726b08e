"""Shared fixtures; every test runs offline: sockets may only reach loopback addresses."""

from __future__ import annotations

import os
import socket
import tempfile
from typing import Any

import pytest
from hypothesis import settings

# Property tests draw the same examples every run (CI judges one run: a test may not pass by luck).
settings.register_profile("doomagent", derandomize=True, database=None)
settings.load_profile("doomagent")

for _key, _value in {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "HF_HUB_OFFLINE": "1",
}.items():
    os.environ.setdefault(_key, _value)
# Plans are computed by the code under test, never read from a cache an earlier version left in ~/.cache.
os.environ["DOOMAGENT_PLAN_CACHE"] = tempfile.mkdtemp(prefix="doomagent-plans-")

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


# Tiers are marked per test: `engine` plays the real engine, `slow` needs none but takes seconds; the fast
# tier is -m "not engine and not slow". A test not marked `engine` that starts ViZDoom fails (below): graph
# machinery is tested there on FakeEnv.


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
