"""eval, report and replay on the real engine with the seeded test model."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from PIL import Image
from typer.testing import CliRunner

from doomagent.cli import app

runner = CliRunner()
TEST_MODELS = ["--model", "test", "--vision-model", "test:1"]


def _lines_ok(folder):
    for log in folder.rglob("*.jsonl"):
        for line in log.read_text().splitlines():
            json.loads(line)  # raises on a truncated line


@pytest.mark.engine
def test_eval_then_report_then_replay(tmp_path):
    out = tmp_path / "eval"
    result = runner.invoke(
        app, ["eval", "plan", *TEST_MODELS, "--trials", "3", "--workers", "2", "--max-frames", "120", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    group = out / "plan__test"
    summaries = [json.loads((group / f"trial-{i:03d}" / "summary.json").read_text()) for i in range(3)]
    assert [s["seed"] for s in summaries] == [0, 1, 2]
    assert all(s["outcome"] == "max_frames" and s["frames"] == 120 for s in summaries)

    again = runner.invoke(
        app, ["eval", "plan", *TEST_MODELS, "--trials", "3", "--max-frames", "120", "--out", str(out)]
    )
    assert again.exit_code == 0 and "3 already finished, 0 to play" in again.output
    changed = runner.invoke(app, ["eval", "plan", *TEST_MODELS, "--trials", "3", "--out", str(out)])
    assert changed.exit_code == 2 and "holds trials of a different plan recipe" in changed.output

    # The reference row comes from an eval of the reference recipe given alongside.
    ref = tmp_path / "ref"
    assert (
        runner.invoke(app, ["eval", "reference", "--trials", "1", "--max-frames", "120", "--out", str(ref)]).exit_code
        == 0
    )
    report_dir = tmp_path / "report"
    result = runner.invoke(app, ["report", str(out), str(ref), "--out", str(report_dir)])
    assert result.exit_code == 0, result.output
    md = (report_dir / "report.md").read_text()
    assert "| Prompt | PMAT_A / D-PMAT_A | PMAT_B / D-PMAT_B | PMAT_C / D-PMAT_C | PMAT_D / D-PMAT_D |" in md
    assert "| plan (test) | 120/120 | ∞ | ∞ | ∞ | 0% | 0% | 3/3 | 0/3 |" in md  # all three hit the frame cap
    assert "| plan (test) | PMAT_A | 120 | 0.00 | 120-120 | 3 |" in md  # the spread table
    assert "| plan (test) | PMAT_B | ∞ (never entered) | | | 0 |" in md
    assert "| reference (ceiling) |" in md
    html = (report_dir / "report.html").read_text()
    assert "<table>" in html and "data:image/png;base64," in html
    metrics = json.loads((report_dir / "metrics.json").read_text())
    assert metrics["rooms"] == ["A", "B", "C", "D"]
    plan_row = next(r for r in metrics["rows"] if r["label"] == "plan (test)")
    assert plan_row["cells"]["A"]["pmat_spread"] == {"mean": 120.0, "sd": 0.0, "low": 120.0, "high": 120.0, "n": 3}
    assert plan_row["summary"]["frame_cap"] == 3 and plan_row["summary"]["frames_spread"]["n"] == 3
    assert 0 <= plan_row["summary"]["progress"] < 1 and plan_row["summary"]["progress_spread"]["n"] == 3
    with Image.open(report_dir / "trajectories.png") as img:
        assert img.size[0] > 1000

    gif = tmp_path / "trial.gif"
    result = runner.invoke(app, ["replay", str(group / "trial-000"), "--out", str(gif), "--every", "4"])
    assert result.exit_code == 0, result.output
    with Image.open(gif) as img:
        assert img.n_frames == 31  # frames 0, 4, ..., 120
        assert img.size == (320, 216)  # half size plus the caption band
    webp = tmp_path / "trial.webp"
    result = runner.invoke(app, ["replay", str(group / "trial-000"), "--out", str(webp), "--every", "4"])
    assert result.exit_code == 0, result.output
    with Image.open(webp) as img:
        assert img.format == "WEBP" and img.n_frames == 31 and img.size == (320, 216)
    assert webp.stat().st_size < gif.stat().st_size / 2
    mp4 = tmp_path / "trial.mp4"
    result = runner.invoke(app, ["replay", str(group / "trial-000"), "--out", str(mp4), "--every", "8"])
    assert result.exit_code == 0, result.output
    assert mp4.read_bytes()[4:8] == b"ftyp" and "16 frames" in result.output


@pytest.mark.engine
def test_report_and_replay_errors(tmp_path):
    result = runner.invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2 and "no finished trials" in result.output
    result = runner.invoke(app, ["replay", str(tmp_path), "--out", str(tmp_path / "x.gif")])
    assert result.exit_code == 2 and "not a trial folder" in result.output


@pytest.mark.engine
def test_sigkill_mid_eval_then_resume(tmp_path):
    out = tmp_path / "eval"
    cmd = [
        sys.executable,
        "-m",
        "doomagent",
        "eval",
        "plan",
        *TEST_MODELS,
        "--trials",
        "3",
        "--workers",
        "1",
        "--max-frames",
        "400",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    group = out / "plan__test"
    deadline = time.time() + 120
    # Wait until trial 0 is finished and trial 1 is under way, then kill everything.
    while time.time() < deadline:
        steps = group / "trial-001" / "steps.jsonl"
        if (group / "trial-000" / "summary.json").exists() and steps.exists() and steps.stat().st_size > 2000:
            break
        time.sleep(0.1)
    else:
        proc.kill()
        raise AssertionError("the eval never got to trial 1")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = (group / "trial-000" / "summary.json").stat().st_mtime_ns
    assert not (group / "trial-001" / "summary.json").exists()

    result = runner.invoke(
        app, ["eval", "plan", *TEST_MODELS, "--trials", "3", "--workers", "2", "--max-frames", "400", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "1 already finished, 2 to play" in result.output
    assert (group / "trial-000" / "summary.json").stat().st_mtime_ns == finished  # not redone
    assert sorted(p.name for p in group.glob("trial-*")) == ["trial-000", "trial-001", "trial-002"]
    assert all(json.loads((group / f"trial-{i:03d}" / "summary.json").read_text())["frames"] == 400 for i in range(3))
    _lines_ok(group)
