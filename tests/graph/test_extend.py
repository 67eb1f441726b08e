"""Open graphs as a user builds them: custom state, custom roles over real HTTP, loops, branches,
parallel steps, policy nodes, streaming, and the typed errors for what does not fit."""

import json
import operator
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest

import doomagent
from doomagent import (
    NEXT,
    Action,
    ConfigError,
    DoomState,
    GraphBuilder,
    ScriptedModel,
    SeededTestModel,
    every_frames,
    load_recipe,
    policy_node,
    run_trial,
    stream_trial,
)
from doomagent.providers.stub_server import StubServer

# Written from the README only, run from a folder outside the repository: a custom key that persists
# and gates a node, a critic loop whose role is served over HTTP on 127.0.0.1, a removed Planner whose
# gpt-4o model needs no key, 200 frames.
PROGRAM = """
import sys
from doomagent import DoomState, GraphBuilder, load_recipe, run_trial

class MyState(DoomState, total=False):
    objection: str | None
    objections: int
    last_review: int | None

def critic(state, runtime):
    answer = runtime.context.ask("critic", f"The player wants {state['action']}. Answer OK or say why not.")
    if not answer.ok or answer.text.strip().upper().startswith("OK"):
        return {"objection": None}
    return {"objection": answer.text, "objections": state.get("objections", 0) + 1,
            "feedback": "A critic objected: " + answer.text}

def review(state):
    return {"last_review": state["frame"]}

recipe, folder = load_recipe("plan", max_frames=200, overrides=[
    "vision.model=test", "agent.model=test:1",
    "roles.critic={model: openai/critic, temperature: 0.2, max_tokens: 40, api_base: '" + sys.argv[1] + "'}",
])
builder = (
    GraphBuilder.from_recipe(recipe, state=MyState)
    .remove_node("planner")
    .add_node("critic", critic, after="agent", roles=["critic"])
    .add_loop("critic", back_to="agent", when=lambda s: s.get("objection") is not None, max_times=1)
    .add_node("review", review, before="act", when=lambda s: s.get("objections", 0) % 5 == 4)
)
result = run_trial(recipe, builder=builder, out="run", recipe_dir=folder)
print(result.outcome, result.decisions, result.usage.roles["critic"].calls)
"""


