"""The embedded SmolLM2 model over real HTTP (llama.cpp's server on 127.0.0.1); needs the local extra."""

import json
import socket

import pytest

from doomagent.env.actions import ACTION_NAMES
from doomagent.errors import ConfigError
from doomagent.graph import run_trial
from doomagent.providers.local import LocalServer, parse_local, prepare_weights
from doomagent.recipes import load_recipe


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    """Re-encoded weights go to a folder of this test session, not the user's cache."""
    monkeypatch.setenv("DOOMAGENT_CACHE", str(tmp_path_factory.getbasetemp() / "models"))


def _listening_addresses(port):
    """Return the local addresses listening on TCP `port` (from /proc/net/tcp and tcp6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:
                    found.append(address)
    return found


def test_smollm2_plays_a_short_episode_with_valid_actions_only(tmp_path, monkeypatch):
    servers = []
    original_start = LocalServer.start

    def spy(self):
        servers.append(self)
        started = original_start(self)
        addresses = _listening_addresses(self.port)
        assert addresses and all(a in ("0100007F", "00000000000000000000000001000000") for a in addresses), addresses
        return started

    monkeypatch.setattr(LocalServer, "start", spy)
    recipe, folder = load_recipe("local", max_frames=40)
    result = run_trial(recipe, out=tmp_path, recipe_dir=folder)
    assert result.decisions == 20 and result.waits == 0
    steps = [json.loads(x) for x in (tmp_path / "steps.jsonl").read_text().splitlines()]
    assert all(s["parse_ok"] and s["action"] in ACTION_NAMES for s in steps)
    calls = [json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 20 and all(c["error"] is None and c["model"] == "openai/smollm2" for c in calls)
    assert all(c["response"].startswith("ACTION: ") for c in calls)  # the grammar shaped every answer
    (server,) = servers
    assert server.process is None  # stopped
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", server.port)) != 0  # nothing listens any more


def test_weights_are_re_encoded_once_into_the_cache():
    first = prepare_weights("smollm2", "q8_0")
    assert first.suffixes[-2:] == [".q8_0", ".gguf"] and first.stat().st_size > 100_000_000
    stamp = first.stat().st_mtime_ns
    assert prepare_weights("smollm2", "q8_0") == first and first.stat().st_mtime_ns == stamp
    assert not list(first.parent.glob("*.part*"))  # no half-written file left behind
    assert prepare_weights("smollm2", "shipped").suffix == ".gguf" and prepare_weights("smollm2", "shipped") != first


def test_unknown_local_models_and_encodings_are_user_errors():
    assert parse_local("local/smollm2") == ("smollm2", "q8_0")
    assert parse_local("local/gemma3-270m:shipped") == ("gemma3-270m", "shipped")
    with pytest.raises(ConfigError, match="unknown local model 'tinyllama'"):
        parse_local("local/tinyllama")
    with pytest.raises(ConfigError, match="unknown weight encoding 'q2'") as err:
        parse_local("local/smollm2:q2")
    assert "q8_0" in err.value.hint


def test_gemma3_270m_is_served_with_its_chat_format_and_plays_valid_actions(tmp_path):
    recipe, folder = load_recipe("local", model="local/gemma3-270m", max_frames=12)
    result = run_trial(recipe, out=tmp_path, recipe_dir=folder)
    assert result.decisions == 6 and result.waits == 0
    calls = [json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert all(c["model"] == "openai/gemma3-270m" and c["response"].startswith("ACTION: ") for c in calls)
