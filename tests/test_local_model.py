"""The embedded SmolLM2 model over real HTTP (llama.cpp's server on 127.0.0.1); needs the local extra."""

import json
import socket

from doomagent.env.actions import ACTION_NAMES
from doomagent.graph import run_trial
from doomagent.providers.local import LocalServer
from doomagent.recipes import load_recipe


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
    (server,) = servers
    assert server.process is None  # stopped
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", server.port)) != 0  # nothing listens any more
