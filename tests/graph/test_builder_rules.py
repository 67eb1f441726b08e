"""The builder's promises, checked without the engine: stable custom keys, router targets checked at build,
and a node that raises ends its trial as `error` (that one plays the engine)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from doomagent import DoomState, GraphBuilder, load_recipe, run_trial
from doomagent.errors import ConfigError


class _Notes(DoomState, total=False):
    zebra: int
    apple: str
    mango: list[str]


def test_custom_keys_keep_their_declaration_order():
    recipe, _ = load_recipe("naive", model="test", vision_model="test")
    assert GraphBuilder.from_recipe(recipe, state=_Notes).custom_keys == ("zebra", "apple", "mango")


def test_router_targets_that_are_not_nodes_are_refused_when_the_graph_is_built():
    recipe, _ = load_recipe("naive", model="test", vision_model="test")
    builder = GraphBuilder.from_recipe(recipe).add_router("vision", lambda s: "agent", targets=["agent", "agnet"])
    with pytest.raises(ConfigError, match="'agnet', which is not a node of this graph") as info:
        builder.compile()
    assert "vision" in info.value.hint and "act" in info.value.hint


@pytest.mark.engine
def test_two_identical_runs_write_the_same_step_log_whatever_the_hash_seed(tmp_path):
    program = textwrap.dedent(
        """
        import sys
        from doomagent import DoomState, GraphBuilder, load_recipe, run_trial

        class Notes(DoomState, total=False):
            zebra: int
            apple: str
            mango: int

        def note(state):
            return {"zebra": state["decision"], "apple": "a" * (state["decision"] % 3), "mango": 7}

        recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=20)
        builder = GraphBuilder.from_recipe(recipe, state=Notes).add_node("note", note, before="act")
        run_trial(recipe, builder=builder, out=sys.argv[1])
        """
    )
    logs = []
    for seed in ("1", "2"):
        folder = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", program, str(folder)], check=True, env=env, timeout=120)
        logs.append((folder / "steps.jsonl").read_bytes())
    assert logs[0] == logs[1]
    assert list(json.loads(logs[0].splitlines()[0])["state"]) == ["zebra", "apple", "mango"]


@pytest.mark.engine
def test_a_node_that_raises_ends_the_trial_as_error(tmp_path):
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=40)

    def broken(state):
        if state["decision"] == 3:
            raise ValueError("the critic lost its notes")
        return None

    builder = GraphBuilder.from_recipe(recipe).add_node("critic", broken, before="act")
    with pytest.raises(ValueError, match="lost its notes"):
        run_trial(recipe, builder=builder, out=tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["outcome"] == "error" and summary["error_kind"] == "node"
    assert summary["error"] == "ValueError: the critic lost its notes" and summary["decisions"] == 3


class _Critic(DoomState, total=False):
    objection: str | None


@pytest.mark.engine
def test_an_objection_within_a_decision_is_not_carried_into_the_next(tmp_path):
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=12)

    def critic(state):
        return {"objection": "too risky", "feedback": "A critic objected: too risky. Choose again."}

    builder = (
        GraphBuilder.from_recipe(recipe, state=_Critic)
        .add_node("critic", critic, after="agent")
        .add_loop("critic", back_to="agent", when=lambda s: s.get("objection") is not None, max_times=1)
    )
    run_trial(recipe, builder=builder, out=tmp_path, full_prompts=True)
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    by_frame: dict[int, list[str]] = {}
    for call in calls:
        if call["role"] == "agent":
            by_frame.setdefault(call["frame"], []).append(call["prompt"])
    assert len(by_frame) == 6 and all(len(prompts) == 2 for prompts in by_frame.values())
    for first, second in by_frame.values():
        assert "A critic objected" not in first  # a new decision starts clean
        assert "A critic objected: too risky" in second
