"""What playing through `doomagent mcp` costs: presses per second over stdio, driven by the official MCP SDK's
client, against DoomEnv.step alone, in the same run (same map, seed and keys).

    python bench/mcp_overhead.py [--presses 500]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time

from doomagent import DoomEnv

KEYS = ["UP", "UP", "LEFT", "UP", "RIGHT", "STRAFE LEFT", "UP", "USE"]


async def over_stdio(presses: int, out: str) -> float:
    """Return presses per second of one game played over stdio (start-up left out)."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(
        command=sys.executable, args=["-m", "doomagent", "mcp", "--out", out], env=dict(os.environ)
    )
    async with stdio_client(server) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        await session.call_tool("new_game", {"map": "E1M1", "frame_cap": 2 * presses + 10, "seed": 1})
        start = time.perf_counter()
        for i in range(presses):
            await session.call_tool("press", {"action": KEYS[i % len(KEYS)]})
        rate = presses / (time.perf_counter() - start)
        await session.call_tool("end_game", {})
    return rate


def env_alone(presses: int) -> float:
    """Return DoomEnv.step's rate with the same keys."""
    env = DoomEnv(map="E1M1", max_frames=2 * presses + 10)
    env.reset(seed=1)
    start = time.perf_counter()
    for i in range(presses):
        env.step(KEYS[i % len(KEYS)])
    rate = presses / (time.perf_counter() - start)
    env.close()
    return rate


def main() -> None:
    """Print both rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        mcp = asyncio.run(over_stdio(args.presses, out))
    env = env_alone(args.presses)
    print(f"{args.presses} presses on freedoom1 E1M1")
    print(f"DoomEnv.step alone       : {env:7.1f} presses/s")
    print(f"doomagent mcp over stdio : {mcp:7.1f} presses/s  ratio {mcp / env:.3f}")


if __name__ == "__main__":
    main()
