"""The graph's machinery in the fast tier: builder, routers, loops, gates, the WAIT fallback, episode ends and
model calls, played on FakeEnv (DoomEnv's own code over a pretend engine; the engine tier plays the real one)."""

import json
import operator
import sqlite3
from typing import Annotated

import pytest
from helpers import VISION, scripted

from doomagent import (
    NEXT,
    ConfigError,
    DoomState,
    FakeEnv,
    GraphBuilder,
    ProviderError,
    ScriptedModel,
    every_frames,
    load_recipe,
    run_trial,
    stream_trial,
)
from doomagent.errors import WadNotFoundError
from doomagent.graph.checkpoint import Checkpoint, Checkpointer, load_checkpoint
from doomagent.rundir.log import read_jsonl
from doomagent.runtime.state import merge_update, state_reducers


def test_fake_env_keeps_doomenvs_frame_semantics_rooms_and_outcomes():
    env = FakeEnv(map="E1M1", max_frames=40)
    obs, _ = env.reset(seed=3)
    start = obs.position
    obs, *_ = env.step("UP")  # a motion key is held 3 tics of a 2-tic decision: it runs into the next
    assert obs.frame == 2 and obs.position[0] > start[0] and obs.room == "A"
    obs, *_ = env.step("WAIT")
    assert obs.frame == 4 and obs.position[0] - start[0] == pytest.approx(24)  # 3 tics at 8 units
    turned, *_ = env.step("LEFT")
    assert turned.angle > obs.angle and not (turned.screen == obs.screen).all()
    while True:
        obs, _, terminated, truncated, info = env.step("WAIT")
        if terminated or truncated:
            break
    assert info["outcome"] == "max_frames" and truncated and env.frame == 40
    env.close()
    with pytest.raises(WadNotFoundError):  # maps are read once per process, a missing WAD is still named
        FakeEnv(wad="/nonexistent/doom.wad")
    dying = FakeEnv(map="E1M1", die_at=10)
    dying.reset()
    outcomes = [dying.step("UP")[4]["outcome"] for _ in range(5)]
    assert outcomes[-1] == "death" and outcomes[:-1] == [None] * 4


@pytest.mark.parametrize(
    ("name", "planner", "experts"), [("naive", 0, 0), ("walkthrough", 0, 0), ("plan", 4, 0), ("k-levels", 4, 6)]
)
def test_cadence_gates_over_120_frames(name, planner, experts):
    recipe, _ = load_recipe(name, max_frames=120)
    models = scripted()
    result = run_trial(recipe, models=models, make_env=FakeEnv)
    assert (result.frames, result.decisions, result.outcome) == (120, 60, "max_frames")
    assert [len(models[r].calls) for r in ("vision", "agent", "planner", "experts")] == [60, 60, planner, experts]
    if planner:
        assert [c.frame for c in models["planner"].calls] == [0, 30, 60, 90]
    if experts:
        assert [c.frame for c in models["experts"].calls] == [0, 0, 0, 60, 60, 60]
        assert "Expert 1: LEFT" in models["agent"].calls[0].text()


def test_unclear_answers_take_the_wait_edge_and_are_said_back(tmp_path):
    recipe, _ = load_recipe("naive", max_frames=8)
    models = scripted(["I would like to jump", "ACTION: UP\nREASON: fine"])
    result = run_trial(recipe, models=models, out=tmp_path, make_env=FakeEnv)
    steps = read_jsonl(tmp_path / "steps.jsonl")
    assert result.waits == 1 and steps[0]["action"] == "WAIT" and steps[0]["parse_ok"] is False
    assert steps[0]["nodes"] == ["vision", "agent", "wait", "act"] and steps[1]["nodes"] == ["vision", "agent", "act"]
    assert "WAIT was played" in models["agent"].calls[1].text()
    assert "WAIT was played" not in models["agent"].calls[2].text()