@pytest.mark.engine
def test_a_program_from_the_readme_runs_outside_the_repo(tmp_path, monkeypatch):
    answers = iter(range(10**6))

    def reply(body):
        return "OK" if next(answers) % 3 == 0 else "Too hasty: look around first."

    (tmp_path / "program.py").write_text(PROGRAM)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.update(LITELLM_OFFLINE_MODE="true", HF_HUB_OFFLINE="1")  # and no OPENAI_API_KEY: gpt-4o is never built
    with StubServer(reply=reply) as server:
        done = subprocess.run(
            [sys.executable, "program.py", f"{server.url}/v1"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    outcome, decisions, critic_calls = done.stdout.split()
    assert (outcome, decisions) == ("max_frames", "100")
    assert int(critic_calls) == len(server.requests) > 100  # one per decision, more when it objected
    assert all(r.body["model"] == "critic" and r.body["temperature"] == 0.2 for r in server.requests)
    steps = [json.loads(line) for line in (tmp_path / "run" / "steps.jsonl").read_text().splitlines()]
    assert len(steps) == 100
    assert all(s["nodes"][:3] == ["vision", "agent", "critic"] and s["nodes"][-1] == "act" for s in steps)
    assert any(s["nodes"].count("agent") == 2 for s in steps)  # sent back once when the critic objected
    assert all(s["nodes"].count("agent") <= 2 for s in steps)  # never more (max_times=1)
    counts = [s["state"]["objections"] or 0 for s in steps]
    assert counts == sorted(counts) and counts[-1] > 10  # the custom key persists across decisions
    reviewed = [s for s in steps if "review" in s["nodes"]]
    assert reviewed and all((s["state"]["objections"] or 0) % 5 == 4 for s in reviewed)  # and gates a node
    calls = [json.loads(line) for line in (tmp_path / "run" / "calls.jsonl").read_text().splitlines()]
    critic = [c for c in calls if c["role"] == "critic"]
    assert len(critic) == int(critic_calls) and all(c["input_tokens"] and c["output_tokens"] for c in critic)
    assert not [c for c in calls if c["role"] == "planner"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["usage"]["critic"]["calls"] == int(critic_calls) and "planner" not in summary["usage"]


@pytest.mark.engine
def test_undeclared_keys_are_an_error_not_dropped():
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=6)
    builder = GraphBuilder.from_recipe(recipe).add_node("oops", lambda s: {"memroy": 1})
    with pytest.raises(ConfigError, match="does not declare: memroy") as info:
        run_trial(recipe, builder=builder)
    assert "DoomState" in info.value.hint
    with pytest.raises(ConfigError, match="lacks DoomState's keys"):
        GraphBuilder(state=dict)


@pytest.mark.engine
def test_custom_gate_on_a_custom_key_and_the_stream():
    class Counted(DoomState, total=False):
        ticks: Annotated[int, operator.add]
        tick_frame: int | None

    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=40)
    builder = GraphBuilder.from_recipe(recipe, state=Counted).add_node(
        "tick", lambda s: {"ticks": 1, "tick_frame": s["frame"]}, when=every_frames("tick_frame", 10)
    )
    with stream_trial(recipe, builder=builder) as trial:
        decisions = list(trial)
    assert [d.state["ticks"] for d in decisions][:7] == [1, 1, 1, 1, 1, 2, 2]
    assert [d.frame - 2 for d in decisions if "tick" in d.nodes] == [0, 10, 20, 30]
    assert trial.result is not None and trial.result.decisions == 20
    assert decisions[-1].calls == 40 and decisions[-1].usage.roles["agent"].calls == 20


@pytest.mark.engine
def test_closing_a_stream_early_writes_an_interrupted_summary(tmp_path):
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=200)
    with stream_trial(recipe, out=str(tmp_path)) as trial:
        for decision in trial:
            if decision.decision == 4:
                break
    assert trial.result is not None and trial.result.outcome == "interrupted" and trial.result.decisions == 5
    assert json.loads((tmp_path / "summary.json").read_text())["outcome"] == "interrupted"


@pytest.mark.engine
def test_parallel_members_run_in_one_step_and_join():
    class Notes(DoomState, total=False):
        notes: Annotated[list[str], operator.add]

    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=6)
    builder = GraphBuilder.from_recipe(recipe, state=Notes).add_parallel(
        "checks", {"a": lambda s: {"notes": ["a"]}, "b": lambda s: {"notes": ["b"]}}, after="vision"
    )
    with stream_trial(recipe, builder=builder) as trial:
        decisions = list(trial)
    assert all(set(d.nodes[1:3]) == {"a", "b"} and d.nodes[3] == "checks" for d in decisions)
    assert sorted(decisions[-1].state["notes"]) == ["a"] * 3 + ["b"] * 3
    with pytest.raises(ConfigError, match="at least two"):
        builder.add_parallel("solo", {"c": lambda s: None})


@pytest.mark.engine
def test_a_branch_skips_nodes_and_bad_router_answers_are_typed():
    recipe, _ = load_recipe("plan", model="test", vision_model="test", max_frames=20)
    builder = GraphBuilder.from_recipe(recipe).add_router(
        "vision", lambda s: "agent" if s["frame"] >= 10 else NEXT, targets=["agent"]
    )
    with stream_trial(recipe, builder=builder) as trial:
        nodes = [d.nodes for d in trial]
    assert nodes[0] == ("vision", "planner", "agent", "act")
    assert all(n == ("vision", "agent", "act") for n in nodes[5:])
    wrong = GraphBuilder.from_recipe(recipe).add_router("vision", lambda s: "nowhere", targets=["agent"])
    with pytest.raises(ConfigError, match="nowhere"):
        run_trial(recipe, builder=wrong)


