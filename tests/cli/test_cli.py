import json
import subprocess
import sys

import pytest
from PIL import Image
from typer.testing import CliRunner

from doomagent.cli import app

runner = CliRunner()


@pytest.mark.slow
def test_map_writes_a_picture_and_lists_rooms(tmp_path):
    out = tmp_path / "map.png"
    result = runner.invoke(app, ["map", "E1M1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "route" in result.output and "A" in result.output
    with Image.open(out) as img:
        assert img.size[0] > 800 and img.size[1] > 600


def test_map_errors_exit_2_with_a_hint(tmp_path):
    cases = [
        (["map", "E9M9"], "not in freedoom1.wad"),
        (["map", "E1M1", "--wad", str(tmp_path / "doom.wad")], "WAD file not found"),
        (["map", "E1M1", "--out", str(tmp_path / "map.txt")], "cannot write a picture"),
        (["map", "E1M1", "--profile", str(tmp_path / "none.yaml")], "room profile not found"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output
        assert "Traceback" not in result.output


def test_bad_option_exits_2():
    result = runner.invoke(app, ["demo", "--skill", "9"])
    assert result.exit_code == 2


@pytest.mark.engine
def test_demo_writes_summary_steps_demo_and_map(tmp_path):
    result = runner.invoke(app, ["demo", "--max-frames", "200", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["outcome"] == "max_frames" and summary["frames"] == 200
    assert summary["rooms_entered"][0] == {"frame": 0, "room": "A"}
    steps = (tmp_path / "steps.jsonl").read_text().splitlines()
    assert len(steps) == summary["decisions"] == 100
    assert json.loads(steps[0])["frame"] == 0
    assert (tmp_path / "episode.lmp").stat().st_size > 0
    assert (tmp_path / "map.png").stat().st_size > 0


def test_python_dash_m_runs_the_cli():
    proc = subprocess.run([sys.executable, "-m", "doomagent", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "map" in proc.stdout and "demo" in proc.stdout


def test_user_text_prints_literally_and_unwrapped(tmp_path):
    long_name = "rec[bold]" + "x" * 150
    result = runner.invoke(app, ["run", long_name])
    assert result.exit_code == 2
    assert f"recipe '{long_name}' not found" in result.output  # no markup eaten, no line wrapped
    listed = runner.invoke(app, ["recipes"])
    assert listed.exit_code == 0 and all(f"\n{n} " in "\n" + listed.output for n in ("naive", "plan", "k-levels"))


@pytest.mark.parametrize("command", ["run", "eval"])
def test_a_map_the_wad_lacks_is_refused_before_any_folder_is_written(command, tmp_path):
    out = tmp_path / "out"
    args = [command, "naive", "--model", "test", "--vision-model", "test", "--set", "env.map=E9M9", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "map 'E9M9' is not in freedoom1.wad" in result.output, result.output
    assert not out.exists()
