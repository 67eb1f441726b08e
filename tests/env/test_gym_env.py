"""The Gymnasium contract: registered on `import doomagent`, spaces that hold every observation, check_env."""

import subprocess
import sys
import warnings

import numpy as np
import pytest


@pytest.mark.engine
def test_check_env_passes_without_warnings():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import doomagent

    env = gym.make(doomagent.ENV_ID, max_frames=40)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
        assert [str(w.message) for w in caught] == []
    finally:
        env.close()


@pytest.mark.engine
def test_every_observation_lies_in_the_space_and_the_typed_record_is_kept():
    from doomagent import Action, DoomGymEnv

    env = DoomGymEnv(max_frames=60)
    try:
        obs, _ = env.reset(seed=2)
        assert env.observation_space.contains(obs)
        assert obs["room"] == 1 and env.observation is not None and env.observation.room == "A"
        for i in range(30):
            action = [Action.UP, Action.LEFT, Action.FIRE][i % 3]
            obs, reward, terminated, truncated, _ = env.step(list(Action).index(action))
            assert env.observation_space.contains(obs), obs
            assert isinstance(reward, float)
            if terminated or truncated:
                break
        assert obs["hud"][0] == env.observation.hud.health
        np.testing.assert_array_equal(obs["screen"], env.render())
    finally:
        env.close()


def _fresh(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)


def test_import_doomagent_registers_the_id_before_or_after_gymnasium():
    for code in (
        "import doomagent, gymnasium as gym; print(gym.spec('doomagent/Doom-v0').entry_point)",
        "import gymnasium as gym, doomagent; print(gym.spec('doomagent/Doom-v0').entry_point)",
    ):
        done = _fresh(code)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "doomagent.env.gym_env:DoomGymEnv"


def test_importing_recipes_loads_no_engine_gymnasium_or_networkx():
    done = _fresh(
        "import sys, doomagent.recipes, doomagent; "
        "print(sorted(m for m in ('vizdoom', 'gymnasium', 'networkx', 'litellm', 'langgraph') if m in sys.modules))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