@pytest.mark.engine
def test_policies_are_nodes():
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=30)
    plain = GraphBuilder.from_recipe(recipe).remove_node("vision").replace_node("agent", policy_node(lambda o: 0))

    class Bot:
        def act(self, observation):
            return "strafe left" if observation.frame % 4 else "nonsense"

    bot = GraphBuilder.from_recipe(recipe).remove_node("vision").replace_node("agent", policy_node(Bot()))
    result = run_trial(recipe, builder=plain)
    assert result.usage.totals.calls == 0 and result.waits == 0  # no model built or called
    with stream_trial(recipe, builder=bot) as trial:
        seen = [(d.action, d.parse_ok, d.nodes) for d in trial]
    assert seen[0] == ("WAIT", False, ("agent", "wait", "act"))
    assert seen[1] == (Action.STRAFE_LEFT.value, True, ("agent", "act"))
    with pytest.raises(ConfigError):
        policy_node()


def test_custom_roles_in_recipes(tmp_path, monkeypatch):
    (tmp_path / "mine.yaml").write_text(
        "name: mine\nstrategy: naive\nroles:\n  vision: {model: gpt-4o}\n  agent: {model: gpt-4o}\n"
        "  critic: {model: gpt-4o, temperature: 0.2}\n"
    )
    recipe, _ = load_recipe(tmp_path / "mine.yaml", model="test", overrides=["critic.max_tokens=33"])
    critic = recipe.roles.get("critic")
    assert critic is not None and critic.model == "test" and critic.max_tokens == 33  # --model reached it
    assert [name for name, _ in recipe.roles.items()] == ["vision", "agent", "critic"]
    with pytest.raises(ConfigError, match="role name"):
        load_recipe("naive", overrides=["roles.Bad-Name={model: test}"])
    with pytest.raises(ConfigError, match="temperature"):
        load_recipe("naive", overrides=["roles.critic={model: test, temperature: 9}"])
    # a node that calls a role the recipe lacks fails before the engine starts
    builder = GraphBuilder.from_recipe(recipe).add_node("judge", lambda s: None, roles=["judge"])
    with pytest.raises(ConfigError, match="role 'judge'"):
        run_trial(recipe, builder=builder)
    # given models must cover the graph's roles
    with pytest.raises(ConfigError, match="no model given for role"):
        run_trial(recipe, models={"agent": SeededTestModel(0)})


@pytest.mark.engine
def test_a_removed_role_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    recipe, _ = load_recipe("plan", vision_model="test", overrides=["agent.model=test"], max_frames=6)
    with pytest.raises(doomagent.UserError, match="OPENAI_API_KEY"):
        run_trial(recipe)  # the Planner's gpt-4o needs a key
    builder = GraphBuilder.from_recipe(recipe).remove_node("planner")
    assert builder.roles == {"vision", "agent"}
    assert run_trial(recipe, builder=builder).decisions == 3


@pytest.mark.engine
def test_the_agent_shows_the_plan_when_a_planner_is_in_the_graph():
    recipe, _ = load_recipe("walkthrough", max_frames=4)
    from doomagent.nodes import PlannerNode

    builder = GraphBuilder.from_recipe(recipe).add_node(
        "planner", PlannerNode(), after="vision", when=every_frames("plan_frame", 30)
    )
    recipe = recipe.model_copy(
        update={"roles": recipe.roles.model_copy(update={"planner": load_recipe("plan")[0].roles.planner})}
    )
    agent = ScriptedModel(["ACTION: UP\nREASON: go"])
    models = {"vision": SeededTestModel(0), "planner": ScriptedModel(["1. Find the door."]), "agent": agent}
    run_trial(recipe, builder=builder, models=models)
    assert "1. Find the door." in agent.calls[0].text()


def test_the_public_api_is_complete_and_typed():
    for name in doomagent.__all__:
        assert getattr(doomagent, name) is not None, name
    assert (Path(doomagent.__file__).parent / "py.typed").is_file()
    import inspect

    params = inspect.signature(run_trial).parameters
    assert {"trial", "seed", "out", "models", "builder", "recipe_dir", "on_progress", "full_prompts"} <= set(params)
    assert not any(p.kind == p.VAR_KEYWORD for p in params.values())
