"""A memory node with custom state: every 20 frames it notes the rooms visited and how long the player
has been in the current one, keeps that in the graph state, and adds it to what the Agent reads.

    python examples/room_memory.py [--recipe walkthrough] [--max-frames 300]

The note lives in a state key of its own (`memory`), declared in a DoomState subclass; the node's
cadence gate reads another custom key (`memory_frame`). Both are written to steps.jsonl per decision.
"""

from __future__ import annotations

import argparse
import operator
from collections.abc import Mapping
from typing import Annotated, Any

from doomagent import DoomState, GraphBuilder, every_frames, load_recipe, run_trial


class MemoryState(DoomState, total=False):
    rooms_seen: Annotated[list[str], operator.add]  # a reducer: each update appends
    memory: str
    memory_frame: int | None


def remember(state: Mapping[str, Any]) -> dict[str, Any]:
    """Note a newly entered room and write the memory line."""
    seen = state.get("rooms_seen") or []
    room = state.get("room")
    new = [room] if room and room not in seen else []
    visited = [*seen, *new]
    entered = next((h["frame"] for h in reversed(state.get("history", [])) if h["room"] != room), 0)
    note = f"MEMORY: rooms visited {', '.join(visited) or 'none'}; in room {room or '?'} since frame {entered}"
    return {"rooms_seen": new, "memory": note, "memory_frame": state["frame"]}


def recall(state: Mapping[str, Any]) -> dict[str, Any]:
    """Add the memory line to the view the Agent reads."""
    return {"vision": f"{state.get('vision', '')}\n{state.get('memory', '')}"}


def build(recipe: Any) -> GraphBuilder:
    """Return the recipe's graph with the memory node (every 20 frames) and its recall before the Agent."""
    return (
        GraphBuilder.from_recipe(recipe, state=MemoryState)
        .add_node("remember", remember, after="vision", when=every_frames("memory_frame", 20, name="memory_due"))
        .add_node("recall", recall, before="agent")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", default="walkthrough")
    parser.add_argument("--max-frames", type=int, default=300)
    parser.add_argument("--out", default="runs/room-memory")
    args = parser.parse_args()
    recipe, folder = load_recipe(args.recipe, model="test", vision_model="test", max_frames=args.max_frames)
    result = run_trial(recipe, builder=build(recipe), out=args.out, recipe_dir=folder)
    print(f"{result.outcome} after {result.frames} frames; rooms entered: {[r for _, r in result.rooms_entered]}")


if __name__ == "__main__":
    main()
