"""`doomagent play` in headless Chromium (Playwright, Debian's browser): key presses move and turn the player, the
trial is recorded as recipe `human`, and report shows a human row (the real engine)."""

import shutil
import subprocess
import sys

import pytest

from doomagent.eval.report import write_report
from doomagent.rundir.log import read_jsonl


def _browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no system Chromium (apt-get install chromium)")
    return chromium


def _dataset(page):
    return page.evaluate("() => ({...document.getElementById('bar').dataset})")


@pytest.mark.engine
def test_a_person_plays_by_key_presses_and_gets_a_human_row(tmp_path):
    from playwright.sync_api import sync_playwright

    out = tmp_path / "human"
    server = subprocess.Popen(
        [sys.executable, "-m", "doomagent", "play", "--port", "0", "--out", str(out), "--max-frames", "2000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().rsplit(" at ", 1)[1]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_browser())
            page = browser.new_page()
            page.goto(url)
            page.wait_for_function("() => document.getElementById('bar').dataset.decisions === '0'")
            start = _dataset(page)
            for key in ["ArrowUp"] * 6:
                page.keyboard.press(key)
                page.wait_for_timeout(30)
            page.wait_for_function("() => document.getElementById('bar').dataset.decisions === '6'")
            walked = _dataset(page)
            for key in ["ArrowLeft"] * 3:
                page.keyboard.press(key)
            page.wait_for_function("() => document.getElementById('bar').dataset.decisions === '9'")
            turned = _dataset(page)
            page.keyboard.down("Alt")
            page.keyboard.press("ArrowRight")
            page.keyboard.up("Alt")
            page.wait_for_function("() => document.getElementById('bar').dataset.decisions === '10'")
            page.click("#end")
            page.wait_for_function("() => document.getElementById('bar').dataset.outcome === 'ended'")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert float(walked["x"]) > float(start["x"]) + 20  # E1M1 starts facing east: UP walks east
    assert float(turned["angle"]) > float(walked["angle"])  # LEFT turns counter-clockwise
    trial = out / "freedoom1_E1M1" / "human" / "trial-000"
    steps = read_jsonl(trial / "steps.jsonl")
    assert [s["action"] for s in steps] == ["UP"] * 6 + ["LEFT"] * 3 + ["STRAFE RIGHT"]
    report = write_report([out], tmp_path / "report")
    assert "| human |" in (report / "report.md").read_text()


@pytest.mark.engine
def test_real_time_play_runs_on_and_plays_the_held_key(tmp_path):
    import json
    import time
    import urllib.request

    out = tmp_path / "human"
    server = subprocess.Popen(
        [sys.executable, "-m", "doomagent", "play", "--port", "0", "--out", str(out), "--protocol", "realtime"],
        stdout=subprocess.PIPE,
        text=True,
    )

    def call(path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        with urllib.request.urlopen(url + path, data=data, timeout=10) as reply:
            return json.loads(reply.read())

    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().rsplit(" at ", 1)[1].rstrip("/")
        call("/api/key", {"key": "UP", "down": True})
        moving = call("/api/state")
        while call("/api/state")["decisions"] < moving["decisions"] + 10:  # the clock plays the held key
            time.sleep(0.05)
        call("/api/key", {"key": "UP", "down": False})
        held = call("/api/state")
        while call("/api/state")["decisions"] < held["decisions"] + 10:  # and WAIT with no key held
            time.sleep(0.05)
        ended = call("/api/end", {})
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert held["x"] > moving["x"] and ended["outcome"] == "ended"
    steps = read_jsonl(out / "freedoom1_E1M1" / "human" / "trial-000" / "steps.jsonl")
    actions = [s["action"] for s in steps]
    assert "UP" in actions and actions[-1] == "WAIT" and len(actions) >= 20
