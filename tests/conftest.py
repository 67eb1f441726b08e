"""Shared fixtures; every test runs offline: sockets may only reach loopback addresses."""

from __future__ import annotations

import atexit
import os
import shutil
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
# Removed when the test session ends (runs the tests start as processes write there too).
os.environ["DOOMAGENT_PLAN_CACHE"] = tempfile.mkdtemp(prefix="doomagent-plans-")
atexit.register(shutil.rmtree, os.environ["DOOMAGENT_PLAN_CACHE"], ignore_errors=True)

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


@pytest.fixture(scope="session")
def e1m1_door(e1m1) -> tuple[int, tuple[float, float], tuple[float, float]]:
    """Return a door sector of freedoom1 E1M1 and a point on either side of it, in the sectors beyond."""
    import math

    import numpy as np

    g = e1m1
    for door in sorted(g.doors):
        for line in np.flatnonzero((g.line_front == door) ^ (g.line_back == door)):
            if g.line_back[line] < 0:
                continue
            (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
            mx, my = (ax + bx) / 2, (ay + by) / 2
            nx, ny = (by - ay) / math.hypot(bx - ax, by - ay), -(bx - ax) / math.hypot(bx - ax, by - ay)
            ends = []
            for sign in (1, -1):
                step = next(
                    (t for t in range(24, 160, 8) if g.sector_at(mx + sign * t * nx, my + sign * t * ny) != door),
                    None,
                )
                if step is None:
                    break
                ends.append((mx + sign * (step + 24) * nx, my + sign * (step + 24) * ny))
            sectors = [g.sector_at(*e) for e in ends]
            if len(ends) == 2 and sectors[0] != sectors[1] and not {door, -1} & set(sectors):
                return door, ends[0], ends[1]
    raise AssertionError("no door with open ground on both sides on E1M1")
