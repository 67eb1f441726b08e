"""The top level exports every error and the names a program from the README needs (no engine)."""

import inspect

import doomagent
from doomagent import errors, graph
from doomagent.rundir import summary


def test_every_error_is_defined_in_one_module_and_exported():
    defined = {name for name, value in vars(errors).items() if inspect.isclass(value) and issubclass(value, Exception)}
    assert defined <= set(doomagent.__all__), defined - set(doomagent.__all__)
    for name in defined:
        assert getattr(doomagent, name) is getattr(errors, name)


def test_the_names_users_reach_for_are_exported_and_all_is_sorted_and_unique():
    for name in ("Event", "StubServer", "LiteLLMModel", "ModelServerError", "ProviderUnreachableError"):
        assert name in doomagent.__all__ and getattr(doomagent, name) is not None
    assert doomagent.__all__ == sorted(set(doomagent.__all__))
    assert not hasattr(graph, "Progress") and not hasattr(summary, "TrialSummary")


def test_misspelled_recipes_and_keys_get_a_did_you_mean():
    import pytest

    from doomagent import ConfigError, load_recipe

    with pytest.raises(ConfigError, match="recipe 'plna' not found; did you mean 'plan'"):
        load_recipe("plna")
    cases = {
        "agent.temprature=0.5": "roles.agent.temprature: Extra inputs are not permitted; did you mean 'temperature'",
        "env.mpa=E1M2": "env.mpa: Extra inputs are not permitted; did you mean 'map'",
        "checkpoint_evry=3": "did you mean 'checkpoint_every'",
        "agnet.model=x": "did you mean 'agent'",
    }
    for override, words in cases.items():
        with pytest.raises(ConfigError) as info:
            load_recipe("plan", overrides=[override])
        assert words in info.value.message, (override, info.value.message)


def test_a_shipped_walkthrough_for_another_map_is_refused():
    import pytest

    from doomagent import ConfigError, load_recipe

    recipe, folder = load_recipe("plan", overrides=["env.map=E1M2", "walkthrough=freedoom1_E1M1"])
    with pytest.raises(ConfigError, match="written for freedoom1 E1M1, but the recipe plays freedoom1 E1M2"):
        recipe.walkthrough_text(folder)
    same, folder = load_recipe("plan")
    assert "E1M1" in same.env.map and same.walkthrough_text(folder)


def test_an_auto_walkthrough_is_the_maps_own():
    """`walkthrough: auto` (the shipped recipes') reads the hand-written E1M1 text on E1M1 and writes one from
    the progression plan on a map without one; a recipe naming none reads auto too."""
    from doomagent import load_recipe
    from doomagent.recipes import shipped_walkthrough

    e1m1, folder = load_recipe("plan")
    assert e1m1.walkthrough == "auto"
    hand = shipped_walkthrough("freedoom1_E1M1")
    assert hand is not None and e1m1.walkthrough_text(folder) == hand.read_text().strip()
    other, folder = load_recipe("plan", overrides=["env.map=E1M4"])
    text = other.walkthrough_text(folder)
    assert text is not None and text != e1m1.walkthrough_text(folder)
    assert "the yellow keycard" in text and "the blue door" in text and text.index("yellow") < text.index("blue")
    unnamed = other.model_copy(update={"walkthrough": None})
    assert unnamed.walkthrough_auto and unnamed.walkthrough_text(folder) == text
