"""Shared fixtures; every test runs offline: sockets may only reach loopback addresses."""

from __future__ import annotations

import os
import socket
import tempfile
from typing import Any

import pytest

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


# Tests of those modules that need no engine (no game, no child process that starts one): the fast tier runs
# them. A test listed here that starts the engine fails (see _fast_tier_starts_no_engine).
PURE_TESTS = {
    "test_graph": {"test_builder_errors", "test_recursion_limit_grows_with_the_frame_budget"},
    "test_extend": {"test_custom_roles_in_recipes", "test_the_public_api_is_complete_and_typed"},
    "test_cli_run": {
        "test_bad_recipes_exit_2_with_one_clear_error",
        "test_missing_provider_key_exits_2",
        "test_unknown_recipe_name_lists_the_shipped_ones",
    },
    "test_perception": {
        "test_engine_report_lists_what_the_engine_sees",
        "test_audit_flags_a_made_up_enemy_and_a_wrong_health",
        "test_perception_needs_a_vision_role_unless_engine",
        "test_a_recipe_may_say_vision_engine_for_perception",
        "test_engine_report_names_the_exit_switch_in_view_from_the_map",
    },
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        pure = PURE_TESTS.get(item.path.stem, set())
        if item.path.stem in ENGINE_MODULES and getattr(item, "originalname", item.name) not in pure:
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
