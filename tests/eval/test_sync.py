"""Carrying a trial folder between machines: whole, and as the changes since last time."""

from __future__ import annotations

from pathlib import Path

import pytest

from doomagent.errors import RunError
from doomagent.eval.sync import FolderSync, apply_delta, pack, unpack


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_deltas_keep_the_drivers_copy_equal_to_the_workers_folder(tmp_path: Path) -> None:
    worker, driver = tmp_path / "worker", tmp_path / "driver"
    worker.mkdir()
    sync = FolderSync(worker)
    (worker / "steps.jsonl").write_text('{"a": 1}\n')
    (worker / "prompts").mkdir()
    (worker / "prompts" / "abc.txt").write_text("prompt")
    apply_delta(driver, sync.delta())
    assert _tree(driver) == _tree(worker)

    with (worker / "steps.jsonl").open("a") as f:
        f.write('{"a": 2}\n')
    (worker / "checkpoint").mkdir()
    (worker / "checkpoint" / "meta.json").write_text("{}")
    delta = sync.delta()
    assert delta["append"] == {"steps.jsonl": (9, b'{"a": 2}\n')}  # only the new bytes travel
    put = delta["put"]
    assert isinstance(put, dict) and set(put) == {"checkpoint/meta.json"}
    apply_delta(driver, delta)
    assert _tree(driver) == _tree(worker)

    (worker / "checkpoint" / "meta.json").unlink()
    (worker / "checkpoint").rmdir()
    (worker / "summary.json").write_text("{}")
    apply_delta(driver, sync.delta())
    assert _tree(driver) == _tree(worker) and not (driver / "checkpoint").exists()
    assert sync.delta() == {"append": {}, "put": {}, "delete": []}


def test_a_resumed_worker_rewrites_the_logs_from_the_checkpoints_lengths(tmp_path: Path) -> None:
    driver, worker = tmp_path / "driver", tmp_path / "worker"
    driver.mkdir()
    (driver / "steps.jsonl").write_text("one\ntwo\nthree\n")  # "three" came after the checkpoint
    unpack(pack(driver), worker)
    sync = FolderSync.after_unpack(worker, {"steps.jsonl": 8})
    with (worker / "steps.jsonl").open("r+") as f:  # the resumed trial cuts back to its checkpoint
        f.truncate(8)
    with (worker / "steps.jsonl").open("a") as f:
        f.write("THREE\nfour\n")
    apply_delta(driver, sync.delta())
    assert (driver / "steps.jsonl").read_text() == "one\ntwo\nTHREE\nfour\n"


def test_a_delta_cannot_write_outside_the_trial_folder(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="outside"):
        apply_delta(tmp_path / "trial", {"append": {}, "put": {"../evil.txt": b"x"}, "delete": []})
    assert not (tmp_path / "evil.txt").exists()
    assert pack(tmp_path / "missing") == b""
