"""Evals that outgrow one machine: shared rate limits across workers, an eval-wide budget, and Ray."""

import json
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from doomagent import load_recipe
from doomagent.cli import app
from doomagent.eval import plan_jobs
from doomagent.eval.jobs import EvalLimits
from doomagent.eval.runner import run_eval
from doomagent.providers.stub_server import StubServer
from doomagent.rundir.plan import has_checkpoint

pytestmark = pytest.mark.engine
runner = CliRunner()
TEST_MODELS = ["--model", "test", "--vision-model", "test"]


@pytest.mark.engine
def test_four_workers_never_send_more_than_the_limit_in_any_window(tmp_path):
    requests, window = 5, 1.0
    with StubServer() as server:
        sets = ["--set", f"agent.api_base={server.url}/v1", "--set", "vision.model=test"]
        args = ["eval", "naive", "--model", "openai/stub", *sets, "--trials", "4", "--workers", "4"]
        limit = ["--rate-limit", f"openai/stub={requests}/{window:g}s", "--max-frames", "30"]
        result = runner.invoke(app, [*args, *limit, "--out", str(tmp_path)])
        arrived = sorted(r.at for r in server.requests if r.path.endswith("/chat/completions"))
    assert result.exit_code == 0, result.output
    assert len(arrived) == 4 * 15
    busiest = max(sum(t <= u < t + window for u in arrived) for t in arrived)
    assert busiest <= requests
    summaries = [json.loads(p.read_text()) for p in tmp_path.rglob("summary.json")]
    assert sum(s["usage"]["agent"]["rate_waits"] for s in summaries) > 0  # counted in the usage table
    assert "rate limit for openai/stub: 5/1s across all workers" in result.output
    report = runner.invoke(app, ["report", str(tmp_path), "--reference-trials", "0"])
    assert report.exit_code == 0, report.output
    assert "Rate-limit waits" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.engine
