"""The test doubles keep the requests they are asked to keep, and a recipe's test model keeps none (a request
holds its screenshot's pixels: a long trial would hold every screen)."""

from doomagent import FakeEnv, load_recipe, run_trial
from doomagent.providers import ScriptedModel
from doomagent.providers.base import ModelRequest, user_message
from doomagent.providers.resolve import resolve_model
from doomagent.providers.testing import SeededTestModel


def _request(n: int) -> ModelRequest:
    return ModelRequest(role="agent", messages=[user_message(f"prompt {n}")], temperature=0.0, max_tokens=20)


def test_scripted_model_keeps_all_requests_by_default_and_the_newest_when_told() -> None:
    every, newest, none = ScriptedModel(["a"]), ScriptedModel(["a"], keep_calls=2), ScriptedModel(["a"], keep_calls=0)
    for n in range(5):
        for model in (every, newest, none):
            model.complete(_request(n))
    assert [c.text() for c in every.calls] == [f"[user]\nprompt {n}" for n in range(5)]
    assert [c.text().split("\n")[-1] for c in newest.calls] == ["prompt 3", "prompt 4"]
    assert none.calls == [] and none.served == 5  # answers still counted (checkpoints read `served`)


def test_a_recipes_test_model_keeps_no_requests_and_plays_as_before() -> None:
    model = resolve_model("test:3")
    assert isinstance(model, SeededTestModel) and model.keep_calls == 0
    recipe, _ = load_recipe("naive", model="test:3", vision_model="test:3", max_frames=60)
    kept = {"vision": SeededTestModel(3), "agent": SeededTestModel(3)}
    bare = {"vision": SeededTestModel(3, keep_calls=0), "agent": SeededTestModel(3, keep_calls=0)}
    first = run_trial(recipe, models=kept, make_env=FakeEnv)
    second = run_trial(recipe, models=bare, make_env=FakeEnv)
    assert len(kept["agent"].calls) == first.decisions > 0 and bare["agent"].calls == []
    assert (second.decisions, second.frames, second.room_frames) == (first.decisions, first.frames, first.room_frames)
