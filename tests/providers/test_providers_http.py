"""Real HTTP through LiteLLM to chat servers started on 127.0.0.1 by the tests."""

import json

import pytest

from doomagent.graph import run_trial
from doomagent.providers import LiteLLMModel, MissingApiKeyError, ModelRequest, ProviderError, RoleSettings
from doomagent.providers.stub_server import StubServer
from doomagent.recipes import load_recipe

ROLES = ("vision", "planner", "experts", "agent")


@pytest.fixture(autouse=True)
def _no_cloud_keys(monkeypatch):
    for key in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OLLAMA_API_BASE", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def _kind_of(body):
    """Tell a request's role from what the server saw."""
    if body.get("messages") and isinstance(body["messages"][0].get("content"), list):
        return "vision"
    if body.get("messages") and body["messages"][0].get("images"):
        return "vision"
    tokens = body.get("max_tokens") or body.get("options", {}).get("num_predict")
    return {150: "planner", 25: "agent"}[tokens]


def _run(kind, model, tmp_path, extra=()):
    with StubServer(kind) as server:
        base = server.url + ("/v1" if kind == "openai" else "")
        sets = [f"{r}.api_base={base}" for r in ROLES] + list(extra)
        recipe, _ = load_recipe("k-levels", model=model, vision_model=model, max_frames=62, overrides=sets)
        result = run_trial(recipe, out=tmp_path)
    return result, server.requests


@pytest.mark.engine
def test_openai_compatible_server_gets_each_roles_settings_and_the_image(tmp_path):
    result, requests = _run("openai", "openai/stub", tmp_path)
    assert result.decisions == 31 and result.waits == 0
    assert all(r.path == "/v1/chat/completions" for r in requests)
    by_kind = {}
    for r in requests:
        by_kind.setdefault(_kind_of(r.body), []).append(r.body)
    assert {k: len(v) for k, v in by_kind.items()} == {"vision": 31, "planner": 3, "agent": 31 + 2 * 3}
    assert {(b["temperature"], b["max_tokens"]) for b in by_kind["vision"]} == {(0.1, 2880)}
    assert {(b["temperature"], b["max_tokens"]) for b in by_kind["planner"]} == {(0.1, 150)}
    assert {(b["temperature"], b["max_tokens"]) for b in by_kind["agent"]} == {(0.9, 25)}
    image = by_kind["vision"][0]["messages"][0]["content"][1]
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/jpeg;base64,/9j/")
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == len(requests)
    assert all(c["input_tokens"] > 0 and c["output_tokens"] > 0 and c["error"] is None for c in calls)


@pytest.mark.engine
def test_ollama_server_gets_options_and_images(tmp_path):
    result, requests = _run("ollama", "ollama_chat/stub", tmp_path)
    assert result.decisions == 31 and result.waits == 0
    # LiteLLM also asks /api/show for model details, as it would a real Ollama.
    assert {r.path for r in requests} <= {"/api/chat", "/api/show"}
    requests = [r for r in requests if r.path == "/api/chat"]
    vision = [r.body for r in requests if _kind_of(r.body) == "vision"]
    agent = [r.body for r in requests if _kind_of(r.body) == "agent"]
    planner = [r.body for r in requests if _kind_of(r.body) == "planner"]
    assert len(vision) == 31 and len(planner) == 3 and len(agent) == 37
    assert vision[0]["options"]["temperature"] == 0.1 and vision[0]["options"]["num_predict"] == 2880
    assert planner[0]["options"]["temperature"] == 0.1 and planner[0]["options"]["num_predict"] == 150
    assert agent[0]["options"]["temperature"] == 0.9 and agent[0]["options"]["num_predict"] == 25
    assert vision[0]["messages"][0]["images"][0].startswith("/9j/")  # base64 JPEG


@pytest.mark.engine
def test_json_schema_structured_output_is_requested(tmp_path):
    _, requests = _run("openai", "openai/stub", tmp_path, extra=["agent.structured=json_schema"])
    agent = [r.body for r in requests if r.body.get("response_format")]
    assert agent, "the agent asked for schema-constrained output"
    schema = agent[0]["response_format"]["json_schema"]["schema"]
    assert "UP" in schema["properties"]["action"]["enum"]


