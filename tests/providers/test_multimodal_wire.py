"""Today's multimodal agents on the wire: the direct strategy's screens in order, tool calls as the action
channel, Anthropic's cache breakpoint and the cached tokens providers report, through LiteLLM to stub servers
speaking OpenAI's, Anthropic's and Gemini's formats on 127.0.0.1 (the graph plays FakeEnv)."""

import json

import pytest

from doomagent import FakeEnv, StubAnswer, load_recipe, run_trial
from doomagent.providers.stub_server import StubServer
from doomagent.rundir.log import read_jsonl

pytestmark = pytest.mark.slow  # real HTTP through LiteLLM, ~0.6 s a test: the second tier

MODELS = {"openai": "openai/gpt-4o", "anthropic": "anthropic/claude-sonnet-4-5", "gemini": "gemini/gemini-2.5-flash"}
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_BASE")


@pytest.fixture(autouse=True)
def _stub_key(monkeypatch):
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("STUB_KEY", "sk-stub-not-a-real-key")


def _play(kind, tmp_path, *sets, recipe="direct", reply=None, frames=10):
    """Play a direct recipe against a stub of `kind` (text answers unless `sets` say agent.structured=tools)."""
    with StubServer(kind, reply=reply or (lambda body: "SEEN: a hall\nACTION: UP\nREASON: onward")) as server:
        base = server.url + ("/v1" if kind == "openai" else "")
        roles = ("agent", "planner", "experts") if recipe != "direct" else ("agent",)
        overrides = [f"{r}.api_base={base}" for r in roles] + [f"{r}.api_key_env=STUB_KEY" for r in roles]
        text = [] if any(s.startswith("agent.structured=") for s in sets) else ["agent.structured=off"]
        loaded, folder = load_recipe(
            recipe, model=MODELS[kind], max_frames=frames, overrides=[*overrides, *text, *sets]
        )
        result = run_trial(loaded, recipe_dir=folder, out=tmp_path, make_env=FakeEnv)
    return result, server.requests


def _images(content):
    return [p for p in content if p.get("type") == "image_url"]


def test_the_direct_recipe_sends_its_screens_oldest_first_each_labelled(tmp_path):
    result, requests = _play("openai", tmp_path, "image_history=3")
    steps = read_jsonl(tmp_path / "steps.jsonl")
    assert result.decisions == 5 and not any(r.body.get("tools") for r in requests)
    for k, request in enumerate(requests):
        content = request.body["messages"][0]["content"]
        assert content[0]["type"] == "text" and "# Walkthrough of the level" in content[0]["text"]
        labels = [p["text"] for p in content[1:] if p.get("type") == "text"]
        earlier = steps[max(0, k - 2) : k]
        if not earlier:  # the first decision: one screen, no labels (the shape of a single-screen request)
            assert labels == [] and len(_images(content)) == 1
            continue
        assert labels == [f"frame {s['frame']}, then you pressed {s['action']}:" for s in earlier] + [
            f"frame {steps[k]['frame']}: now"
        ]
        assert len(_images(content)) == len(earlier) + 1
        assert all(p["image_url"]["url"].startswith("data:image/jpeg;base64,") for p in _images(content))
    assert [s["action"] for s in steps] == ["UP"] * 5


