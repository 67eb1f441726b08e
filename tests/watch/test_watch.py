"""`doomagent watch`: the live view in a real headless browser (Debian's Chromium through Playwright)."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from doomagent.cli import app

pytestmark = pytest.mark.engine
runner = CliRunner()
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
RUN = [sys.executable, "-m", "doomagent", "run", "naive", "--model", "test", "--vision-model", "test"]


def _serve(folder: Path) -> tuple[subprocess.Popen, str]:
    """Start `doomagent watch` on a free port; return the process and its address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "doomagent", "watch", str(folder), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert " at http://127.0.0.1:" in line, line
    return proc, line.split(" at ", 1)[1].split()[0]


def _steps(trial: Path) -> list[dict]:
    return [json.loads(line) for line in (trial / "steps.jsonl").read_text().splitlines()]


@pytest.mark.engine
def test_a_folder_that_is_not_a_run_is_refused(tmp_path):
    result = runner.invoke(app, ["watch", str(tmp_path)])
    assert result.exit_code == 2 and "is not a run or eval folder" in result.output
    result = runner.invoke(app, ["watch", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "is not a folder" in result.output


@pytest.mark.engine
def test_folders_of_earlier_versions_show_from_their_logs(tmp_path):
    from starlette.testclient import TestClient

    from doomagent.watch import make_app

    subprocess.run([*RUN, "--max-frames", "60", "--out", str(tmp_path)], check=True, capture_output=True)
    trial = tmp_path / "trial-000"
    shutil.rmtree(trial / "live")  # what earlier versions wrote: no live/ folder, no newer summary keys
    summary = json.loads((trial / "summary.json").read_text())
    for key in ("wait_frames", "resumes"):
        summary.pop(key)
    (trial / "summary.json").write_text(json.dumps(summary))
    with TestClient(make_app(tmp_path)) as client:
        cards = client.get("/api/overview").json()["cards"]
        assert [c["id"] for c in cards] == ["trial-000"] and cards[0]["status"] == "max_frames"
        detail = client.get("/api/trial/trial-000").json()
        assert detail["decisions"] == 30 and detail["room"] == "A" and not detail["has_screen"]
        assert detail["last"][-1]["action"] == _steps(trial)[-1]["action"]
        assert client.get("/api/frame/trial-000?decision=5").headers["x-action"] == _steps(trial)[5]["action"]
        assert client.get("/api/trial/nope").status_code == 404
        assert client.get("/api/frame/trial-000?decision=999").status_code == 400


@pytest.mark.engine
def test_an_eval_over_several_maps_shows_each_trial_on_its_own_map(tmp_path):
    from starlette.testclient import TestClient

    from doomagent.watch import make_app

    out = tmp_path / "suite"
    cmd = [
        sys.executable,
        "-m",
        "doomagent",
        "eval",
        "naive",
        "--model",
        "test",
        "--vision-model",
        "test",
        "--maps",
        "E1M1,E1M4",
        "--trials",
        "1",
        "--max-frames",
        "20",
        "--out",
        str(out),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=280)
    with TestClient(make_app(out)) as client:
        cards = client.get("/api/overview").json()["cards"]
        ids = sorted(c["id"] for c in cards)
        assert ids == ["freedoom1_E1M1/naive__test/trial-000", "freedoom1_E1M4/naive__test/trial-000"]
        names = {i: client.get("/api/map", params={"trial": i}).json()["name"] for i in ids}
        assert names == {ids[0]: "freedoom1.wad E1M1", ids[1]: "freedoom1.wad E1M4"}
        assert client.get("/api/map", params={"trial": "nope"}).status_code == 404


@pytest.mark.engine
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_browser_shows_a_trial_live_then_scrubs_its_replay(tmp_path):
    from playwright.sync_api import sync_playwright

    slow = ["--set", "agent.extra={latency: 0.04}", "--set", "vision.extra={latency: 0.04}"]
    run = subprocess.Popen([*RUN, *slow, "--max-frames", "500", "--out", str(tmp_path)], stdout=subprocess.DEVNULL)
    trial = tmp_path / "trial-000"
    deadline = time.time() + 60
    while not (trial / "live" / "screen.jpg").exists() and time.time() < deadline:
        time.sleep(0.1)
    server, url = _serve(tmp_path)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.goto(url)
            page.wait_for_selector(".card[data-trial='trial-000'] .badge.playing", timeout=30_000)
            page.goto(url + "trial/trial-000")
            page.wait_for_selector("#last .action", timeout=30_000)
            assert run.poll() is None, "the trial ended before the live view was checked"
            live = json.loads((trial / "live" / "status.json").read_text())
            assert page.inner_text("#room") in {f"room {live['room']}", "room A"}
            recent = {s["action"] for s in _steps(trial)[-40:]}
            assert page.inner_text("#last .action").split(" (")[0] in recent
            first = page.locator("#screen").screenshot()
            time.sleep(1.5)
            page.wait_for_function("document.getElementById('screen').complete")
            second = page.locator("#screen").screenshot()
            assert first != second  # the screen moved on between two looks

            assert run.wait(120) == 0
            page.wait_for_selector("#scrubber:not([hidden])", timeout=30_000)
            steps = _steps(trial)
            k = 137
            with page.expect_response(lambda r: "/api/frame/" in r.url) as answer:
                page.locator("#decision").fill(str(k))
            assert answer.value.status == 200 and answer.value.headers["x-action"] == steps[k]["action"]
            page.wait_for_function("document.getElementById('screen').naturalWidth === 640")
            assert page.inner_text("#chosen-action") == steps[k]["action"]
            assert f"at decision {k}, frame {steps[k]['frame']}" in page.inner_text("#chosen")
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
        if run.poll() is None:
            run.kill()
