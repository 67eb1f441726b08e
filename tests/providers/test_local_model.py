"""The embedded SmolLM2 model over real HTTP (llama.cpp's server on 127.0.0.1); needs the local extra."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from doomagent.env.actions import ACTION_NAMES
from doomagent.errors import ConfigError
from doomagent.graph import run_trial
from doomagent.providers.local import LocalServer, _free_port, parse_local, prepare_weights
from doomagent.recipes import load_recipe

CLI = [sys.executable, "-c", "from doomagent.cli import main; main()"]


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


def _loopback_only(port):
    """Return True if something listens on `port`, on 127.0.0.1 or ::1 only."""
    addresses = _listening_addresses(port)
    return bool(addresses) and all(a in ("0100007F", "00000000000000000000000001000000") for a in addresses)


@pytest.mark.engine
def test_smollm2_plays_a_short_episode_with_valid_actions_only(tmp_path, monkeypatch):
    servers = []
    original_start = LocalServer.start

    def spy(self):
        servers.append(self)
        started = original_start(self)
        assert _loopback_only(self.port)
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


@pytest.mark.engine
def test_weights_are_re_encoded_once_into_the_cache():
    first = prepare_weights("smollm2", "q8_0")
    assert first.suffixes[-2:] == [".q8_0", ".gguf"] and first.stat().st_size > 100_000_000
    stamp = first.stat().st_mtime_ns
    assert prepare_weights("smollm2", "q8_0") == first and first.stat().st_mtime_ns == stamp
    assert not list(first.parent.glob("*.part*"))  # no half-written file left behind
    assert prepare_weights("smollm2", "shipped").suffix == ".gguf" and prepare_weights("smollm2", "shipped") != first


@pytest.mark.engine
def test_unknown_local_models_and_encodings_are_user_errors():
    assert parse_local("local/smollm2") == ("smollm2", "q8_0")
    assert parse_local("local/gemma3-270m:shipped") == ("gemma3-270m", "shipped")
    with pytest.raises(ConfigError, match="unknown local model 'tinyllama'"):
        parse_local("local/tinyllama")
    with pytest.raises(ConfigError, match="unknown weight encoding 'q2'") as err:
        parse_local("local/smollm2:q2")
    assert "q8_0" in err.value.hint


@pytest.mark.engine
def test_gemma3_270m_is_served_with_its_chat_format_and_plays_valid_actions(tmp_path):
    recipe, folder = load_recipe("local", model="local/gemma3-270m", max_frames=12)
    result = run_trial(recipe, out=tmp_path, recipe_dir=folder)
    assert result.decisions == 6 and result.waits == 0
    calls = [json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert all(c["model"] == "openai/gemma3-270m" and c["response"].startswith("ACTION: ") for c in calls)


@pytest.mark.engine
def test_serve_answers_on_loopback_until_stopped_and_refuses_unknown_weights(tmp_path):
    bad = subprocess.run([*CLI, "serve", "--weights", "q2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown weight encoding 'q2'" in bad.stderr + bad.stdout
    port = _free_port()
    proc = subprocess.Popen(
        [*CLI, "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = proc.stdout.readline()  # printed once the server answers (blocks until then, or until exit)
        assert first.startswith(f"serving smollm2 at http://127.0.0.1:{port}/v1"), first + proc.stdout.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as answer:
            assert "smollm2" in answer.read().decode()
        assert _loopback_only(port)
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and output.rstrip().endswith("stopped")
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def _alive(pid):
    """Return True if process `pid` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line for line in f)
    except FileNotFoundError:
        return False


@pytest.mark.engine
def test_the_server_dies_with_its_parent_even_on_sigkill():
    code = (
        "import time; from doomagent.providers.local import LocalServer; "
        "s = LocalServer().start(); print(s.process.pid, flush=True); time.sleep(600)"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        assert _alive(pid)
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(pid)


@pytest.mark.engine
def test_the_server_loads_weights_without_repacking_unless_asked(monkeypatch):
    with LocalServer() as server:
        cmdline = Path(f"/proc/{server.process.pid}/cmdline").read_text().split("\0")
    assert cmdline[cmdline.index("--repack") + 1] == "off"  # AMX CPUs crash on repacked weights
    monkeypatch.setenv("DOOMAGENT_LOCAL_REPACK", "on")
    assert LocalServer().repack is True
    monkeypatch.setenv("DOOMAGENT_LOCAL_REPACK", "yes")
    with pytest.raises(ConfigError, match="DOOMAGENT_LOCAL_REPACK='yes' is not on or off"):
        LocalServer()


def _llama_servers(pid):
    """Return the pids of llama.cpp servers among the descendants of `pid`."""
    from doomagent._internal.proc import descendants

    found = []
    for child in descendants(pid):
        try:
            if "_llama_server" in Path(f"/proc/{child}/cmdline").read_text():
                found.append(child)
        except OSError:
            continue
    return found


@pytest.mark.engine
def test_a_server_that_dies_mid_trial_ends_it_at_once_with_its_log(tmp_path, monkeypatch):
    from doomagent import GraphBuilder

    servers = []
    original_start = LocalServer.start

    def spy(self):
        servers.append(self)
        return original_start(self)

    def kill_server(state):
        if state["decision"] == 5:
            servers[0].process.kill()
            servers[0].process.wait()
        return None

    monkeypatch.setattr(LocalServer, "start", spy)
    recipe, folder = load_recipe("local", max_frames=200)
    builder = GraphBuilder.from_recipe(recipe).add_node("saboteur", kill_server, before="agent")
    result = run_trial(recipe, builder=builder, out=tmp_path, recipe_dir=folder)
    assert result.outcome == "error" and result.error_kind == "model_server", result.error
    assert result.decisions == 5  # the first call after the death ended the trial
    assert "stopped (killed by SIGKILL); its last log lines:" in result.error
    calls = [json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert calls[-1]["error"]["type"] == "model_server" and len(calls) == 6


@pytest.mark.engine
def test_eval_plays_a_trial_whose_server_died_once_more(tmp_path):
    proc = subprocess.Popen(
        [*CLI, "eval", "local", "--trials", "1", "--max-frames", "40", "--workers", "1", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        steps = list(tmp_path.rglob("steps.jsonl"))
        if steps and steps[0].read_text().count("\n") >= 3:
            break
        time.sleep(0.2)
    (server,) = _llama_servers(proc.pid)
    os.kill(server, signal.SIGKILL)
    output, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, output
    assert "stopped (killed by SIGKILL)" in output and "playing it again" in output
    (summary,) = [json.loads(p.read_text()) for p in tmp_path.rglob("summary.json")]
    assert summary["outcome"] == "max_frames" and summary["frames"] == 40
