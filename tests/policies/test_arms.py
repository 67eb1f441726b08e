"""The guns the reference navigator fights with, on freedoom1's real geometry without the engine: with the pistol
alone, what brings a gun within reach goes before the plan (E1M8's pillars); the rocket launcher is kept while a
tough monster steps out of view; a rocket is not fired past a wall that would set it off in the player's face."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.actions import Action
from doomagent.env.observation import Hud, LiveMap, Observation, VisibleObject
from doomagent.env.progression import plan_for
from doomagent.env.rooms import auto_rooms
from doomagent.policies import ReferenceNavigator
from doomagent.policies._sight import Sight
from doomagent.policies.explorer import REBUILD_EVERY, Explorer

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

ARMED = Hud(health=100, armor=0, ammo={"bullets": 50, "shells": 20}, weapon=3, weapon_ammo=20, weapons=(1, 2, 3))
ROCKETS = Hud(health=100, armor=0, ammo={"shells": 20, "rockets": 10}, weapon=5, weapon_ammo=10, weapons=(1, 2, 3, 5))


def _at_start(name: str) -> tuple[MapGeometry, LiveMap]:
    g = MapGeometry.load(name, "freedoom1.wad")
    return g, LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), ())


def _monster(name: str, distance: float, ident: int = 5) -> VisibleObject:
    return VisibleObject(ident, name, "Monster", (300, 150, 40, 80), distance, 0.0)


def _seen(hud: Hud, *monsters: VisibleObject) -> Observation:
    return Observation(np.zeros((4, 4, 3), np.uint8), hud, (0.0, 0.0, 0.0), 0.0, 0, "A", 140, monsters, False)


def test_with_the_pistol_alone_what_brings_a_gun_within_reach_goes_before_the_plan():
    # freedoom1 E1M8: the shotgun, chaingun and rocket launcher stand in pits of pillars (floor 128) that the
    # tag-3 trigger lines round the armor lower. The plan's first step is across the map, by three barons; the walk
    # went there with the pistol and died. Owning a gun, the plan goes first as before.
    g, live = _at_start("E1M8")
    start = (g.start[0], g.start[1])
    pistol = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    chosen = {}
    for hud in (pistol, ARMED):
        explorer = Explorer.for_map(auto_rooms(g), plan=plan_for(g), god=False)
        explorer._start = (live.floors.copy(), live.ceilings.copy())
        explorer._update(live)
        explorer._detours = []  # (the armor's detour would cross the lines too: the rule is what is tested)
        explorer._think(live, start, hud)
        goal = explorer.walker.goal
        assert goal is not None and goal.what is not None, explorer.log
        chosen[hud.weapons] = (goal.what, explorer.log[-1])
    what, why = chosen[pistol.weapons]
    assert what.kind == "walk" and set(what.moves) >= {50, 55}, why  # the pillars round the chaingun and shotgun
    assert "brings a gun within reach" in why and what.arms >= 2
    what, why = chosen[ARMED.weapons]
    assert "plan's next step" in why and not set(what.moves) & {50, 55}


def test_the_rocket_launcher_is_kept_while_a_tough_monster_steps_out_of_view_or_in_a_little(e1m1_rooms):
    nav = ReferenceNavigator.for_map(e1m1_rooms)
    assert nav._weapon_switch(_seen(ROCKETS, _monster("BaronOfHell", 200.0))) is None  # in hand: kept
    assert nav._weapon_switch(_seen(ROCKETS)) is None  # out of view: kept
    assert nav._weapon_switch(_seen(ROCKETS, _monster("BaronOfHell", 120.0))) == Action.WEAPON_3  # its blast
    shotgun = dataclasses.replace(ROCKETS, weapon=3, weapon_ammo=20)
    assert nav._weapon_switch(_seen(shotgun, _monster("BaronOfHell", 200.0))) is None  # not taken up this near
    assert nav._weapon_switch(_seen(shotgun, _monster("BaronOfHell", 300.0))) == Action.WEAPON_5
    assert nav._weapon_switch(_seen(ROCKETS, _monster("DoomImp", 300.0))) == Action.WEAPON_3  # not on imps
    # Taking no damage, the launcher is taken up and held as before (a switch each decision to the gun in hand
    # fires nothing: freedoom2 MAP07's mancubi held the player in place till the engine's stuck rule ended it).
    god = ReferenceNavigator.for_map(e1m1_rooms, god=True)
    assert god._weapon_switch(_seen(ROCKETS, _monster("BaronOfHell", 300.0))) is None
    assert god._weapon_switch(_seen(shotgun, _monster("BaronOfHell", 300.0))) == Action.WEAPON_5
    # And close by too: its blast costs nothing (freedoom1 E3M6, seed 8000: two barons clawing at the player for 1,000
    # frames while the shotgun took them on, till the engine's stuck rule ended the trial).
    assert god._weapon_switch(_seen(ROCKETS, _monster("BaronOfHell", 60.0))) is None
    assert god._weapon_switch(_seen(shotgun, _monster("BaronOfHell", 60.0))) == Action.WEAPON_5
    assert god._weapon_switch(_seen(ROCKETS, _monster("DoomImp", 60.0))) == Action.WEAPON_3  # still not on imps


def test_a_rocket_is_not_fired_past_a_wall_beside_the_line_of_fire():
    # freedoom1 E1M8 (seed 8100): fired from about (-2, -376) at 169 degrees toward a baron, a rocket went off some
    # 90 units out: its line passes 10 units from the wall at y = -352 (the foot of a pillar), its 11-unit radius
    # does not, and the blast took 66 of the player's health and armor.
    g, live = _at_start("E1M8")
    sight = Sight(g)
    assert sight.sees(live, (-2.0, -376.0, 41.0), (-250.0, -330.0))  # the eye sees the baron past it
    assert sight.clear_shot(live, (-2.0, -376.0, 0.0), 169.0, 224.0, radius=0.0)  # a bullet's line passes
    assert not sight.clear_shot(live, (-2.0, -376.0, 0.0), 169.0, 224.0, radius=11.0)
    assert sight.clear_shot(live, (-2.0, -387.0, 0.0), 169.0, 224.0, radius=11.0)  # a sidestep on, it is clear


def test_a_rocket_fired_on_a_diagonal_sweeps_its_box_past_a_corner():
    # freedoom1 E1M8 (seed 9323): fired from (18, -577) at 315.7 degrees toward a baron 550 units off, a rocket went
    # off about 75 units out at the corner (64, -640): a circle of radius 11 passes it by 2.7 units, but Doom moves
    # the rocket as a square box, which on this diagonal reaches 15.6 units either side of its line. The blast took
    # 67 of the player's 69 health.
    g, live = _at_start("E1M8")
    sight = Sight(g)
    assert not sight.clear_shot(live, (18.0, -577.0, 0.0), 315.7, 224.0, radius=11.0)
    assert sight.clear_shot(live, (18.0, -577.0, 0.0), 315.7, 224.0, radius=0.0)  # a bullet's line passes
    assert sight.clear_shot(live, (40.0, -560.0, 0.0), 315.7, 224.0, radius=11.0)  # two sidesteps on, it is clear


def test_a_gun_close_by_breaks_a_walk_off_once_the_walk_can_reach_it():
    # freedoom1 E1M8: the chaingun and the rocket launcher stand 750 units from the middle of the start hall, in pits
    # of pillars that take 112 tics to lower. The check every 60 decisions found them out of reach while they were
    # lowering and then looked no more for 300 decisions, by when the walk was across the map. One out of reach makes
    # the walk choose again (what brings it within reach may be worth doing now: freedoom1 E1M3 walks on the better
    # for it), and does not hold back the walk to it once it is within reach.
    g, live = _at_start("E1M8")
    pistol = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    explorer = Explorer.for_map(auto_rooms(g), plan=plan_for(g), god=False)
    explorer._update(live)
    hall = (2464.0, -100.0)
    assert explorer._weapon_near(hall, pistol)  # behind the pillars: choose again
    assert not explorer._weapon_near(hall, pistol)  # not again for a while
    lowered = live.floors.copy()
    lowered[[50, 55]] = (16.0, 8.0)  # the pillars round the chaingun and the rocket launcher, and the shotgun, down
    explorer._built_at -= REBUILD_EVERY  # (the walk is rebuilt at most this often while the map moves)
    explorer._update(LiveMap(lowered, live.ceilings, frozenset(), ()))
    assert explorer._weapon_near(hall, pistol)  # within reach now: the walk to it at once
    assert not explorer._weapon_near(hall, pistol)  # the walk to it is on: not again for a while


def test_a_target_of_several_lines_is_shot_at_the_line_in_view():
    # freedoom1 E2M8: one tag-3 target (special 46) is three lines in three closets across the map (the chaingun's
    # at x = 1128, the rocket launcher's at y = -680, the shotgun's at y = 1384). The shot aimed at the first line's
    # middle from in front of another, through walls, and moved nothing; it is aimed at the line in view.
    from doomagent.policies._interactions import aim_at_target, interactions, target_point

    g = MapGeometry.load("E2M8", "freedoom1.wad")
    rooms = auto_rooms(g)
    target = next(i for i in interactions(rooms) if i.kind == "shoot")
    assert set(target.lines) == {225, 236, 247}
    for line, here in ((225, (1000.0, -480.0)), (236, (-864.0, -560.0)), (247, (32.0, 1300.0))):
        assert aim_at_target(rooms, target, here) == target_point(rooms, line)
    assert target.where == g.line_midpoint(225)  # what was aimed at from everywhere


def test_a_target_is_shot_only_from_where_a_level_shot_gets_to_it():
    # freedoom2 MAP11: the tag-20 target (line 89) is the back wall of a window 88 to 120 units up (sector 589); its
    # cells in front lie on floors -36 and -32, where a bullet flies 36 units over the floor and hits the wall under
    # the window. The walk went there and fired 24 times for nothing. From a floor 52 to 84 up the shot gets in.
    from doomagent.env.observation import LiveMap
    from doomagent.policies._interactions import SHOT_Z, interactions, shot_cells
    from doomagent.policies._livegrid import LiveGrid

    g = MapGeometry.load("MAP11", "freedoom2.wad")
    rooms = auto_rooms(g)
    lg, sight = LiveGrid(rooms), Sight(g)
    target = next(i for i in interactions(rooms) if i.kind == "shoot" and i.lines == (89,))
    live = LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), ())
    assert len(target.cells) and not len(shot_cells(target, lg, sight, live))
    low = next(i for i in interactions(rooms) if i.kind == "shoot" and i.lines == (376,))  # in a room at its height
    assert len(shot_cells(low, lg, sight, live)) == len(low.cells)
    raised = LiveMap(live.floors.copy(), live.ceilings, frozenset(), ())
    sectors = np.unique(lg.sector[target.cells])
    raised.floors[sectors] = 100.0 - SHOT_Z  # (as though the floor in front rose: the bullet flies at 100)
    assert len(shot_cells(target, lg, sight, raised))
