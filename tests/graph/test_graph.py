"""The agent graph with scripted models on the real engine."""

import numpy as np
import pytest
from helpers import scripted

from doomagent.env.actions import Action
from doomagent.graph import GraphBuilder, arun_trial, recursion_limit, run_trial
from doomagent.providers import SeededTestModel
from doomagent.recipes import REPO_RECIPES, load_recipe


@pytest.mark.engine
@pytest.mark.parametrize(
    ("name", "planner", "experts"), [("naive", 0, 0), ("walkthrough", 0, 0), ("plan", 4, 0), ("k-levels", 4, 6)]
)
def test_call_cadence_over_120_frames(name, planner, experts):
    recipe, _ = load_recipe(name, max_frames=120)
    models = scripted()
    result = run_trial(recipe, models=models)
    assert result.frames == 120 and result.decisions == 60 and result.outcome == "max_frames"
    assert len(models["agent"].calls) == 60
    assert len(models["vision"].calls) == 60
    assert len(models["planner"].calls) == planner
    assert len(models["experts"].calls) == experts
    assert result.usage.roles["agent"].calls == 60
    if experts:
        assert result.usage.roles["experts"].calls == experts
        assert [c.frame for c in models["experts"].calls] == [0, 0, 0, 60, 60, 60]
        assert "Expert 1: LEFT" in models["agent"].calls[0].text()
    if planner:
        assert [c.frame for c in models["planner"].calls] == [0, 30, 60, 90]
        assert "1. Walk east." in models["agent"].calls[1].text()


@pytest.mark.engine
def test_roles_carry_the_papers_settings():
    recipe, _ = load_recipe("k-levels", max_frames=4)
    models = scripted()
    run_trial(recipe, models=models)
    settings = {role: (m.calls[0].temperature, m.calls[0].max_tokens) for role, m in models.items()}
    assert settings == {"vision": (0.1, 2880), "planner": (0.1, 150), "experts": (0.9, 25), "agent": (0.9, 25)}
    assert models["vision"].calls[0].has_image
    assert not models["agent"].calls[0].has_image


@pytest.mark.engine
def test_garbage_answers_become_wait_and_are_fed_back(tmp_path):
    recipe, _ = load_recipe("naive", max_frames=8)
    models = scripted(["I would like to jump", "ACTION: UP\nREASON: fine"])
    result = run_trial(recipe, models=models, out=tmp_path)
    assert result.waits == 1
    from doomagent.rundir.log import read_jsonl

    steps = read_jsonl(tmp_path / "steps.jsonl")
    assert steps[0]["action"] == "WAIT" and steps[0]["parse_ok"] is False
    assert steps[0]["raw"] == "I would like to jump"
    assert all(s["action"] == "UP" and s["parse_ok"] for s in steps[1:])
    second_prompt = models["agent"].calls[1].text()
    assert "I would like to jump" in second_prompt and "WAIT was played" in second_prompt
    assert "WAIT was played" not in models["agent"].calls[2].text()
    assert "not understood, WAIT played" in second_prompt  # and in the history


@pytest.mark.engine
def test_no_answer_at_all_also_waits():
    from doomagent.providers import ProviderError

    recipe, _ = load_recipe("naive", max_frames=4)
    models = scripted([ProviderError("boom", kind="server")])
    result = run_trial(recipe, models=models)
    assert result.waits == 2 and result.usage.roles["agent"].errors == 2


