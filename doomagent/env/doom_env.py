"""DoomEnv: the real C Doom engine (ViZDoom) behind a Gymnasium-style API, with room tracking."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from doomagent._internal.proc import Reaper, children
from doomagent.env._engine import (
    AMMO_VARIABLES,
    GAME_VARIABLES,
    STARTING,
    VARIABLE_INDEX,
    WARMUP_TICS,
    EngineLink,
    engine_failure,
    is_engine,
    own_session_launcher,
)
from doomagent.env._maps import map_and_rooms
from doomagent.env._recording import DemoPaths, DemoReplay
from doomagent.env.actions import ACTION_BUTTON, BUTTON_NAMES, SPEED_BUTTON, Action, Aim, parse_move
from doomagent.env.config import EnvConfig
from doomagent.env.geometry import resolve_wad
from doomagent.env.observation import KEY_ACTORS, Hud, LiveMap, Observation, VisibleObject, bearing
from doomagent.env.outcome import Outcome
from doomagent.env.tracker import RoomTracker
from doomagent.errors import ActionParseError, ConfigError, EngineError


class DoomEnv(DemoReplay):
    """Play one Doom map through the paper's action set, one decision per `decision_frames` tics.

    The API is Gymnasium's (`reset`, `step`, `render`, `close`) with typed observations (`Observation`:
    screen, HUD, pose, room, objects in view) for LLM agents; `DoomGymEnv` (`gymnasium.make("doomagent/Doom-v0")`)
    is the same game as a `gymnasium.Env` with declared spaces, for RL libraries.

    A motion key is held `motion_hold_frames` tics, which may run into the next decision; any other
    key is pressed `press_frames` tics. SPEED toggles running. Episodes end on the engine's own
    signals: exit, death, stuck (within `stuck_radius` for `stuck_frames`) or the frame cap.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 35}

    def __init__(self, config: EnvConfig | None = None, *, render_mode: str | None = None, **overrides: Any) -> None:
        base = config or EnvConfig()
        try:
            self.config = base.model_copy(update=overrides) if overrides else base
            if overrides:
                self.config = EnvConfig.model_validate(self.config.model_dump())
        except ValueError as exc:
            raise ConfigError(f"invalid environment option: {exc}") from exc
        if render_mode not in (None, "rgb_array"):
            raise ConfigError(f"render_mode {render_mode!r} is not supported", hint="use 'rgb_array' or None")
        self.render_mode = render_mode
        self.wad_path = resolve_wad(self.config.wad)
        with STARTING:  # one game of this process at a time reads its map and starts its engine
            self.geometry, self.rooms = map_and_rooms(self.wad_path, self.config.map, self.config.room_profile)
            self.tracker = RoomTracker(self.rooms, self.config.backtrack)
            self._game = self._make_game()
        self._held = np.zeros(len(BUTTON_NAMES), dtype=np.int64)  # tics left per button
        self._turn = 0.0  # degrees an aim turns in the next tic
        self._last_motion: int | None = None  # button of the last motion key (held while waiting, in real time)
        self._replaying: Path | None = None  # the demo being replayed, if any
        self._running = False
        self._frame = 0
        self._obs: Observation | None = None
        self._keys_at_start: dict[str, int] = {}  # key colour -> key things on the map as the episode began
        self._done = True
        self._anchor = (0.0, 0.0, 0)
        self.recording: Path | None = None
        self._demos = DemoPaths()

    def _make_game(self) -> Any:
        import vizdoom as vzd

        c = self.config
        game = vzd.DoomGame()
        game.set_doom_game_path(str(self.wad_path))
        # Keep the engine's settings file out of the user's working folder.
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "doomagent"
        cache.mkdir(parents=True, exist_ok=True)
        game.set_doom_config_path(str(cache / "_vizdoom.ini"))
        engine = Path(vzd.__file__).with_name("vizdoom")
        if engine.is_file():
            game.set_vizdoom_path(str(own_session_launcher(engine, cache)))
        game.set_doom_map(c.map)
        game.set_doom_skill(c.skill)
        game.set_screen_resolution(getattr(vzd.ScreenResolution, f"RES_{c.resolution}"))
        game.set_screen_format(vzd.ScreenFormat.RGB24)
        game.set_render_hud(c.hud)
        game.set_render_crosshair(False)
        game.set_window_visible(False)
        game.set_sound_enabled(False)
        game.set_mode(vzd.Mode.PLAYER)
        game.set_labels_buffer_enabled(c.objects)
        game.set_objects_info_enabled(c.engine_objects or c.live_map)
        game.set_sectors_info_enabled(c.live_map)
        buttons = [getattr(vzd.Button, b) for b in BUTTON_NAMES]
        if c.grid is not None:
            buttons.append(vzd.Button.TURN_LEFT_RIGHT_DELTA)  # degrees to the right, for aims
        game.set_available_buttons(buttons)
        game.set_available_game_variables([getattr(vzd.GameVariable, v) for v in GAME_VARIABLES])
        game.set_episode_timeout(0)
        # The engine ignores turning for the first tics of a level; start the episode after them
        # so that frame 0 is the first frame the player controls.
        game.set_episode_start_time(WARMUP_TICS)
        game.add_game_args("+vid_forcesurface 0 +cl_run 0")
        if c.cheats or c.god:
            game.add_game_args("+sv_cheats 1")
        before = children()
        try:
            game.init()
        except Exception as exc:  # vizdoom raises its own exception types
            raise EngineError(f"ViZDoom failed to start with {self.wad_path.name} {c.map}: {exc}") from exc
        # The engine is a process of its own that ignores our death: have it killed if we die unannounced.
        self._engine_pids = {p for p in children() - before if is_engine(p)}
        self._reaper = Reaper(self._engine_pids)
        self._link = EngineLink(game, self._engine_pids)
        return game

    # -- Gymnasium API -------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start a new episode; options: `record` (path of a .lmp demo to write)."""
        options = dict(options or {})
        record = options.pop("record", None)
        if options:
            raise ConfigError(f"unknown reset options: {', '.join(options)}", hint="known: record")
        if record is not None:
            self.recording = Path(record)
            self.recording.parent.mkdir(parents=True, exist_ok=True)
        else:
            self.recording = None
        self._engine(self._new_episode, seed, self.recording)
        if self.config.god:
            self._engine(self._game.send_game_command, "god")  # takes hold before the first tic is played
        self._held[:] = 0
        self._last_motion = None
        self._running = False
        self._frame = 0
        self._done = False
        x, y = self._position()
        self.tracker.reset(0, x, y)
        self._anchor = (x, y, 0)
        self._keys_at_start = {}
        self._obs = self._observe()
        return self._obs, self._info(None)

    def step(
        self, action: Action | Aim | str | int, *, lag: int = 0
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Apply one decision and advance `decision_frames` tics (`AIM k` with env.grid: turn to column k in the
        first of them, exactly, then nothing pressed).

        `lag` (the real-time protocol) first lets the game run that many tics while the model thinks: the
        last motion key stays held if `realtime_hold`, else no key is pressed.
        """
        if self._done or self._obs is None:
            raise EngineError("step() called on a finished episode", hint="call reset() first")
        act = self._key(action)
        reward = 0.0
        if lag > 0:
            if self.config.realtime_hold and self._last_motion is not None:
                self._held[self._last_motion] = max(self._held[self._last_motion], lag)
            reward += self._advance(lag)
            if self._game.is_episode_finished() or self._game.is_player_dead():
                outcome = self._outcome()
                self._done = outcome is not None
                if self._done:
                    return self._finish(reward, outcome)
        if act is Action.SPEED:
            self._running = not self._running
        button = ACTION_BUTTON[act]
        if button is not None:
            hold = self.config.motion_hold_frames if act.is_motion else self.config.press_frames
            self._held[button] = max(self._held[button], hold)
            if act.is_motion:
                self._last_motion = button
        reward += self._advance(self.config.decision_frames)
        outcome = self._outcome()
        self._done = outcome is not None
        return self._finish(reward, outcome)

    def _key(self, action: Action | Aim | str | int) -> Action:
        """Return the key a decision presses; an aim (env.grid) sets the turn of its first tic and presses none."""
        move = list(Action)[action] if isinstance(action, (int, np.integer)) else parse_move(action)
        if isinstance(move, Action):
            return move
        grid = self.config.grid
        if grid is None or not 1 <= move.column <= grid:
            raise ActionParseError(
                move.value,
                f"{move.value} needs a grid of at least {move.column} columns"
                + (f" (this one has {grid})" if grid else " (env.grid is not set)"),
                hint="set env.grid: N to aim at columns 1..N",
            )
        self._turn = self.config.aim_angle(move.column)
        return Action.WAIT

    def _finish(self, reward: float, outcome: Outcome | None) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        assert self._obs is not None
        terminated = outcome in (Outcome.EXIT, Outcome.DEATH)
        truncated = outcome in (Outcome.STUCK, Outcome.MAX_FRAMES)
        return self._obs, reward, terminated, truncated, self._info(outcome)

    def render(self) -> np.ndarray | None:
        """Return the last screen as an RGB array."""
        return None if self._obs is None else self._obs.screen

    def close(self) -> None:
        """Stop the engine (this also finishes writing a demo being recorded); never waits on a dead engine."""
        if getattr(self, "_game", None) is not None:  # None too when __init__ failed before the engine started
            self._game = None
            try:
                self._link.finish()  # a dead engine's game is abandoned: closing it would wait for ever
            finally:
                self._reaper.release()
                self._demos.release()

    # -- extras --------------------------------------------------------------------------------

    @property
    def frame(self) -> int:
        """Return the number of tics played in this episode."""
        return self._frame

    def send_command(self, command: str) -> None:
        """Run a console command (cheats such as `warp X Y` need cheats=True); it acts next tic."""
        self._engine(self._game.send_game_command, command)

    def engine_player_sector(self) -> int:
        """Return the sector the engine itself puts the player in (needs engine_objects=True)."""
        state = self._game.get_state()
        if not self.config.engine_objects or state is None or state.objects is None:
            raise ConfigError(
                "the engine's object list is off or the episode is over",
                hint="create the env with engine_objects=True and call during an episode",
            )
        return next(int(o.sector_id) for o in state.objects if o.name == "DoomPlayer")

    # -- internals -----------------------------------------------------------------------------

    def _engine(self, fn: Any, *args: Any) -> Any:
        """Call into the engine on its link: a dead engine is an EngineError, never a call that waits for ever."""
        try:
            return self._link.call(fn, *args)
        except EngineError:
            raise
        except Exception as exc:
            raise engine_failure(exc) from exc

    def _new_episode(self, seed: int | None, record: Path | None) -> None:
        if seed is not None:
            self._game.set_seed(int(seed) % (2**31))
        if record is not None:
            self._game.new_episode(self._demos.engine_path(record))
        else:
            self._game.new_episode()

    def _advance(self, tics: int) -> float:
        reward = float(self._engine(self._play_tics, tics))
        if self._game.is_episode_finished():
            self._obs = self._final_observation()
        else:
            self._obs = self._observe()
        return reward

    def _play_tics(self, tics: int) -> float:
        """Play `tics` tics with the held keys (on the engine's link); return the reward."""
        game = self._game
        reward = 0.0
        done = 0
        while done < tics and not game.is_episode_finished():
            pressed = self._held > 0
            live = self._held[pressed]
            span = min(tics - done, int(live.min()) if live.size else tics - done)
            buttons = pressed.astype(np.float64)
            if self._running:
                buttons[SPEED_BUTTON] = 1.0
            values = buttons.tolist()
            if self.config.grid is not None:  # the turn button of aims, last: degrees, this tic only
                values.append(self._turn)
                if self._turn:
                    span, self._turn = 1, 0.0
            game.set_action(values)
            last = done + span >= tics
            game.advance_action(span, last)
            reward += game.get_last_reward()
            self._held = np.maximum(self._held - span, 0)
            done += span
        self._frame += done
        return reward

    def _position(self) -> tuple[float, float]:
        vzd = _vzd()
        return (
            self._game.get_game_variable(vzd.GameVariable.POSITION_X),
            self._game.get_game_variable(vzd.GameVariable.POSITION_Y),
        )

    def _observe(self) -> Observation:
        state = self._game.get_state()
        if state is None:
            return self._final_observation()
        v = state.game_variables
        x, y, z, angle = float(v[0]), float(v[1]), float(v[2]), float(v[3])
        sector = self.geometry.sector_at(x, y)
        room = self.tracker.update_sector(self._frame, sector)
        hud = Hud(
            health=int(v[VARIABLE_INDEX["HEALTH"]]),
            armor=int(v[VARIABLE_INDEX["ARMOR"]]),
            ammo={k: int(v[VARIABLE_INDEX[name]]) for k, name in AMMO_VARIABLES.items()},
            weapon=int(v[VARIABLE_INDEX["SELECTED_WEAPON"]]),
            weapon_ammo=int(v[VARIABLE_INDEX["SELECTED_WEAPON_AMMO"]]),
            weapons=tuple(i for i in range(1, 8) if v[VARIABLE_INDEX[f"WEAPON{i}"]] > 0),
        )
        objects: tuple[VisibleObject, ...] = ()
        if self.config.objects and state.labels:
            objects = tuple(
                VisibleObject(
                    id=int(lab.object_id),
                    name=lab.object_name,
                    category=lab.object_category,
                    box=(int(lab.x), int(lab.y), int(lab.width), int(lab.height)),
                    distance=math.hypot(lab.object_position_x - x, lab.object_position_y - y),
                    bearing=bearing(x, y, angle, lab.object_position_x, lab.object_position_y),
                )
                for lab in state.labels
            )
        live = self._live_map(state) if self.config.live_map else None
        return Observation(
            state.screen_buffer, hud, (x, y, z), angle, self._frame, room, sector, objects, self._running, live
        )

    def _live_map(self, state: Any) -> LiveMap:
        """Return the live map: sector heights now, the keys held (key things gone from the map since the episode
        began: a key is never taken away again), and the live monsters (corpses are not listed)."""
        keys: dict[str, int] = {}
        monsters = []
        for o in state.objects:
            if o.category == "Monster":
                monsters.append((str(o.name), float(o.position_x), float(o.position_y)))
            elif (colour := KEY_ACTORS.get(o.name)) is not None:
                keys[colour] = keys.get(colour, 0) + 1
        if not self._keys_at_start:
            self._keys_at_start = keys or {"": 0}  # the first observation of the episode
        held = frozenset(c for c, n in self._keys_at_start.items() if c and keys.get(c, 0) < n)
        floors = np.fromiter((s.floor_height for s in state.sectors), dtype=np.float64)
        ceilings = np.fromiter((s.ceiling_height for s in state.sectors), dtype=np.float64)
        return LiveMap(floors, ceilings, held, tuple(monsters))

    def _final_observation(self) -> Observation:
        # After exit or death the engine has no state: keep the last picture, update counters.
        last = self._obs
        if last is None:
            raise EngineError("the episode ended before its first observation")
        dead = self._game.is_player_dead()
        hud = (
            Hud(0, last.hud.armor, last.hud.ammo, last.hud.weapon, last.hud.weapon_ammo, last.hud.weapons)
            if dead
            else last.hud
        )
        return Observation(
            last.screen,
            hud,
            last.position,
            last.angle,
            self._frame,
            last.room,
            last.sector,
            (),
            self._running,
            last.live,
        )

    def _outcome(self) -> Outcome | None:
        game = self._game
        if game.is_episode_finished():
            return Outcome.DEATH if game.is_player_dead() else Outcome.EXIT
        if game.is_player_dead():
            return Outcome.DEATH
        assert self._obs is not None
        x, y, _ = self._obs.position
        ax, ay, since = self._anchor
        if math.hypot(x - ax, y - ay) > self.config.stuck_radius:
            self._anchor = (x, y, self._frame)
        elif self._frame - since >= self.config.stuck_frames:
            return Outcome.STUCK
        if self.config.max_frames is not None and self._frame >= self.config.max_frames:
            return Outcome.MAX_FRAMES
        return None

    def _info(self, outcome: Outcome | None) -> dict[str, Any]:
        obs = self._obs
        assert obs is not None
        return {
            "outcome": outcome,
            "frame": self._frame,
            "room": obs.room,
            "sector": obs.sector,
            "room_entries": list(self.tracker.entries),
            "room_frames": dict(self.tracker.frames),
        }


def _vzd() -> Any:
    import vizdoom

    return vizdoom
