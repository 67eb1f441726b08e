"""A suite: one eval over several maps, its report per map and the suite table (the real engine, test models).

The CLI runs in a child process here, like a user's shell.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.engine

MAPS = ("E1M1", "E1M4", "E2M2")


def _doomagent(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "doomagent", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=280, env=os.environ.copy(), check=False)


def test_a_suite_ranks_trials_that_end_in_the_same_room_by_how_far_they_got(tmp_path: Path):
    folders = []
    for model in ("test:1", "test:2"):
        out = tmp_path / model.replace(":", "-")
        done = _doomagent(
            "eval",
            "naive",
            "--model",
            model,
            "--vision-model",
            "test:1",
            "--maps",
            ",".join(MAPS),
            "--trials",
            "1",
            "--max-frames",
            "150",
            "--out",
            str(out),
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert sorted(p.name for p in out.iterdir() if p.is_dir()) == [f"freedoom1_{m}" for m in MAPS]
        folders.append(str(out))
    report = tmp_path / "report"
    done = _doomagent("report", *folders, "--reference-trials", "0", "--out", str(report))
    assert done.returncode == 0, done.stdout + done.stderr
    suite = json.loads((report / "suite.json").read_text())
    assert sorted(suite) == [f"freedoom1_{m}" for m in MAPS]
    differ = 0
    for m in MAPS:
        rows = {r["label"]: r["summary"] for r in suite[f"freedoom1_{m}"]}
        assert set(rows) == {"naive (test:1)", "naive (test:2)"}
        a, b = rows["naive (test:1)"], rows["naive (test:2)"]
        assert a["finishes"] == b["finishes"] == 0 and a["rooms_reached"] == b["rooms_reached"] == 1.0  # room A
        assert 0 <= a["progress"] < 1 and 0 <= b["progress"] < 1
        differ += a["progress"] != b["progress"]
        assert (report / f"freedoom1_{m}" / "report.md").is_file()
    assert differ >= 2  # same room, different distances: the progress column tells them apart
    md = (report / "suite.md").read_text()
    assert "| Row | freedoom1_E1M1 | freedoom1_E1M4 | freedoom1_E2M2 | Mean progress |" in md
    walkthrough = Path(folders[0]) / "freedoom1_E1M4"
    assert not any(walkthrough.rglob("walkthrough.md"))  # naive reads no walkthrough