@pytest.mark.engine
def test_key_comes_from_the_named_variable_and_stays_out_of_logs(tmp_path, monkeypatch):
    secret = "sk-test-very-secret-0123456789"
    monkeypatch.setenv("DOOMAGENT_TEST_KEY", secret)
    _, requests = _run("openai", "openai/stub", tmp_path, extra=[f"{r}.api_key_env=DOOMAGENT_TEST_KEY" for r in ROLES])
    assert requests[0].headers["authorization"] == f"Bearer {secret}"
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".txt"):
            assert secret not in path.read_text()


@pytest.mark.slow  # imports LiteLLM (~5 s): the second tier
def test_missing_key_variable_is_a_user_error(monkeypatch):
    monkeypatch.delenv("NOPE_KEY", raising=False)
    with pytest.raises(MissingApiKeyError, match="NOPE_KEY"):
        LiteLLMModel(RoleSettings(model="gpt-4o", api_key_env="NOPE_KEY"))
    with pytest.raises(MissingApiKeyError, match="OPENAI_API_KEY"):
        LiteLLMModel(RoleSettings(model="gpt-4o"))
    with pytest.raises(MissingApiKeyError, match="ANTHROPIC_API_KEY"):
        LiteLLMModel(RoleSettings(model="anthropic/claude-3-5-sonnet-latest"))


def _request():
    return ModelRequest(role="agent", messages=[{"role": "user", "content": "go"}], temperature=0.9, max_tokens=25)


@pytest.mark.slow  # imports LiteLLM (~5 s): the second tier
def test_transient_errors_are_retried_then_succeed():
    answers = iter([(500, "overloaded"), (429, "slow down"), "ACTION: USE\nREASON: door"])
    with StubServer("openai", reply=lambda body: next(answers)) as server:
        model = LiteLLMModel(RoleSettings(model="openai/stub", api_base=server.url + "/v1", retries=3, backoff=0))
        response = model.complete(_request())
    assert response.text.startswith("ACTION: USE")
    assert len(server.requests) == 3


@pytest.mark.slow  # imports LiteLLM (~5 s): the second tier
def test_client_errors_are_not_retried():
    with StubServer("openai", reply=lambda body: (400, "bad request")) as server:
        model = LiteLLMModel(RoleSettings(model="openai/stub", api_base=server.url + "/v1", retries=3, backoff=0))
        with pytest.raises(ProviderError) as info:
            model.complete(_request())
    assert info.value.kind == "bad_request" and len(server.requests) == 1


@pytest.mark.slow  # imports LiteLLM (~5 s): the second tier
async def test_async_calls_and_connection_refused():
    with StubServer("openai") as server:
        url = server.url
        model = LiteLLMModel(RoleSettings(model="openai/stub", api_base=url + "/v1", retries=0))
        response = await model.acomplete(_request())
        assert response.input_tokens and response.latency_s > 0
    dead = LiteLLMModel(RoleSettings(model="openai/stub", api_base=url + "/v1", retries=1, backoff=0, timeout=5))
    with pytest.raises(ProviderError) as info:
        await dead.acomplete(_request())
    assert info.value.kind == "connection"


@pytest.mark.engine
def test_grammar_mode_sends_a_gbnf_for_decisions_and_a_schema_for_plans(tmp_path):
    sets = ["agent.structured=grammar", "experts.structured=grammar", "planner.structured=grammar"]
    result, requests = _run("openai", "openai/stub", tmp_path, extra=sets)
    decisions = [r.body for r in requests if "grammar" in r.body]
    assert len(decisions) == result.usage.roles["agent"].calls + result.usage.roles["experts"].calls
    grammar = decisions[0]["grammar"]
    assert grammar.startswith('root ::= "ACTION: " action') and '"STRAFE LEFT" | ' in grammar
    assert "JSON" not in decisions[0]["messages"][0]["content"]  # the prompt asks for the two-line answer
    plans = [r.body for r in requests if r.body.get("max_tokens") == 150]
    assert plans and all(b["response_format"]["type"] == "json_object" for b in plans)
