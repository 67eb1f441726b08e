"""Provider faults survived and recorded; budget caps end trials cleanly."""

import json
from collections import Counter

import pytest

from doomagent.graph import run_trial
from doomagent.providers.stub_server import FAULTS, StubServer
from doomagent.recipes import load_recipe
from doomagent.rundir.log import read_jsonl

KIND = {
    "server_error": "server",
    "rate_limit": "rate_limit",
    "timeout": "timeout",
    "disconnect": "connection",
    "malformed_json": "malformed",
    "empty": "empty",
    "garbage": "garbage",
    "off_schema": "off_schema",
}


@pytest.mark.engine
def test_a_thousand_decisions_through_twenty_percent_faults(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # The healthy answers hold still at the start on the easiest skill, so the player lives 2,000 frames.
    with StubServer(fault_rate=0.2, seed=7, stall=1.0, reply=lambda body: "ACTION: WAIT\nREASON: hold") as server:
        recipe, _ = load_recipe(
            "naive",
            model="openai/stub",
            max_frames=2000,
            overrides=[
                "perception=engine",
                "roles.vision=null",
                f"agent.api_base={server.url}/v1",
                "agent.retries=0",
                "agent.timeout=0.4",
                "env.stuck_frames=100000000",
            ],
        )
        result = run_trial(recipe, out=tmp_path)
    assert result.outcome == "max_frames" and result.decisions == 1000
    faults = server.faults
    assert len(faults) == 1000 and set(faults) - {None} == set(FAULTS)
    assert 150 <= sum(f is not None for f in faults) <= 250
    calls = read_jsonl(tmp_path / "calls.jsonl")
    assert [c["error"]["type"] if c["error"] else None for c in calls] == [KIND.get(f) for f in faults]
    steps = read_jsonl(tmp_path / "steps.jsonl")
    waited = [s for s in steps if not s["parse_ok"]]  # decisions that got no action
    assert result.waits == len(waited) == sum(f is not None for f in faults)
    assert all(s["action"] == "WAIT" for s in waited)
    assert result.usage.roles["agent"].errors == result.waits
    print(Counter(faults))


@pytest.mark.engine
def test_budget_caps_end_the_trial_cleanly(tmp_path):
    recipe, _ = load_recipe(
        "naive", model="test", vision_model="test", max_frames=400, overrides=["budget.max_calls=10"]
    )
    result = run_trial(recipe, out=tmp_path)
    assert result.outcome == "budget" and result.decisions == 5
    assert result.usage.totals.calls == 10
    assert (tmp_path / "summary.json").is_file()


@pytest.mark.engine
def test_a_cost_cap_ends_the_trial_once_the_priced_calls_reach_it(tmp_path):
    # gpt-4o's price comes from LiteLLM's bundled cost map; the server is ours, on 127.0.0.1.
    with StubServer("openai") as server:
        sets = ["perception=engine", f"agent.api_base={server.url}/v1", "budget.max_cost=0.02"]
        recipe, _ = load_recipe("naive", model="openai/gpt-4o", max_frames=400, overrides=sets)
        result = run_trial(recipe, out=tmp_path)
    calls = read_jsonl(tmp_path / "calls.jsonl")
    assert result.outcome == "budget" and 0 < len(calls) < 200 and all(c["cost"] > 0 for c in calls)
    spent = sum(c["cost"] for c in calls)
    assert spent >= 0.02 > spent - calls[-1]["cost"]  # the call that crossed the cap was the last one
    assert json.loads((tmp_path / "summary.json").read_text())["outcome"] == "budget"