def test_model_calls_are_logged_counted_and_failures_wait(tmp_path):
    recipe, _ = load_recipe("naive", max_frames=6)
    models = scripted([ProviderError("boom", kind="server"), "ACTION: FIRE\nREASON: now"])
    result = run_trial(recipe, models=models, out=tmp_path, make_env=FakeEnv)
    calls = read_jsonl(tmp_path / "calls.jsonl")
    agent = [c for c in calls if c["role"] == "agent"]
    assert [c["error"]["type"] if c["error"] else None for c in agent] == ["server", None, None]
    assert agent[1]["response"] == "ACTION: FIRE\nREASON: now" and agent[1]["model"] == models["agent"].name
    usage = result.usage.roles["agent"]
    assert (usage.calls, usage.errors, usage.failed, result.waits) == (3, 1, 1, 1)


def test_ctx_call_is_the_one_path_for_custom_nodes_too(tmp_path):
    class Checked(DoomState, total=False):
        verdict: str

    def judge(state, runtime):
        answer = runtime.context.ask("agent", "Say OK.", check=lambda text: None if "OK" in text else "off_topic")
        return {"verdict": answer.text if answer.ok else "unusable"}

    recipe, _ = load_recipe("naive", max_frames=4)
    models = scripted(["ACTION: UP", "no", "ACTION: UP", "OK then"])
    builder = GraphBuilder.from_recipe(recipe, state=Checked).add_node("judge", judge, before="act")
    with stream_trial(recipe, models=models, builder=builder, out=tmp_path, make_env=FakeEnv) as trial:
        verdicts = [d.state["verdict"] for d in trial]
    assert verdicts == ["unusable", "OK then"]
    errors = [c["error"] and c["error"]["type"] for c in read_jsonl(tmp_path / "calls.jsonl") if c["role"] == "agent"]
    assert errors == [None, "off_topic", None, None]
    assert trial.result is not None and trial.result.usage.roles["agent"].errors == 1


def test_routers_branch_loop_and_custom_gates():
    class Notes(DoomState, total=False):
        objection: str | None
        reviews: Annotated[int, operator.add]
        review_frame: int | None

    def critic(state):
        return {"objection": "no" if state["action"] == "UP" and state.get("objection") is None else None}

    recipe, _ = load_recipe("plan", model="test", vision_model="test", max_frames=24)
    builder = (
        GraphBuilder.from_recipe(recipe, state=Notes)
        .add_router("vision", lambda s: "agent" if s["frame"] >= 10 else NEXT, targets=["agent"])
        .add_node("critic", critic, after="agent")
        .add_loop("critic", back_to="agent", when=lambda s: s.get("objection") is not None, max_times=1)
        .add_node(
            "review",
            lambda s: {"reviews": 1, "review_frame": s["frame"]},
            when=every_frames("review_frame", 8),
            before="act",
        )
    )
    models = {"vision": ScriptedModel([VISION]), "planner": ScriptedModel(["1. Go."])}
    models["agent"] = ScriptedModel(["ACTION: UP"])
    with stream_trial(recipe, models=models, builder=builder, make_env=FakeEnv) as trial:
        decisions = list(trial)
    first = decisions[0].nodes
    assert first[:2] == ("vision", "planner") and first.count("agent") == 2 and first.count("critic") == 2
    assert all(d.nodes[:2] == ("vision", "agent") for d in decisions[5:])  # the branch skips the planner
    assert [d.frame - 2 for d in decisions if "review" in d.nodes] == [0, 8, 16]
    assert decisions[-1].state["reviews"] == 3
    wrong = GraphBuilder.from_recipe(recipe).add_router("vision", lambda s: "nowhere", targets=["agent"])
    with pytest.raises(ConfigError, match="nowhere"):
        run_trial(recipe, models=models, builder=wrong, make_env=FakeEnv)


@pytest.mark.parametrize(
    ("script", "outcome", "decisions"), [({"die_at": 10}, "death", 5), ({"exit_at": 7}, "exit", 4)]
)
def test_the_episode_end_edge_stops_the_graph(script, outcome, decisions):
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=100)
    result = run_trial(recipe, make_env=FakeEnv.scripted(**script))
    assert (result.outcome, result.decisions) == (outcome, decisions)