def test_the_eval_budget_stops_trials_and_starts_no_more(tmp_path):
    cap = 150
    args = ["eval", "naive", *TEST_MODELS, "--trials", "3", "--workers", "2", "--max-frames", "200"]
    result = runner.invoke(app, [*args, "--max-calls", str(cap), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summaries = [json.loads(p.read_text()) for p in tmp_path.rglob("summary.json")]
    assert len(summaries) == 2 and {s["outcome"] for s in summaries} == {"budget"}
    calls = sum(s["totals"]["calls"] for s in summaries)
    # Within one decision (two calls: Vision and Agent) per running trial of the cap.
    assert cap <= calls <= cap + 2 * 2
    record = json.loads((tmp_path / "eval.json").read_text())
    assert record["cut"] and record["not_started"] == 1 and record["max_calls"] == cap
    assert "cut: the eval's budget is spent; 1 trials not started" in result.output
    report = runner.invoke(app, ["report", str(tmp_path), "--reference-trials", "0"])
    assert report.exit_code == 0, report.output
    assert "was cut by its budget (--max-calls 150)" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.engine
def test_bad_eval_options_are_one_line_and_exit_2(tmp_path):
    for args, said in (
        (["--rate-limit", "gpt-4o"], "not MODEL=LIMIT"),
        (["--rate-limit", "gpt-4o=lots"], "cannot read the rate limit"),
        (["--backend", "slurm"], "not local or ray"),
        (["--address", "auto"], "for the ray backend"),
    ):
        result = runner.invoke(app, ["eval", "naive", *TEST_MODELS, *args, "--out", str(tmp_path)])
        assert result.exit_code == 2 and said in result.output, result.output


# -- Ray ------------------------------------------------------------------------------------------

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    made.add_node(num_cpus=2)
    made.wait_for_nodes()
    yield made
    made.shutdown()


def _jobs(out: Path, trials: int, max_frames: int, *sets: str):
    recipe, folder = load_recipe(
        "naive", model="test", vision_model="test", max_frames=max_frames, overrides=["checkpoint_every=10", *sets]
    )
    jobs, _ = plan_jobs([(recipe, folder)], trials=trials, out=out, seed=0)
    return jobs


def _summaries(out: Path) -> dict[str, dict]:
    keys = ("outcome", "frames", "decisions", "room_frames", "rooms_entered", "final_position")
    found = {}
    for path in sorted(out.rglob("summary.json")):
        summary = json.loads(path.read_text())
        found[path.parent.name] = {k: summary[k] for k in keys}
    return found


@pytest.mark.engine
def test_ray_plays_the_same_trials_as_local_workers_and_brings_their_folders_back(tmp_path, cluster):
    local, remote = tmp_path / "local", tmp_path / "ray"
    run_eval(_jobs(local, 3, 200), workers=2)
    events = []
    result = run_eval(
        _jobs(remote, 3, 200),
        workers=None,
        backend="ray",
        address=cluster.address,
        on_event=events.append,
        limits=EvalLimits(max_calls=10_000),
    )
    assert len(result.summaries) == 3 and _summaries(remote) == _summaries(local)
    for trial in (remote / "naive__test").glob("trial-*"):  # no shared file system: everything came back
        assert {p.name for p in trial.iterdir()} >= {"steps.jsonl", "calls.jsonl", "episode.lmp", "summary.json"}
        assert not (trial / "checkpoint").exists()
    kinds = {e.kind for e in events}
    assert {"start", "step", "end"} <= kinds
    assert result.spent["calls"] == sum(s["totals"]["calls"] for s in result.summaries)
    # Rerunning finds every trial finished: nothing to play.
    assert _jobs(remote, 3, 200) == []


@pytest.mark.engine
def test_a_node_that_dies_mid_eval_has_its_trials_resumed_elsewhere(tmp_path, cluster):
    slow = "agent.extra={latency: 0.02}"
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    run_eval(_jobs(whole, 3, 400), workers=3)
    events = []
    done: dict = {}
    thread = threading.Thread(
        target=lambda: done.update(
            result=run_eval(
                _jobs(cut, 3, 400, slow), workers=3, backend="ray", address=cluster.address, on_event=events.append
            )
        )
    )
    thread.start()
    deadline = time.time() + 120
    trials = [cut / "naive__test" / f"trial-{i:03d}" for i in range(3)]
    while time.time() < deadline and not all(has_checkpoint(t) for t in trials):
        time.sleep(0.1)
    assert all(has_checkpoint(t) for t in trials), "the driver never held all three trials' checkpoints"
    worker_node = next(n for n in cluster.list_all_nodes() if n is not cluster.head_node)
    cluster.remove_node(worker_node)
    thread.join(300)
    assert not thread.is_alive() and "result" in done
    lost = [e for e in events if e.kind == "retry"]
    assert len(lost) >= 1 and all("worker was lost" in e.info for e in lost)
    assert _summaries(cut) == _summaries(whole)
    resumed = [json.loads((t / "summary.json").read_text())["resumes"] for t in trials]
    assert sum(resumed) == len(lost)  # each lost trial went on from its checkpoint, not from frame 0
    cluster.add_node(num_cpus=2)  # leave the cluster as the fixture made it


@pytest.mark.engine
def test_the_ray_backend_says_how_to_install_ray_when_it_is_missing(monkeypatch):
    from doomagent.errors import ConfigError
    from doomagent.eval import ray_backend

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ConfigError) as caught:
        ray_backend._ray()
    assert "doomagent[ray]" in (caught.value.hint or "")


@pytest.mark.engine
def test_a_job_carried_to_ray_keeps_its_auto_walkthrough_and_carries_a_file(tmp_path):
    """`walkthrough: auto` is chosen where the trial plays, not a file to pack; a file walkthrough travels."""
    import tempfile

    from doomagent.eval.ray_backend import _portable
    from doomagent.eval.sync import unpack

    recipe, folder = load_recipe("plan", model="test", vision_model="test", max_frames=20)
    jobs, _ = plan_jobs([(recipe, folder)], trials=1, out=tmp_path / "a", seed=0)
    moved, _bundle = _portable(jobs[0])
    assert moved.recipe["walkthrough"] == "auto"
    (tmp_path / "mine.md").write_text("1. Walk east.\n")
    mine = recipe.model_copy(update={"walkthrough": "mine.md"})
    jobs, _ = plan_jobs([(mine, tmp_path)], trials=1, out=tmp_path / "b", seed=0)
    moved, bundle = _portable(jobs[0])
    assert moved.recipe["walkthrough"] == "walkthrough.md"
    with tempfile.TemporaryDirectory() as tmp:
        unpack(bundle, Path(tmp))
        assert (Path(tmp) / "walkthrough.md").read_text() == "1. Walk east.\n"
