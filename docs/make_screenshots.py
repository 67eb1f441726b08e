"""Take the README's screenshots of `doomagent watch`: an eval of two recipes playing, then one trial.

python docs/make_screenshots.py      # needs the [watch] extra, playwright and Debian's chromium
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).parent / "img"


def main() -> None:
    """Play a small eval, watch it, and save two screenshots."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "eval"
        slow = ["--set", "agent.extra={latency: 0.05}", "--set", "vision.extra={latency: 0.05}"]
        cmd = [sys.executable, "-m", "doomagent", "eval", "plan", "k-levels", "--model", "test", "--vision-model"]
        cmd += ["test", *slow, "--trials", "2", "--workers", "4", "--max-frames", "1600", "--out", str(out)]
        play = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
        while not list(out.rglob("live/screen.jpg")):
            time.sleep(0.2)
        watch = subprocess.Popen(
            [sys.executable, "-m", "doomagent", "watch", str(out), "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert watch.stdout is not None
        url = watch.stdout.readline().split(" at ", 1)[1].split()[0]
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                time.sleep(12)
                page.goto(url)
                page.wait_for_selector(".card canvas")
                time.sleep(1)
                page.screenshot(path=HERE / "watch-overview.png", full_page=True)
                page.goto(url + "trial/k-levels__test/trial-000")
                page.wait_for_selector("#last .action")
                time.sleep(1.5)
                page.screenshot(path=HERE / "watch-trial.png", full_page=False)
                browser.close()
        finally:
            watch.terminate()
            play.terminate()
            play.wait()
    print(f"wrote {HERE / 'watch-overview.png'} and {HERE / 'watch-trial.png'}")


if __name__ == "__main__":
    main()
