"""A dead engine never hangs the process and never changes its exit status (doomagent/env/_engine.py)."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.engine


def _child(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        check=False,
    )


@pytest.mark.parametrize("then", ["close", "step", "nothing"])
def test_a_program_that_lost_its_engine_exits_with_its_own_status(then, tmp_path):
    done = _child(
        """
        import os, signal, sys, time
        from doomagent.env import DoomEnv
        from doomagent.env._engine import abandoned_engines
        from doomagent.errors import EngineError
        env = DoomEnv()
        env.reset(seed=1, options={"record": sys.argv[1]})  # a game recording a demo: its close would hang
        env.step("UP")
        for pid in env._link.pids:
            os.kill(pid, signal.SIGKILL)
        while env._link.alive():
            time.sleep(0.01)
        if sys.argv[2] == "close":
            env.close()
        elif sys.argv[2] == "step":
            try:
                env.step("UP")
            except EngineError as exc:
                print("step:", exc.message)
        print("abandoned", abandoned_engines())
        sys.exit(3)  # with "nothing", the interpreter's exit meets the dead engine's game
        """,
        str(tmp_path / "episode.lmp"),
        then,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"abandoned {0 if then == 'nothing' else 1}" in done.stdout


def test_an_engine_killed_in_the_middle_of_a_call_is_an_engine_error_not_a_hang(tmp_path):
    done = _child(
        """
        import os, signal, sys, threading, time
        from doomagent.env import DoomEnv
        from doomagent.errors import EngineError
        env = DoomEnv(max_frames=None, stuck_frames=10**9)
        env.reset(seed=1, options={"record": sys.argv[1]})
        pids = list(env._link.pids)
        steps = [0]

        def kill_soon():
            while steps[0] < 50:
                time.sleep(0.001)
            for pid in pids:
                os.kill(pid, signal.SIGKILL)

        threading.Thread(target=kill_soon, daemon=True).start()
        try:
            while True:  # the kill lands while the engine plays one of these steps
                env.step("UP")
                steps[0] += 1
        except EngineError as exc:
            print("engine error:", exc.message)
        env.close()
        print("closed")
        sys.exit(5)
        """,
        str(tmp_path / "episode.lmp"),
        timeout=90,
    )
    assert done.returncode == 5, done.stdout + done.stderr
    assert "engine error: the ViZDoom engine stopped unexpectedly" in done.stdout and "closed" in done.stdout


def test_the_engine_runs_in_a_session_of_its_own_and_closes_with_its_demo(tmp_path):
    from doomagent.env import DoomEnv

    env = DoomEnv()
    env.reset(seed=1, options={"record": tmp_path / "episode.lmp"})
    env.step("UP")
    (pid,) = env._link.pids
    assert os.getsid(pid) == pid != os.getsid(0)  # signals to doomagent's process group do not reach it
    env.close()
    deadline = time.time() + 10
    while time.time() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()
    assert (tmp_path / "episode.lmp").stat().st_size > 0


def test_games_started_at_once_on_threads_of_one_process_each_start_and_own_one_engine():
    # Two MCP sessions starting games together: without doomagent.env._engine.STARTING, a map's rooms (numpy's
    # eigh) could spin for ever while the other thread's engine forked, or one game take both engines as its own.
    done = _child(
        """
        import sys, threading
        from doomagent.env import DoomEnv
        envs, errors = {}, []

        def start(name):
            try:
                env = DoomEnv(map=name)
                env.reset(seed=1)
                env.step("UP")
                envs[name] = env
            except Exception as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=start, args=(m,), daemon=True) for m in ("E1M2", "E1M3", "E1M4")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(100)
        print("running", sum(t.is_alive() for t in threads), "errors", errors, flush=True)
        pids = [sorted(env._link.pids) for env in envs.values()]
        print("pids", pids, flush=True)
        for env in envs.values():
            env.close()
        sys.exit(0 if len(pids) == 3 and all(len(p) == 1 for p in pids) and len({p[0] for p in pids}) == 3 else 4)
        """,
        timeout=150,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "running 0 errors []" in done.stdout
