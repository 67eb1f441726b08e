"""What a trial shows while it plays: its latest screen and status in `<trial>/live/`, for `doomagent watch`.

Written at most `every_s` apart (twice a second by default, as often as the watch page looks) and at the
end, each file replaced atomically, so a reader never sees half a picture; between writes a decision costs
a clock read.
"""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path
from typing import Any

from doomagent.env.observation import Observation

FOLDER = "live"


class LiveView:
    """Keep `<trial>/live/screen.jpg` and `status.json` fresh."""

    def __init__(self, trial: Path, *, every_s: float = 0.5) -> None:
        self.folder = trial / FOLDER
        self.every_s = every_s
        self._last = -float("inf")

    def update(self, obs: Observation | None, state: dict[str, Any], *, force: bool = False) -> None:
        """Write the screen and status if `every_s` has passed since the last write (or `force`)."""
        now = time.monotonic()
        if obs is None or (not force and now - self._last < self.every_s):
            return
        self._last = now
        from PIL import Image

        self.folder.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        Image.fromarray(obs.screen).save(buffer, format="JPEG", quality=80)
        _replace(self.folder / "screen.jpg", buffer.getvalue())
        hud = obs.hud
        status = {
            "frame": obs.frame,
            "decision": state.get("decision", 0),
            "room": obs.room,
            "position": [round(obs.position[0], 1), round(obs.position[1], 1)],
            "angle": round(obs.angle, 1),
            "hud": {
                "health": hud.health,
                "armor": hud.armor,
                "ammo": hud.ammo,
                "weapon": hud.weapon,
                "weapon_ammo": hud.weapon_ammo,
                "weapons": list(hud.weapons),
            },
            "action": state.get("action"),
            "reason": state.get("reason"),
            "plan": state.get("plan") or [],
            "expert_moves": state.get("expert_moves") or [],
            "done": bool(state.get("done")),
            "time": time.time(),
        }
        _replace(self.folder / "status.json", json.dumps(status).encode())


def _replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
