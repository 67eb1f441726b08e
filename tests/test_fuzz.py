"""Property-based fuzzing: no recipe, --set value or WAD file raises anything but doomagent's typed errors
(action parsing is fuzzed in test_decisions.py)."""

import contextlib

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doomagent import DoomAgentError, load_recipe

# -- fuzzing ---------------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=20,
)
_KEYS = st.sampled_from(["name", "strategy", "roles", "env", "walkthrough", "actions", "budget", "perception", "agent"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_KEYS | st.text(max_size=8), _json, max_size=6))
@pytest.mark.slow
def test_any_recipe_yaml_loads_or_gives_a_typed_error(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "fuzz.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    with contextlib.suppress(DoomAgentError):
        load_recipe(path)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=4))
def test_any_set_values_load_or_give_a_typed_error(sets):
    with contextlib.suppress(DoomAgentError):
        load_recipe("naive", overrides=sets)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=2000))
def test_any_wad_bytes_read_or_give_a_typed_error(tmp_path_factory, raw):
    from doomagent.env.geometry import MapGeometry

    path = tmp_path_factory.mktemp("wad") / "fuzz.wad"
    path.write_bytes(raw)
    with contextlib.suppress(DoomAgentError):
        MapGeometry.load("E1M1", path)
