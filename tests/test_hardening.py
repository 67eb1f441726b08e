"""Adversarial input: recipes are data, folders have one writer, any reply and signal is survived, secrets
never reach a file, fatal provider errors end a trial at once, and bad input is one typed line."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from doomagent import ConfigError, ScriptedModel, load_recipe, run_trial
from doomagent._internal.proc import descendants
from doomagent.cli import app
from doomagent.providers.stub_server import StubServer
from doomagent.rundir.folders import exclusive

pytestmark = pytest.mark.engine
runner = CliRunner()
TEST_MODELS = ["--model", "test", "--vision-model", "test"]
EVAL = [sys.executable, "-m", "doomagent", "eval", "naive", *TEST_MODELS]


def _recipe(folder: Path, **fields: object) -> Path:
    roles = {"vision": {"model": "test"}, "agent": {"model": "test"}}
    data: dict[str, object] = {"name": "mine", "strategy": "naive", "roles": roles, **fields}
    path = folder / "mine.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _no_traceback(result) -> None:
    assert ("Traceback" not in result.output and result.exception is None) or isinstance(result.exception, SystemExit)


# -- recipes are data ------------------------------------------------------------------------------


def test_a_template_cannot_reach_python_internals(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "vision.j2").write_text("{{ ''.__class__.__mro__[1].__subclasses__() }}")
    path = _recipe(tmp_path, prompts_dir="prompts")
    result = runner.invoke(app, ["run", str(path), "--max-frames", "4", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "may not do" in result.output
    _no_traceback(result)


def test_files_outside_the_recipe_folder_need_the_flag(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("the walkthrough from elsewhere")
    folder = tmp_path / "shared"
    folder.mkdir()
    for fields in (
        {"walkthrough": str(outside), "strategy": "walkthrough"},
        {"walkthrough": "../secret.txt", "strategy": "walkthrough"},
        {"prompts_dir": "/etc"},
        {"env": {"room_profile": "../../profile.yaml"}},
    ):
        path = _recipe(folder, **fields)
        result = runner.invoke(app, ["run", str(path), "--max-frames", "4", "--out", str(tmp_path / "run")])
        assert result.exit_code == 2 and "outside the recipe's folder" in result.output, result.output
        assert "--allow-outside-files" in result.output
    path = _recipe(folder, walkthrough="../secret.txt", strategy="walkthrough")
    result = runner.invoke(
        app, ["run", str(path), "--max-frames", "4", "--out", str(tmp_path / "ok"), "--allow-outside-files"]
    )
    assert result.exit_code == 0, result.output


def test_names_never_become_paths(tmp_path):
    for name in ("../escape", "/abs", "a/b", ".hidden", ""):
        with pytest.raises(ConfigError, match="name"):
            load_recipe(_recipe(tmp_path, name=name))
    with pytest.raises(ConfigError, match="actions is empty"):
        load_recipe(_recipe(tmp_path, actions=[]))


# -- one writer per folder -------------------------------------------------------------------------


def test_a_second_writer_is_refused_and_told_who_holds_the_folder(tmp_path):
    with exclusive(tmp_path, "doomagent eval"):
        result = runner.invoke(app, ["run", "naive", *TEST_MODELS, "--max-frames", "4", "--out", str(tmp_path)])
        assert result.exit_code == 2 and "in use" in result.output and f"pid {os.getpid()}" in result.output
        result = runner.invoke(app, ["eval", "naive", *TEST_MODELS, "--trials", "1", "--out", str(tmp_path)])
        assert result.exit_code == 2 and "in use" in result.output


def test_run_into_a_used_folder_needs_resume_or_overwrite(tmp_path):
    args = ["run", "naive", *TEST_MODELS, "--max-frames", "10", "--trials", "2", "--out", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "already holds 2 trial(s)" in again.output
    # a cut trial: --resume keeps the finished one and replays the other
    (tmp_path / "trial-001" / "summary.json").unlink()
    kept = (tmp_path / "trial-000" / "steps.jsonl").stat().st_mtime_ns
    assert runner.invoke(app, [*args, "--resume"]).exit_code == 0
    assert (tmp_path / "trial-000" / "steps.jsonl").stat().st_mtime_ns == kept
    for trial in ("trial-000", "trial-001"):
        steps = (tmp_path / trial / "steps.jsonl").read_text().splitlines()
        assert len(steps) == json.loads((tmp_path / trial / "summary.json").read_text())["decisions"] == 5
    changed = runner.invoke(app, [*args, "--resume", "--set", "agent.temperature=0.3"])
    assert changed.exit_code == 2 and "different" in changed.output
    assert runner.invoke(app, [*args, "--overwrite", "--max-frames", "6"]).exit_code == 0
    assert json.loads((tmp_path / "trial-000" / "summary.json").read_text())["frames"] == 6
    assert runner.invoke(app, [*args, "--resume", "--overwrite"]).exit_code == 2


# -- any text survives -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '{"action": "UP", "reason": "\\udcff"}',  # valid JSON holding a lone surrogate
        "ACTION: FIRE\nREASON: \udcff\ud800 raw surrogates",
        "ACTION: LEFT\x00\x01\x1b[31m",
        "ACTION: UP\nREASON: " + "x" * 1_000_000,
    ],
    ids=["json-surrogate", "raw-surrogates", "control", "1MB"],
)
def test_odd_replies_are_stored_and_never_stop_a_trial(reply, tmp_path):
    recipe, _ = load_recipe("naive", max_frames=6)
    models = {"vision": ScriptedModel([reply]), "agent": ScriptedModel([reply])}
    result = run_trial(recipe, models=models, out=tmp_path)
    assert result.outcome == "max_frames" and result.decisions == 3 and result.waits == 0
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 6 and all(isinstance(c["response"], str) for c in calls)
    json.loads((tmp_path / "summary.json").read_text())


# -- secrets ---------------------------------------------------------------------------------------


def test_canary_keys_reach_no_file_or_message(tmp_path, monkeypatch):
    monkeypatch.setenv("STUB_KEY_VAR", "sk-CANARY-ENV-0001")
    with StubServer() as server:
        port = server.url.rsplit(":", 1)[1]
        role = (
            "{model: openai/stub, api_base: 'http://user:CANARY-URL-0002@127.0.0.1:" + port + "/v1', "
            "api_key_env: STUB_KEY_VAR, extra: {api_key_hint: CANARY-EXTRA-0003, "
            "extra_headers: {X-Custom: CANARY-HEADER-0004}}}"
        )
        sets = ["--set", f"agent={role}", "--set", "vision.model=test"]
        run = runner.invoke(app, ["run", "naive", *sets, "--max-frames", "6", "--out", str(tmp_path / "run")])
        assert run.exit_code == 0, run.output
        ev = runner.invoke(
            app, ["eval", "naive", *sets, "--trials", "1", "--max-frames", "6", "--out", str(tmp_path / "ev")]
        )
        assert ev.exit_code == 0, ev.output
        rep = runner.invoke(app, ["report", str(tmp_path / "ev"), "--reference-trials", "0"])
        assert rep.exit_code == 0, rep.output
    assert server.requests and server.requests[0].headers.get("x-custom") == "CANARY-HEADER-0004"  # it was used
    seen = [run.output, ev.output, rep.output]
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix not in (".lmp", ".png"):
            seen.append(path.read_text(errors="replace"))
    assert len(seen) > 10
    assert not [text for text in seen if "CANARY" in text]


# -- fatal provider errors -------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "kind"), [(401, "auth"), (403, "permission"), (404, "not found")])
def test_fatal_provider_errors_end_the_trial_at_once(status, kind, tmp_path):
    with StubServer(reply=lambda body: (status, "nope")) as server:
        sets = ["--set", f"agent.api_base={server.url}/v1", "--set", "vision.model=test"]
        result = runner.invoke(
            app, ["run", "naive", "--model", "openai/stub", *sets, "--max-frames", "600", "--out", str(tmp_path)]
        )
        requests = len(server.requests)
    assert result.exit_code == 1 and kind in result.output and "Traceback" not in result.output, result.output
    assert requests == 1  # not retried, not played on
    summary = json.loads((tmp_path / "trial-000" / "summary.json").read_text())
    assert summary["outcome"] == "error" and kind in summary["error"] and summary["decisions"] == 0


def test_eval_reports_a_failed_group_and_exits_1(tmp_path):
    key_fixed = {"now": False}

    def reply(body):
        return "ACTION: UP\nREASON: on" if key_fixed["now"] else (401, "bad key")

    with StubServer(reply=reply) as server:
        sets = ["--set", f"agent.api_base={server.url}/v1", "--set", "vision.model=test"]
        args = ["eval", "naive", "--model", "openai/stub", *sets, "--trials", "2", "--max-frames", "50"]
        result = runner.invoke(app, [*args, "--out", str(tmp_path)])
        assert result.exit_code == 1 and "failed:" in result.output and "auth" in result.output, result.output
        assert len(server.requests) == 2  # one call per trial, then each trial ended
        # failed trials are not finished: once the key works, the same command plays them again
        key_fixed["now"] = True
        again = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert again.exit_code == 0, again.output
    summaries = [json.loads(p.read_text()) for p in tmp_path.rglob("summary.json")]
    assert sorted(s["outcome"] for s in summaries) == ["max_frames", "max_frames"]


# -- signals ---------------------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def test_sigterm_stops_a_run_like_ctrl_c_and_leaves_no_engine(tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "doomagent",
            "run",
            "naive",
            *TEST_MODELS,
            "--max-frames",
            "100000",
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    steps = tmp_path / "trial-000" / "steps.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and (not steps.exists() or steps.read_text().count("\n") < 10):
        time.sleep(0.2)
    engines = _children(proc.pid)
    assert engines  # the ViZDoom process
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, output.decode()
    summary = json.loads((tmp_path / "trial-000" / "summary.json").read_text())
    assert summary["outcome"] == "interrupted" and summary["decisions"] >= 10
    assert (tmp_path / "trial-000" / "episode.lmp").stat().st_size > 0
    time.sleep(0.5)
    assert not [pid for pid in engines if Path(f"/proc/{pid}").exists()]


# -- disk, paths, encodings, --set -----------------------------------------------------------------


def test_bad_paths_and_inputs_are_one_line_and_exit_2(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    cases = [
        (["run", "naive", *TEST_MODELS, "--out", str(a_file)], "is a file"),
        (["run", "naive", *TEST_MODELS, "--set", "agent.temperature=[1, 2"], "not valid YAML"),
        (["run", "naive", *TEST_MODELS, "--set", "noequals"], "KEY=VALUE"),
    ]
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("name: caf\xe9\nstrategy: naive\n".encode("latin-1"))
    cases.append((["run", str(bad), "--out", str(tmp_path / "r")], "not UTF-8"))
    for args, words in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and words in result.output, (args, result.output)
        _no_traceback(result)
    empty_env = runner.invoke(
        app, ["run", "naive", *TEST_MODELS, "--set", "env={max_frames: 6}", "--out", str(tmp_path / "e")]
    )
    assert empty_env.exit_code == 0, empty_env.output


def test_report_reads_a_step_log_cut_by_a_crash(tmp_path):
    args = ["eval", "naive", *TEST_MODELS, "--trials", "1", "--max-frames", "10", "--out", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 0
    (steps,) = tmp_path.rglob("steps.jsonl")
    steps.write_text(steps.read_text() + '{"frame": 10, "x": 1')
    result = runner.invoke(app, ["report", str(tmp_path), "--reference-trials", "0"])
    assert result.exit_code == 0, result.output
    assert "could not be read" in (tmp_path / "report" / "report.md").read_text()


# -- crashes: engines and evals that die -----------------------------------------------------------


def _engines(pid: int) -> set[int]:
    def comm(p: int) -> str:
        try:
            return Path(f"/proc/{p}/comm").read_text().strip()
        except OSError:
            return ""

    return {p for p in descendants(pid) if comm(p).startswith("vizdoom")}


def _wait_for_steps(folder: Path, count: int, lines: int) -> None:
    deadline = time.time() + 90
    while time.time() < deadline:
        logs = list(folder.rglob("steps.jsonl"))
        if len(logs) >= count and all(p.read_text().count("\n") >= lines for p in logs):
            return
        time.sleep(0.2)
    raise AssertionError(f"no {count} step logs with {lines} lines under {folder}")


def test_an_engine_that_dies_ends_the_trial_and_eval_plays_it_once_more(tmp_path):
    from doomagent import GraphBuilder

    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=400)

    def kill_engine(state):
        if state["decision"] == 5:
            engines = _engines(os.getpid())
            for pid in engines:
                os.kill(pid, signal.SIGKILL)
            deadline = time.time() + 30  # wait for the death it caused: the next step meets a dead engine
            while time.time() < deadline and any(Path(f"/proc/{pid}").exists() for pid in engines):
                time.sleep(0.01)
        return None

    builder = GraphBuilder.from_recipe(recipe).add_node("saboteur", kill_engine, before="act")
    result = run_trial(recipe, builder=builder, out=tmp_path / "run")
    assert result.outcome == "error" and result.error_kind == "engine" and "stopped unexpectedly" in result.error
    assert result.decisions == 5
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["outcome"] == "error"

    out = tmp_path / "eval"
    slow = ["--set", "agent.extra={latency: 0.2}", "--set", "vision.extra={latency: 0.2}"]
    proc = subprocess.Popen(
        [*EVAL, *slow, "--trials", "1", "--max-frames", "300", "--workers", "1", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    _wait_for_steps(out, 1, 5)
    (engine,) = _engines(proc.pid)
    worker = int(Path(f"/proc/{engine}/stat").read_text().rsplit(")", 1)[1].split()[1])  # its parent
    # Kill it while the worker waits for a model (as engines die in real trials): ViZDoom cannot recover
    # from a death in the middle of one of its own calls.
    deadline = time.time() + 30
    while time.time() < deadline and Path(f"/proc/{worker}/wchan").read_text() != "hrtimer_nanosleep":
        time.sleep(0.01)
    os.kill(engine, signal.SIGKILL)
    output, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, output.decode()
    assert b"playing it again" in output
    (summary,) = [json.loads(p.read_text()) for p in out.rglob("summary.json")]
    assert summary["outcome"] == "max_frames" and summary["frames"] == 300


def test_a_killed_eval_leaves_no_process_behind(tmp_path):
    proc = subprocess.Popen(
        [*EVAL, "--trials", "2", "--max-frames", "100000", "--workers", "2", "--out", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for_steps(tmp_path, 2, 10)
    family = descendants(proc.pid)
    assert len(_engines(proc.pid)) == 2 and len(family) >= 5  # fork server, workers, engines, their reapers
    proc.kill()
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and [p for p in family if Path(f"/proc/{p}").exists()]:
        time.sleep(0.2)
    left = [p for p in family if Path(f"/proc/{p}").exists()]
    assert not left, [Path(f"/proc/{p}/cmdline").read_bytes()[:80] for p in left]


def test_a_full_disk_is_one_line_exit_1_and_nothing_half_written(tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(small)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        out = small / "run"
        args = ["run", "naive", *TEST_MODELS, "--max-frames", "100000", "--out", str(out)]
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and "disk is full" in result.output, result.output
        assert "Traceback" not in result.output
        assert not list(small.rglob("*.tmp")) and not list(small.rglob(".*.tmp"))  # no stray temp files
        assert not (out / "trial-000" / "summary.json").exists()  # nothing claims the trial finished
        demo = out / "trial-000" / "episode.lmp"
        assert not demo.exists() or demo.stat().st_size > 0  # no 0-byte demo presented as one
    finally:
        subprocess.run(["umount", str(small)], check=False)
