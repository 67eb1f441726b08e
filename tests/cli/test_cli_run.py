"""`doomagent run`: run folders, recipe errors, missing keys, and Ctrl-C."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from doomagent.cli import app

runner = CliRunner()


@pytest.mark.engine
def test_run_writes_a_folder_per_trial(tmp_path):
    result = runner.invoke(
        app,
        [
            "run",
            "plan",
            "--model",
            "test",
            "--vision-model",
            "test:1",
            "--max-frames",
            "20",
            "--trials",
            "2",
            "--out",
            str(tmp_path),
            "--set",
            "agent.temperature=0.5",
        ],
    )
    assert result.exit_code == 0, result.output
    recipe = json.loads((tmp_path / "recipe.json").read_text())
    assert recipe["roles"]["agent"] == {**recipe["roles"]["agent"], "model": "test", "temperature": 0.5}
    for trial in ("trial-000", "trial-001"):
        folder = tmp_path / trial
        summary = json.loads((folder / "summary.json").read_text())
        assert summary["outcome"] == "max_frames" and summary["decisions"] == 10
        steps = [json.loads(x) for x in (folder / "steps.jsonl").read_text().splitlines()]
        assert len(steps) == 10 and {"frame", "room", "x", "y", "health", "action", "reason", "parse_ok"} <= set(
            steps[0]
        )
        calls = [json.loads(x) for x in (folder / "calls.jsonl").read_text().splitlines()]
        assert {c["role"] for c in calls} == {"vision", "planner", "agent"}
        prompts = [json.loads(x) for x in (folder / "prompts.jsonl").read_text().splitlines()]
        assert {c["prompt_sha"] for c in calls} == {p["sha"] for p in prompts}  # every prompt, each once
        assert len(prompts) == len({p["sha"] for p in prompts}) and all(p["prompt"] for p in prompts)
        assert (folder / "episode.lmp").stat().st_size > 0


ROLES = "roles: {vision: {model: test}, agent: {model: test}}\n"
KEYED = "roles: {vision: {model: test}, agent: {model: openai/x, api_base: 'http://127.0.0.1:9/v1', api_key_env: NO_SUCH_KEY_VAR}}\n"  # noqa: E501


@pytest.mark.parametrize(
    ("yaml_text", "args", "message"),
    [
        ("name: x\nstrategy: naive\nroles: {vision: {model: test}, agent: {model: test}\n", [], "not valid YAML"),
        (
            "name: x\nstrategy: naive\nroles: {vision: {model: test}, agent: {model: test}, critic: {}}\n",
            [],
            "roles.critic",
        ),
        ("name: x\nstrategy: naive\nactions: [UP, JUMP]\n" + ROLES, [], "unknown action 'JUMP'"),
        ("name: x\nstrategy: plan\nwalkthrough: freedoom1_E1M1\n" + ROLES, [], "needs roles.planner"),
        ("name: x\nstrategy: naive\n" + ROLES, ["--set", "agent.temperature=hot"], "roles.agent.temperature"),
        ("name: x\nstrategy: naive\n" + ROLES, ["--set", "nonsense"], "is not KEY=VALUE"),
        ("name: x\nstrategy: naive\n" + KEYED, [], "NO_SUCH_KEY_VAR is not set"),
        ("name: x\nstrategy: walkthrough\nwalkthrough: nowhere.md\n" + ROLES, [], "'nowhere.md' not found"),
    ],
)
def test_bad_recipes_exit_2_with_one_clear_error(tmp_path, monkeypatch, yaml_text, args, message):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml_text)
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.slow  # imports LiteLLM (~5 s): the second tier
def test_missing_provider_key_exits_2(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["run", "naive", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.output


def test_unknown_recipe_name_lists_the_shipped_ones():
    result = runner.invoke(app, ["run", "nope"])
    assert result.exit_code == 2 and "k-levels" in result.output


@pytest.mark.engine
def test_ctrl_c_stops_cleanly_and_keeps_what_was_written(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "doomagent",
            "run",
            "naive",
            "--model",
            "test",
            "--vision-model",
            "test",
            "--max-frames",
            "100000",
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        # A child inherits an ignored SIGINT (and Python then installs no Ctrl-C handler): whatever an earlier test
        # left the signal at in this process, the run gets the default, as from a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    steps = tmp_path / "trial-000" / "steps.jsonl"

    def written() -> int:
        return steps.read_text().count("\n") if steps.exists() else 0

    # Ctrl-C comes once 20 decisions are written, however slowly a loaded machine gets there: the deadline only
    # ends a run that hangs (a fixed 60 s once sent it early, and the run had fewer decisions than asked for).
    deadline = time.time() + 600
    while proc.poll() is None and time.time() < deadline and written() < 20:
        time.sleep(0.2)
    if proc.poll() is not None or written() < 20:
        proc.kill()
        pytest.fail(f"the run wrote fewer than 20 decisions before Ctrl-C: {proc.communicate()[0].decode()[-2000:]}")
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, output.decode()
    summary = json.loads((tmp_path / "trial-000" / "summary.json").read_text())
    assert summary["outcome"] == "interrupted" and summary["decisions"] >= 20
    lines = steps.read_text().splitlines()
    assert all(json.loads(line)["action"] for line in lines)  # no truncated line
    assert summary["decisions"] == len(lines)  # the summary counts what the log holds
    assert (tmp_path / "trial-000" / "episode.lmp").stat().st_size > 0
