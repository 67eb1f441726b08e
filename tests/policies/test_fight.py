"""How the reference navigator fights, on freedoom1 E1M1's real geometry (and E1M8's narrow corridor), without the
engine: it runs to turn toward a monster far off its view and walks to aim, never leaves a monster biting it be as
out of reach, rounds a monster when its back is to a wall, and gives ground in a corridor narrower than the
walkable grid's cells allow."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.actions import Action
from doomagent.env.observation import Hud, LiveMap, Observation, VisibleObject
from doomagent.env.rooms import auto_rooms
from doomagent.policies import ReferenceNavigator
from doomagent.policies._supplies import Supply
from doomagent.policies.reference import BOXED_AFTER, BOXED_NEAR, TARGET_DECISIONS

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

PISTOL = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))


def _navigator(rooms) -> ReferenceNavigator:
    g = rooms.geometry
    nav = ReferenceNavigator.for_map(rooms)
    nav.explorer._update(LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset()))
    return nav


def _monster(name: str, distance: float, bearing: float, ident: int = 5) -> VisibleObject:
    # Its box on a 640-wide screen: left of the centre for a positive bearing, across it when straight ahead.
    x = int(320 - bearing * 6.4) - 20
    return VisibleObject(ident, name, "Monster", (x, 150, 40, 80), distance, bearing)


def _seen(
    monster: VisibleObject, *, running: bool, at=(-416.0, 256.0), angle: float = 0.0, hud: Hud = PISTOL
) -> Observation:
    return Observation(np.zeros((4, 4, 3), np.uint8), hud, (*at, 0.0), angle, 0, "A", 140, (monster,), running)


def _boxed_in(rooms, monsters, seen: tuple[VisibleObject, ...], held: int, running: bool = True):
    """Return a god-mode navigator that has kept to (-300, 256) for `held` decisions, and what it sees there."""
    g = rooms.geometry
    nav = ReferenceNavigator.for_map(rooms, god=True)
    live = LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), monsters)
    nav.explorer._update(live)
    nav._anchor, nav._decisions = (-300.0, 256.0, 0), held
    screen = np.zeros((4, 4, 3), np.uint8)
    obs = Observation(screen, PISTOL, (-300.0, 256.0, 0.0), 0.0, 0, "A", 140, seen, running, live)
    return nav, obs


def test_a_fight_runs_to_turn_toward_a_monster_far_off_the_view_and_walks_to_aim(e1m1_rooms):
    nav = _navigator(e1m1_rooms)
    # A running turn is twice as fast: 50 degrees off, a walking player starts to run first, a running one turns.
    assert nav.act(_seen(_monster("ShotgunGuy", 300.0, 50.0), running=False)) == Action.SPEED
    assert nav.act(_seen(_monster("ShotgunGuy", 300.0, 50.0), running=True)) == Action.LEFT
    assert nav.act(_seen(_monster("ShotgunGuy", 300.0, 20.0), running=True)) == Action.LEFT  # still well off
    # Near the view, it walks (finer turns) to aim; a monster 20 degrees off is turned to at a walk.
    assert nav.act(_seen(_monster("ShotgunGuy", 300.0, 8.0), running=True)) == Action.SPEED
    assert nav.act(_seen(_monster("ShotgunGuy", 300.0, 20.0), running=False)) == Action.LEFT
    nav._shots = 10  # past the sidesteps a fight starts with
    assert nav.act(_seen(_monster("ShotgunGuy", 300.0, 0.0), running=False)) == Action.FIRE


def test_a_monster_biting_the_player_is_never_left_be_as_out_of_reach(e1m1_rooms):
    nav = _navigator(e1m1_rooms)
    # Shot at for TARGET_DECISIONS decisions without dying: far off, its bullets stop at bars or a ledge.
    far = _monster("Zombieman", 400.0, 0.0, ident=11)
    nav._fired[far.id] = TARGET_DECISIONS
    nav.act(_seen(far, running=False))
    assert nav._ignored.get(far.id, 0) > nav._decisions
    # Close by it is in reach whatever the count says: a demon biting the player is fought on.
    near = _monster("Demon", 60.0, 0.0, ident=12)
    nav._fired[near.id] = TARGET_DECISIONS
    nav.act(_seen(near, running=False))
    assert near.id not in nav._ignored


def test_with_its_back_to_a_wall_it_rounds_a_biter_instead_of_backing_off(e1m1_rooms):
    nav = _navigator(e1m1_rooms)
    wall_behind = {"at": (-470.0, 256.0), "angle": 0.0}  # the start room's west wall, 16 units behind
    demon = _monster("Demon", 120.0, 0.0)
    probe = _seen(demon, running=False, **wall_behind)
    assert not nav._safe(probe, 180.0) and nav._safe(probe, 90.0) and nav._safe(probe, -90.0)
    nav._ammo = (2, 51)  # the pistol fired a moment ago: not ready yet, so the biter is not to be stood up to
    nav._shots = 10  # past the sidesteps a fight starts with
    assert nav.act(probe) in (Action.STRAFE_LEFT, Action.STRAFE_RIGHT)
    # With room behind, it backs off as before.
    nav = _navigator(e1m1_rooms)
    nav._ammo = (2, 51)
    assert nav.act(_seen(demon, running=False)) == Action.DOWN


def test_in_a_corridor_narrower_than_the_grid_allows_ground_is_still_given():
    # freedoom1 E1M8: at (816, -1961), on the way north to the barons, no grid cell has a player's radius clear of
    # the walls round it, so the grid's straight-walk test fails every way; the way back is open all the same.
    rooms = auto_rooms(MapGeometry.load("E1M8"))
    nav = _navigator(rooms)
    here, facing = (816.0, -1961.0), 104.0
    seen = _seen(_monster("BaronOfHell", 120.0, 0.0), running=False, at=here, angle=facing)
    assert not nav.explorer.clear(here, (here[0] + 11.6, here[1] - 46.6))  # 48 units back, off the grid
    assert nav._safe(seen, 180.0)


def test_a_tough_monster_close_by_is_fought_even_with_the_pistol_alone(e1m1_rooms):
    # With the pistol alone a cacodemon far off is left be (the shotgun on the map is fetched first); one within
    # clawing distance, or in the way to the gun, is fought all the same.
    nav = _navigator(e1m1_rooms)
    supplies = nav.explorer.supplies
    supplies.items.append(Supply((640.0, -992.0), "weapon 3", supplies.items[-1].cell))  # a shotgun left on the map
    far = _monster("Cacodemon", 500.0, 0.0, ident=21)
    g = e1m1_rooms.geometry
    live = LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset())
    nav.act(dataclasses.replace(_seen(far, running=True), live=live))  # walked on from (the explorer reads the map)
    assert far.id not in nav._fired
    near = _monster("Cacodemon", 150.0, 0.0, ident=22)
    nav.act(_seen(near, running=False))
    assert nav._fired.get(near.id) == 1


def test_every_live_monster_in_view_is_fought_however_its_box_is_shaped_and_a_corpse_never(e1m1_rooms):
    # The engine labels a live monster "Monster" and a corpse "Gore" (its name prefixed "Dead"): no box shape
    # stands in for that. A shotgun guy that stepped back from 100 to 190 units has a box half as tall as it had; an
    # arachnotron's box is twice as wide as it is tall. Both are fought; a corpse in view is not.
    nav = _navigator(e1m1_rooms)
    nav._shots = 10  # past the sidesteps a fight starts with
    near = VisibleObject(31, "ShotgunGuy", "Monster", (250, 130, 70, 180), 100.0, 0.0)
    assert nav.act(_seen(near, running=False)) == Action.FIRE
    stepped_back = VisibleObject(31, "ShotgunGuy", "Monster", (290, 150, 40, 95), 190.0, 0.0)
    assert nav.act(_seen(stepped_back, running=False)) == Action.FIRE
    wide = VisibleObject(32, "Arachnotron", "Monster", (250, 170, 140, 64), 400.0, 0.0)
    nav.act(_seen(wide, running=False))
    assert nav._fired.get(wide.id) == 1
    corpse = VisibleObject(33, "DeadDoomImp", "Gore", (300, 200, 60, 20), 150.0, 0.0)
    nav.act(_seen(corpse, running=False))
    assert corpse.id not in nav._fired


def test_an_imp_close_by_is_backed_away_from_while_the_gun_reloads(e1m1_rooms):
    nav = _navigator(e1m1_rooms)
    nav._ammo, nav._shots = (2, 51), 10  # the pistol fired a moment ago; past the sidesteps a fight starts with
    assert nav.act(_seen(_monster("DoomImp", 90.0, 0.0), running=False)) == Action.DOWN
    nav = _navigator(e1m1_rooms)
    nav._ammo, nav._shots = (2, 51), 10
    assert nav.act(_seen(_monster("DoomImp", 200.0, 0.0), running=False)) == Action.FIRE  # out of its claws' reach


def test_taking_no_damage_and_hemmed_in_it_fights_whatever_is_near(e1m1_rooms):
    # freedoom1 E3M9 (seed 8000, reference-nav): a demon ahead, a spectre and an imp behind held the player still
    # until the engine called it stuck; taking no damage, it fought only what stood close ahead of it.
    imp_behind = (("DoomImp", -340.0, 246.0),)
    nav, obs = _boxed_in(e1m1_rooms, imp_behind, (), BOXED_AFTER - 5)
    assert nav._boxed(obs) is None  # held a short while: a lift's wait, a door's
    nav, obs = _boxed_in(e1m1_rooms, (("DoomImp", -300.0 - 2 * BOXED_NEAR, 256.0),), (), BOXED_AFTER + 5)
    assert nav._boxed(obs) is None  # nothing close: held by something else
    nav, obs = _boxed_in(e1m1_rooms, imp_behind, (), BOXED_AFTER + 5)
    assert nav._boxed(obs) == imp_behind[0][1:]
    assert nav.act(obs) == Action.RIGHT  # it turns to the imp behind it (a bearing of about -166 degrees)
    # One ahead that the screen does not show stands behind a wall: no shots at the wall (freedoom1 E3M6 fired at
    # one in a cage to the engine's stuck limit), the walk goes on.
    nav, obs = _boxed_in(e1m1_rooms, (("DoomImp", -240.0, 256.0),), (), BOXED_AFTER + 5)
    assert nav._boxed(obs) is not None and nav.act(obs) != Action.FIRE
    # And once the walk turns it away, it is not turned back to face the wall (freedoom1 E3M5, atop a lift: the two
    # turns took turns for 100 decisions): it counts as held afresh from the moment the wall was found.
    away = dataclasses.replace(obs, angle=180.0)
    assert nav._boxed(away) is None
    # A demon beside it (out of the 96 units ahead fought while walking) is turned to, and shot with no ground given.
    demon = _monster("Demon", 150.0, 90.0, ident=31)
    nav, obs = _boxed_in(e1m1_rooms, (("Demon", -300.0, 406.0),), (demon,), BOXED_AFTER + 5)
    assert nav.act(obs) == Action.LEFT
    close = _monster("Demon", 60.0, 0.0, ident=32)
    nav, obs = _boxed_in(e1m1_rooms, (("Demon", -240.0, 256.0),), (close,), BOXED_AFTER + 5, running=False)
    nav._shots = 11  # the next shot is one that walking without damage backs off on
    assert nav.act(obs) == Action.FIRE


def test_a_monster_left_be_as_out_of_reach_is_fought_again_once_it_comes_close(e1m1_rooms):
    nav = _navigator(e1m1_rooms)
    imp = _monster("DoomImp", 400.0, 0.0, ident=13)
    nav._fired[imp.id] = TARGET_DECISIONS  # shot at from afar without dying: left be
    nav.act(_seen(imp, running=False))
    assert nav._ignored.get(imp.id, 0) > nav._decisions
    # Left be, it walked up to the player (freedoom1 E1M1: clawed to death while the walk went round it).
    nav._shots = 10
    assert nav.act(_seen(_monster("DoomImp", 100.0, 0.0, ident=13), running=False)) == Action.FIRE