def test_a_node_that_raises_ends_the_trial_as_error(tmp_path):
    def broken(state):
        if state["decision"] == 3:
            raise ValueError("the critic lost its notes")

    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=40)
    builder = GraphBuilder.from_recipe(recipe).add_node("critic", broken, before="act")
    with pytest.raises(ValueError, match="lost its notes"):
        run_trial(recipe, builder=builder, out=tmp_path, make_env=FakeEnv)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["outcome"], summary["error_kind"], summary["decisions"]) == ("error", "node", 3)


def test_two_identical_runs_write_byte_identical_step_logs(tmp_path):
    class Notes(DoomState, total=False):
        zebra: int
        apple: str

    logs = []
    for name in ("a", "b"):
        recipe, _ = load_recipe("k-levels", model="test", vision_model="test", max_frames=120)
        builder = GraphBuilder.from_recipe(recipe, state=Notes).add_node(
            "note", lambda s: {"zebra": s["decision"], "apple": "x" * (s["decision"] % 3)}, before="act"
        )
        run_trial(recipe, builder=builder, out=tmp_path / name, make_env=FakeEnv)
        logs.append((tmp_path / name / "steps.jsonl").read_bytes())
    assert logs[0] == logs[1] and len(logs[0].splitlines()) == 60


def test_merge_update_applies_the_graphs_reducers():
    class Notes(DoomState, total=False):
        seen: Annotated[list[str], operator.add]

    reducers = state_reducers(Notes)
    state = {"frame": 4, "history": [{"frame": 0}]}
    merge_update(state, {"frame": 6, "seen": ["a"], "history": [{"frame": 4}], "trace": ["vision"]}, reducers)
    merge_update(state, {"seen": ["b"], "trace": ["agent"]}, reducers)
    assert state["frame"] == 6 and state["seen"] == ["a", "b"] and state["trace"] == ["vision", "agent"]
    assert [h["frame"] for h in state["history"]] == [0, 4]


def test_a_library_trial_stopped_mid_way_resumes_to_the_unbroken_result(tmp_path):
    recipe, _ = load_recipe("plan", max_frames=60, overrides=["checkpoint_every=5"])
    whole = run_trial(recipe, models=scripted(), out=tmp_path / "whole", make_env=FakeEnv)
    cut = tmp_path / "cut"
    with stream_trial(recipe, models=scripted(), out=cut, make_env=FakeEnv) as trial:
        for decision in trial:
            if decision.decision == 12:
                break
    assert json.loads((cut / "checkpoint" / "meta.json").read_text())["decision"] == 10
    resumed = run_trial(recipe, models=scripted(), out=cut, resume=True, make_env=FakeEnv)
    assert (resumed.decisions, resumed.frames, resumed.room_frames) == (
        whole.decisions,
        whole.frames,
        whole.room_frames,
    )
    assert (cut / "steps.jsonl").read_bytes() == (tmp_path / "whole" / "steps.jsonl").read_bytes()


def test_the_checkpoint_database_holds_one_checkpoint(tmp_path):
    (tmp_path / "steps.jsonl").write_text("")
    saver = Checkpointer(tmp_path)
    for decision in (5, 10, 15):
        saver.save(
            Checkpoint(
                decision, decision * 2, 0, (1.0, 2.0), 100, {"steps.jsonl": 0}, {}, 0.0, state={"decision": decision}
            )
        )
    saver.close()
    with sqlite3.connect(tmp_path / "checkpoint" / "graph.sqlite") as db:
        assert db.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall() == [("decision-15",)]
    loaded = load_checkpoint(tmp_path)
    assert loaded is not None and loaded.decision == 15 and loaded.state == {"decision": 15}
    again = Checkpointer(tmp_path)  # a resumed trial replaces the checkpoint it went on from
    again.save(Checkpoint(20, 40, 0, (1.0, 2.0), 100, {"steps.jsonl": 0}, {}, 0.0, state={"decision": 20}))
    again.close()
    with sqlite3.connect(tmp_path / "checkpoint" / "graph.sqlite") as db:
        assert db.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall() == [("decision-20",)]