@pytest.mark.parametrize("kind", ["openai", "anthropic", "gemini"])
def test_tools_mode_sends_the_press_tool_with_a_required_choice_and_plays_the_call(kind, tmp_path):
    keys = iter(["LEFT", "FIRE", "USE", "RIGHT", "UP"])

    def reply(body):
        return StubAnswer(tool_calls=(("press", {"seen": "an imp", "key": next(keys), "reason": "aim"}),))

    result, requests = _play(kind, tmp_path, "agent.structured=tools", reply=reply)
    steps = read_jsonl(tmp_path / "steps.jsonl")
    assert [s["action"] for s in steps] == ["LEFT", "FIRE", "USE", "RIGHT", "UP"] and result.waits == 0
    assert all(s["reason"] == "aim" for s in steps)
    body = requests[0].body
    if kind == "gemini":
        (declaration,) = body["tools"][0]["function_declarations"]
        assert declaration["name"] == "press" and body["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"
        keys_enum = declaration["parameters"]["properties"]["key"]["enum"]
    else:
        (tool,) = body["tools"]
        schema = tool["function"]["parameters"] if kind == "openai" else tool["input_schema"]
        assert (tool["function"]["name"] if kind == "openai" else tool["name"]) == "press"
        assert body["tool_choice"] == ("required" if kind == "openai" else {"type": "any"})
        keys_enum = schema["properties"]["key"]["enum"]
    assert "STRAFE LEFT" in keys_enum and "WAIT" in keys_enum
    calls = read_jsonl(tmp_path / "calls.jsonl")
    assert calls[0]["tool_calls"] == [
        {"name": "press", "arguments": {"seen": "an imp", "key": "LEFT", "reason": "aim"}}
    ]


def test_a_reply_without_a_press_call_or_with_two_keys_is_a_logged_wait(tmp_path):
    replies = iter(
        [
            StubAnswer(text="I would go left"),  # no tool call at all
            StubAnswer(
                tool_calls=(("press", {"key": "LEFT", "reason": "a"}), ("press", {"key": "FIRE", "reason": "b"}))
            ),
            StubAnswer(tool_calls=(("press", {"key": "UP", "reason": "ok"}), ("press", {"key": "UP", "reason": "ok"}))),
        ]
    )
    result, _ = _play("openai", tmp_path, "agent.structured=tools", reply=lambda body: next(replies), frames=6)
    steps = read_jsonl(tmp_path / "steps.jsonl")
    assert [(s["action"], s["parse_ok"]) for s in steps] == [("WAIT", False), ("WAIT", False), ("UP", True)]
    assert result.waits == 2 and "LEFT" in steps[1]["raw"] and "FIRE" in steps[1]["raw"]
    errors = [c["error"]["type"] if c["error"] else None for c in read_jsonl(tmp_path / "calls.jsonl")]
    assert errors == ["no_tool_call", "unclear_tool_call", None]


def test_anthropic_requests_mark_the_stable_prefix_and_cached_tokens_reach_calls_and_cost(tmp_path):
    def reply(body):
        return StubAnswer(text="SEEN: a hall\nACTION: UP\nREASON: on", cached_tokens=1500, cache_write_tokens=0)

    result, requests = _play("anthropic", tmp_path / "cached", reply=reply, frames=4)
    first = requests[0].body["messages"][0]["content"]
    marked = [p for p in first if p.get("cache_control")]
    assert len(marked) == 1 and marked[0]["cache_control"] == {"type": "ephemeral"}
    assert "# Walkthrough of the level" in marked[0]["text"] and "# Your last moves" not in marked[0]["text"]
    assert first[1]["type"] == "text" and first[1]["text"].startswith("# Your last moves")
    calls = read_jsonl(tmp_path / "cached" / "calls.jsonl")
    assert all(c["cached_tokens"] == 1500 for c in calls)
    assert result.usage.roles["agent"].cached_tokens == 3000
    plain, _ = _play("anthropic", tmp_path / "plain", reply=lambda body: "SEEN: a\nACTION: UP\nREASON: on", frames=4)
    # the same prompt with 1500 of its tokens read from the cache is priced at the cache-read rate (a tenth)
    assert 0 < result.usage.totals.cost < plain.usage.totals.cost


def test_openai_requests_carry_no_cache_marks_and_report_cached_tokens(tmp_path):
    _, requests = _play("openai", tmp_path, reply=lambda body: StubAnswer(text="ACTION: UP", cached_tokens=64))
    content = requests[0].body["messages"][0]["content"]
    assert not any("cache_control" in p for p in content)
    assert [c["cached_tokens"] for c in read_jsonl(tmp_path / "calls.jsonl")] == [64] * 5
    assert json.loads((tmp_path / "summary.json").read_text())["usage"]["agent"]["cached_tokens"] == 320
