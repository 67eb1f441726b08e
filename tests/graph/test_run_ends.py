"""Runs that end when they should: a provider that stops answering, signals to the whole process group, and
closing lines that say how the model did (the local model server's death is in test_local_model.py)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from doomagent._internal.proc import descendants
from doomagent.cli import app
from doomagent.providers.stub_server import StubServer

pytestmark = pytest.mark.engine
runner = CliRunner()
FAST_FAIL = ["--set", "agent.retries=0", "--set", "vision.model=test"]


def _dead_port() -> int:
    with socket.socket() as s:  # bound then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_provider_that_refuses_every_connection_ends_the_trial_after_n_decisions(tmp_path):
    base = f"http://127.0.0.1:{_dead_port()}/v1"
    args = ["run", "naive", "--model", "openai/gone", "--set", f"agent.api_base={base}", *FAST_FAIL]
    result = runner.invoke(app, [*args, "--set", "unreachable_after=4", "--max-frames", "400", "--out", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "provider unreachable: openai/gone (role agent) failed every call of 4 decisions in a row" in result.output
    assert "connection" in result.output and "Traceback" not in result.output
    assert "calls: agent 4 (4 failed), vision 4 (0 failed)" in result.output
    summary = json.loads((tmp_path / "trial-000" / "summary.json").read_text())
    assert summary["outcome"] == "error" and summary["error_kind"] == "provider" and summary["decisions"] == 4


def test_a_provider_down_for_three_decisions_then_back_does_not_end_the_trial(tmp_path):
    answered = {"n": 0}

    def reply(body):
        answered["n"] += 1
        return (503, "busy") if answered["n"] <= 3 else "ACTION: UP\nREASON: on"

    with StubServer(reply=reply) as server:
        args = ["run", "naive", "--model", "openai/stub", "--set", f"agent.api_base={server.url}/v1", *FAST_FAIL]
        result = runner.invoke(
            app, [*args, "--set", "unreachable_after=4", "--max-frames", "40", "--out", str(tmp_path)]
        )
    assert result.exit_code == 0, result.output
    assert "trial 0: max_frames after 40 frames, 20 decisions: 17 moves chosen, 3 WAIT fallbacks" in result.output
    assert "calls: agent 20 (3 failed), vision 20 (0 failed)" in result.output


def test_eval_fails_the_group_of_an_unreachable_provider_and_resumes_when_it_is_back(tmp_path):
    up = {"now": False}

    def reply(body):
        return "ACTION: UP\nREASON: on" if up["now"] else (502, "bad gateway")

    with StubServer(reply=reply) as server:
        sets = ["--set", f"agent.api_base={server.url}/v1", *FAST_FAIL, "--set", "unreachable_after=3"]
        args = [
            "eval",
            "naive",
            "--model",
            "openai/stub",
            *sets,
            "--trials",
            "1",
            "--max-frames",
            "60",
            "--workers",
            "1",
        ]
        result = runner.invoke(app, [*args, "--out", str(tmp_path)])
        assert result.exit_code == 1 and "failed: naive / openai/stub: provider unreachable" in result.output
        up["now"] = True
        again = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert again.exit_code == 0, again.output
    (summary,) = [json.loads(p.read_text()) for p in tmp_path.rglob("summary.json")]
    assert summary["outcome"] == "max_frames" and summary["frames"] == 60


def test_a_run_in_which_no_call_got_an_answer_exits_1(tmp_path):
    base = f"http://127.0.0.1:{_dead_port()}/v1"
    args = ["run", "naive", "--model", "openai/gone", "--set", f"agent.api_base={base}", *FAST_FAIL]
    result = runner.invoke(app, [*args, "--set", "unreachable_after=null", "--max-frames", "6", "--out", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "no call of role agent got an answer in trial 0 (3 calls, all failed)" in result.output
    summary = json.loads((tmp_path / "trial-000" / "summary.json").read_text())
    assert summary["outcome"] == "max_frames" and summary["usage"]["agent"]["failed"] == 3


# -- signals to the whole process group ------------------------------------------------------------


def _wait_for_lines(path_glob: str, folder: Path, count: int, lines: int, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        logs = list(folder.rglob(path_glob))
        if len(logs) >= count and all(p.read_text().count("\n") >= lines for p in logs):
            return
        time.sleep(0.2)
    raise AssertionError(f"no {count} logs {path_glob} with {lines} lines under {folder}")


@pytest.mark.parametrize("command", ["run", "eval"])
def test_sigterm_to_the_whole_process_group_ends_the_run_within_seconds(command, tmp_path):
    slow = ["--set", "agent.extra={latency: 0.05}"]
    extra = ["--trials", "2", "--workers", "2"] if command == "eval" else []
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "doomagent",
            command,
            "naive",
            "--model",
            "test",
            "--vision-model",
            "test",
            *slow,
            "--max-frames",
            "100000",
            *extra,
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,  # its own group, as under `timeout`, systemd or Slurm
    )
    _wait_for_lines("steps.jsonl", tmp_path, 2 if command == "eval" else 1, 10)
    family = descendants(proc.pid)
    assert any(Path(f"/proc/{p}/comm").read_text().startswith("vizdoom") for p in family if Path(f"/proc/{p}").exists())
    os.killpg(proc.pid, signal.SIGTERM)  # what `timeout` does: the whole group at once
    start = time.monotonic()
    output, _ = proc.communicate(timeout=30)
    took = time.monotonic() - start
    assert took < 10, (took, output.decode())
    assert proc.returncode == 130, output.decode()
    summaries = [json.loads(p.read_text()) for p in tmp_path.rglob("summary.json")]
    assert len(summaries) == (2 if command == "eval" else 1), output.decode()
    for summary in summaries:
        assert summary["outcome"] == "interrupted" and summary["decisions"] >= 10
    for steps in tmp_path.rglob("steps.jsonl"):
        summary = json.loads((steps.parent / "summary.json").read_text())
        assert summary["decisions"] == len(steps.read_text().splitlines())
    for demo in tmp_path.rglob("episode.lmp"):
        assert demo.stat().st_size > 0
    deadline = time.time() + 10
    while time.time() < deadline and [p for p in family if Path(f"/proc/{p}").exists()]:
        time.sleep(0.1)
    assert not [p for p in family if Path(f"/proc/{p}").exists()]


# -- doomagent doctor ----------------------------------------------------------------------------


def test_doctor_says_what_works_and_fails_on_what_a_recipe_needs(tmp_path, monkeypatch):
    ok = runner.invoke(app, ["doctor", "naive", "--model", "test", "--vision-model", "test", "--no-models"])
    assert ok.exit_code == 0, ok.output
    lines = ok.output.splitlines()
    assert any(line.startswith("ok") and "engine" in line and "renders 640x400" in line for line in lines)
    assert any(line.startswith("ok") and "freedoom2.wad" in line and "32 maps" in line for line in lines)
    assert lines[-1].startswith("ready: recipe naive")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    missing = runner.invoke(app, ["doctor", "naive", "--model", "anthropic/claude-3-5-sonnet-20240620", "--no-models"])
    assert missing.exit_code == 1, missing.output
    assert any(
        line.startswith("missing") and "ANTHROPIC_API_KEY" in line and "fix: export" in line
        for line in missing.output.splitlines()
    ), missing.output
    assert "not ready" in missing.output
