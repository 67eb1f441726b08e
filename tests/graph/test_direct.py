"""The direct strategies: one vision-model Agent that sees the screen (no Vision role), with the Planner and the
Experts as in the paper's strategies; image history; tool-call answers (test models on FakeEnv)."""

import pytest
from helpers import scripted

from doomagent import ConfigError, FakeEnv, GraphBuilder, ScriptedModel, load_recipe, run_trial, stream_trial
from doomagent.rundir.log import read_jsonl


@pytest.mark.parametrize(
    ("name", "planner", "experts"), [("direct", 0, 0), ("direct-plan", 4, 0), ("direct-k-levels", 4, 6)]
)
def test_direct_recipes_call_one_seeing_agent_with_the_papers_cadence(name, planner, experts):
    recipe, folder = load_recipe(name, max_frames=120)
    models = {k: v for k, v in scripted(["SEEN: an imp ahead\nACTION: FIRE\nREASON: shoot"]).items() if k != "vision"}
    assert GraphBuilder.from_recipe(recipe).names[0] in ("planner", "experts", "agent")
    result = run_trial(recipe, models=models, recipe_dir=folder, make_env=FakeEnv)
    assert (result.decisions, result.waits) == (60, 0)
    assert [len(models[r].calls) for r in ("agent", "planner", "experts")] == [60, planner, experts]
    assert "vision" not in result.usage.roles
    agent_calls = models["agent"].calls
    assert all(c.has_image for c in agent_calls) and "# Walkthrough of the level" in agent_calls[0].text()
    if planner:  # the Planner reads what the Agent last said it saw
        assert "an imp ahead" in models["planner"].calls[1].text()
    if experts:
        assert all(c.has_image for c in models["experts"].calls)
        assert "Expert 1: LEFT" in agent_calls[0].text()


def _images(request):
    return [p for p in request.messages[0]["content"] if p.get("type") == "image"]


def test_image_history_sends_the_last_screens_oldest_first(tmp_path):
    recipe, folder = load_recipe("direct", max_frames=16, overrides=["image_history=3"])
    agent = ScriptedModel(["ACTION: LEFT", "ACTION: UP"])
    result = run_trial(recipe, models={"agent": agent}, recipe_dir=folder, out=tmp_path, make_env=FakeEnv)
    steps = read_jsonl(tmp_path / "steps.jsonl")
    assert result.decisions == 8 and [len(_images(c)) for c in agent.calls] == [1, 2, 3, 3, 3, 3, 3, 3]
    labels = [p["text"] for p in agent.calls[3].messages[0]["content"][1:] if p["type"] == "text"]
    assert labels == ["frame 2, then you pressed UP:", "frame 4, then you pressed UP:", "frame 6: now"]
    assert labels[0].endswith(f"pressed {steps[1]['action']}:")
    # each screen is the one that decision saw: the first decision's own screen comes back labelled later
    assert (_images(agent.calls[1])[0]["image"].pixels == _images(agent.calls[0])[0]["image"].pixels).all()


def test_image_history_survives_a_resume(tmp_path):
    recipe, folder = load_recipe("direct", max_frames=40, overrides=["image_history=2", "checkpoint_every=5"])
    with stream_trial(recipe, models={"agent": ScriptedModel(["ACTION: LEFT"])}, out=tmp_path, make_env=FakeEnv) as t:
        for decision in t:
            if decision.decision == 7:
                break
    agent = ScriptedModel(["ACTION: LEFT"])
    run_trial(recipe, models={"agent": agent}, out=tmp_path, resume=True, recipe_dir=folder, make_env=FakeEnv)
    assert len(_images(agent.calls[0])) == 2  # the replayed decision's screen is in the first resumed request


def test_tool_answers_from_the_test_model_are_played(tmp_path):
    recipe, folder = load_recipe("direct-k-levels", model="test", max_frames=20, overrides=["agent.structured=tools"])
    result = run_trial(recipe, recipe_dir=folder, out=tmp_path, make_env=FakeEnv)
    steps = read_jsonl(tmp_path / "steps.jsonl")
    assert result.waits == 0 and all(s["raw"].startswith('[{"name": "press"') for s in steps)


def test_direct_recipes_refuse_a_vision_role_and_need_their_planner():
    with pytest.raises(ConfigError, match="has no Vision role"):
        load_recipe("direct", overrides=["roles.vision={model: gpt-4o}"])
    with pytest.raises(ConfigError, match=r"needs roles\.planner"):
        load_recipe("direct-plan", overrides=["roles.planner=null"])
    with pytest.raises(ConfigError, match="image_history"):
        load_recipe("direct", overrides=["image_history=0"])
    recipe, _ = load_recipe("direct", overrides=["agent.structured=off"])  # YAML's bare `off` is the word
    assert recipe.roles is not None and recipe.roles.agent.structured == "off"
