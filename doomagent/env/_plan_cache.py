"""Keep progression plans on disk: planning a large map takes seconds, and every trial and report needs it.

Plans are stored as JSON in $DOOMAGENT_PLAN_CACHE (`off`: no disk cache), else ~/.cache/doomagent/plans, keyed
by a hash of the map's own lumps and the planner's version, so an edited WAD or a newer planner plans again.
A cache that cannot be read or written is skipped: the plan is computed instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from doomagent.env.geometry import MapGeometry

PLANNER_VERSION = 7  # bump when plans change for the same map (2: a door opens from the side it is pushed from;
# 3: a walk-over trigger is set off from the sides it can be crossed from in the state, _World.sites; closed doors
# bar the openings they fill, _plan_gates; 4: a sector in pieces is planned as one sector per piece, _sector_parts;
# 5: a switch is used through openings only, never through a shut door nor from behind its own line, _World._sites;
# 6: a door that never opens a player's height, under a low ceiling beside it, is no door, MapGeometry.doors;
# 7: in a plan that may climb any step, a floor a known special moves is climbed only once it is set off)


def cache_folder() -> Path | None:
    """Return where plans are kept, or None when the disk cache is off."""
    root = os.environ.get("DOOMAGENT_PLAN_CACHE")
    if root is not None:
        return None if root.lower() == "off" else Path(root)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "doomagent" / "plans"


def map_key(g: MapGeometry) -> str:
    """Return a key for the map's geometry, things and specials (not its file's name or date)."""
    digest = hashlib.sha256()
    for part in (
        g.vertices,
        g.line_v,
        g.line_flags,
        g.line_special,
        g.line_tag,
        g.line_front,
        g.line_back,
        g.sector_floor,
        g.sector_ceiling,
        g.sector_tag,
        g.sector_special,
        g.things,
    ):
        digest.update(part.tobytes())
    digest.update(g.name.encode())
    return f"{g.name}-{digest.hexdigest()[:24]}-v{PLANNER_VERSION}"


def load(g: MapGeometry) -> dict[str, Any] | None:
    """Return the stored plan data of a map (or {"why": ...} for a map without a plan), or None."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        data = json.loads((folder / f"{map_key(g)}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def store(g: MapGeometry, data: dict[str, Any]) -> None:
    """Write a map's plan data atomically; a folder that cannot be written is left alone."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False, encoding="utf-8") as tmp:
            json.dump(data, tmp)
        Path(tmp.name).replace(folder / f"{map_key(g)}.json")
    except OSError:
        return