@pytest.mark.engine
@pytest.mark.parametrize("path", sorted(REPO_RECIPES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_recipe_runs_a_few_decisions(path, tmp_path):
    recipe, folder = load_recipe(path, model="test:1", vision_model="test:2", max_frames=10)
    result = run_trial(recipe, out=tmp_path, recipe_dir=folder)
    assert result.decisions == 5
    calls = (tmp_path / "calls.jsonl").read_text().count("\n")
    if recipe.strategy == "reference":
        assert calls == 0
    elif recipe.perception == "engine":
        assert calls == 5  # the Agent alone
    elif recipe.direct:  # the seeing Agent each decision, and the Planner and Experts at frame 0
        assert calls == 5 + (recipe.strategy != "direct") + 3 * (recipe.strategy == "direct-k-levels")
    else:
        assert calls >= 10
    assert (tmp_path / "summary.json").is_file() and (tmp_path / "episode.lmp").is_file()


@pytest.mark.engine
def test_a_custom_graph_built_through_the_public_api():
    seen = []

    def memory(state):
        seen.append(state["frame"])
        rooms = sorted({h["room"] for h in state.get("history", []) if h["room"]})
        return {"vision": state["vision"] + f"\nMEMORY: rooms visited so far: {', '.join(rooms) or 'none'}"}

    recipe, _ = load_recipe("naive", max_frames=6)
    models = scripted()
    builder = GraphBuilder.from_recipe(recipe).add_node("memory", memory, after="vision")
    assert builder.names == ["vision", "memory", "agent", "wait", "act"]
    result = run_trial(recipe, models=models, builder=builder)
    assert seen == [0, 2, 4] and result.decisions == 3
    assert "MEMORY: rooms visited so far: A" in models["agent"].calls[-1].text()


@pytest.mark.engine
def test_replace_and_remove_nodes():
    def engine_vision(state, runtime):
        obs = runtime.context.observation
        return {"vision": f"health {obs.hud.health}, {len(obs.objects)} objects in view"}

    recipe, _ = load_recipe("plan", max_frames=4)
    models = scripted()
    builder = GraphBuilder.from_recipe(recipe).replace_node("vision", engine_vision).remove_node("planner")
    run_trial(recipe, models=models, builder=builder)
    assert models["vision"].calls == [] and models["planner"].calls == []
    assert "health 100, " in models["agent"].calls[0].text()


def test_builder_errors():
    from doomagent.errors import ConfigError

    recipe, _ = load_recipe("naive")
    b = GraphBuilder.from_recipe(recipe)
    with pytest.raises(ConfigError, match="no step named"):
        b.remove_node("planner")
    with pytest.raises(ConfigError, match="exists already"):
        b.add_node("agent", lambda s: {})
    with pytest.raises(ConfigError, match="cannot be removed"):
        b.remove_node("act")


@pytest.mark.engine
async def test_states_hold_no_images():
    recipe, _ = load_recipe("k-levels", max_frames=6)
    builder = GraphBuilder.from_recipe(recipe)
    states = []

    def spy(state):
        states.append(dict(state))
        return {}

    builder.add_node("spy", spy, before="act")
    await arun_trial(
        recipe, models={r: SeededTestModel(0) for r in ("vision", "planner", "experts", "agent")}, builder=builder
    )
    assert len(states) == 3

    def walk(value):
        assert not isinstance(value, np.ndarray | bytes | bytearray)
        if isinstance(value, str):
            assert "base64" not in value and len(value) < 20_000
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    walk(states)


def test_recursion_limit_grows_with_the_frame_budget():
    assert recursion_limit(100_000, 2, 6) > 300_000
    assert recursion_limit(120, 2, 6) >= 61 * 7


@pytest.mark.engine
def test_restricted_actions_are_enforced():
    recipe, _ = load_recipe("naive", max_frames=4, overrides=["actions=[UP, LEFT, WAIT]"])
    models = scripted(["ACTION: FIRE\nREASON: shoot", "ACTION: LEFT\nREASON: turn"])
    result = run_trial(recipe, models=models)
    assert result.waits == 1
    assert "Allowed answers: UP, LEFT, WAIT." in models["agent"].calls[0].text()
    assert Action.FIRE.value not in models["agent"].calls[0].text().split("Allowed answers:")[1].split("\n")[0]


@pytest.mark.engine
def test_a_recipe_can_bring_its_own_prompts(tmp_path):
    import shutil

    from doomagent.errors import ConfigError
    from doomagent.prompts import PROMPT_DIR

    prompts = tmp_path / "my_prompts"
    shutil.copytree(PROMPT_DIR, prompts, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    agent = prompts / "agent.j2"
    agent.write_text("MY OWN PROMPT\n" + agent.read_text())
    recipe_file = tmp_path / "mine.yaml"
    recipe_file.write_text(
        "name: mine\nstrategy: naive\nprompts_dir: my_prompts\n"
        "roles: {vision: {model: test}, agent: {model: test}}\nenv: {max_frames: 4}\n"
    )
    recipe, folder = load_recipe(recipe_file)
    models = scripted()
    run_trial(recipe, models=models, recipe_dir=folder)
    assert models["agent"].calls[0].text().count("MY OWN PROMPT") == 1

    agent.write_text("{{ no_such_variable }}")
    with pytest.raises(ConfigError, match="no_such_variable"):
        run_trial(recipe, models=scripted(), recipe_dir=folder)
