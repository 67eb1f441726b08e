"""Track the room the player is in at every frame, with first-entry frames and frames per room."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from doomagent.env.rooms import RoomMap

Backtrack = Literal["last_entered", "furthest"]


@dataclass
class RoomTracker:
    """Credit frames to rooms from the player's position, as the paper's PMAT needs.

    A door threshold belongs to no room: while on it, the player stays in the last room entered.
    With backtrack="last_entered" (the paper's rule) frames count to the room most recently
    entered; with "furthest", to the furthest room along the route entered so far.
    """

    room_map: RoomMap
    backtrack: Backtrack = "last_entered"
    current: str | None = None
    entries: list[tuple[int, str]] = field(default_factory=list)
    first_entry: dict[str, int] = field(default_factory=dict)
    frames: dict[str, int] = field(default_factory=dict)
    _frame: int = 0
    _order: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self._order = {label: i for i, label in enumerate(self.room_map.labels)}

    def reset(self, frame: int, x: float, y: float) -> str | None:
        """Start a new episode at `frame` with the player at (x, y)."""
        self.current = None
        self.entries.clear()
        self.first_entry.clear()
        self.frames.clear()
        self._frame = frame
        return self._enter(frame, self.room_map.room_at(x, y))

    def update(self, frame: int, x: float, y: float) -> str | None:
        """Credit the frames since the last update, then move to the room at (x, y)."""
        return self.update_sector(frame, self.room_map.geometry.sector_at(x, y))

    def update_sector(self, frame: int, sector: int) -> str | None:
        """Like update, for a sector the caller already located."""
        credited = self.credited_room
        if credited is not None and frame > self._frame:
            self.frames[credited] = self.frames.get(credited, 0) + frame - self._frame
        self._frame = max(self._frame, frame)
        return self._enter(frame, self.room_map.room_of_sector(sector))

    @property
    def credited_room(self) -> str | None:
        """Return the room that frames are being counted to now."""
        if self.backtrack == "furthest" and self.first_entry:
            return max(self.first_entry, key=lambda r: self._order[r])
        return self.current

    def _enter(self, frame: int, room: str | None) -> str | None:
        if room is not None and room != self.current:
            self.current = room
            self.entries.append((frame, room))
            self.first_entry.setdefault(room, frame)
        return self.current
