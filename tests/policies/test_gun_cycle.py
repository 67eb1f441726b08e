"""The reference navigator's RELOAD against the engine: how long each gun takes from one shot to the next."""

from __future__ import annotations

import itertools

import pytest

from doomagent.env import DoomEnv, EnvConfig
from doomagent.env.actions import Action
from doomagent.policies.reference import RELOAD


@pytest.mark.engine
def test_reload_is_each_guns_own_cycle():
    # With FIRE pressed every decision, a gun fires as soon as it is ready; the navigator sees the ammo fall one
    # decision after the shot and counts the decisions after that one during which pressing FIRE would do nothing.
    env = DoomEnv(EnvConfig(wad="freedoom1.wad", map="E1M1", god=True, cheats=True))
    try:
        obs, _ = env.reset(seed=1)
        env.send_command("give all")
        for side, slot in enumerate(sorted(RELOAD)):
            for _ in range(30):  # raise the gun
                obs, *_ = env.step(Action(str(slot)))
            for _ in range(12):  # and move a little: the engine ends an episode that keeps to one spot
                obs, *_ = env.step(Action.STRAFE_LEFT if side % 2 else Action.STRAFE_RIGHT)
            assert obs.hud.weapon == slot
            ammo, shots = obs.hud.weapon_ammo, []
            for decision in range(100):
                obs, *_ = env.step(Action.FIRE)
                if obs.hud.weapon_ammo < ammo:
                    shots.append(decision)
                ammo = obs.hud.weapon_ammo
            gaps = {b - a for a, b in itertools.pairwise(shots)}
            assert len(shots) >= 4 and gaps == {RELOAD[slot] + 1}, (slot, shots)
    finally:
        env.close()
