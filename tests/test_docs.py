"""Every Python block of the README and every example runs, offline, from a folder outside the repo."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def _run(args, cwd, timeout=600):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "AZURE_"))}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", LITELLM_OFFLINE_MODE="true", HF_HUB_OFFLINE="1")
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.engine
def test_the_readme_has_its_blocks():
    assert len(BLOCKS) >= 8 and len(EXAMPLES) >= 3


@pytest.mark.engine
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path):
    (tmp_path / "block.py").write_text(BLOCKS[index])
    done = _run([sys.executable, "block.py"], tmp_path)
    assert done.returncode == 0, f"block {index}:\n{BLOCKS[index]}\n{done.stderr[-3000:]}"


@pytest.mark.engine
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(example, tmp_path):
    done = _run([sys.executable, str(example), "--max-frames", "40", "--out", "run"], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "run" / "summary.json").is_file() and (tmp_path / "run" / "steps.jsonl").read_text()
