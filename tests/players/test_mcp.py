"""`doomagent mcp` driven by the official MCP SDK's client: over stdio, and over streamable HTTP with two clients at
once; every game a trial folder that report reads like a run's (the real engine)."""

import asyncio
import base64
import io
import json
import os
import subprocess
import sys

import pytest
from PIL import Image

from doomagent import DoomState, GraphBuilder, load_recipe, policy_node, run_trial
from doomagent.eval.report import write_report
from doomagent.graph.builder import Step
from doomagent.rundir.log import read_jsonl

REPLY_S = 120.0  # a reply that never comes fails the call that waited for it, not the whole run
KEYS = ["UP", "UP", "UP", "LEFT", "UP", "RIGHT", "STRAFE LEFT", "UP", "USE", "UP"]


def _text(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def _play(session, presses):
    await session.initialize()
    started = await session.call_tool("new_game", {"map": "E1M1", "frame_cap": 1000, "seed": 3})
    assert not started.is_error, _text(started)
    for i in range(presses):
        pressed = await session.call_tool("press", {"action": KEYS[i % len(KEYS)], "reason": f"step {i}"})
        assert not pressed.is_error, _text(pressed)
    return json.loads(_text(await session.call_tool("status", {})))


@pytest.mark.engine
def test_a_game_over_stdio_is_a_trial_like_a_run_of_the_same_inputs(tmp_path):
    pytest.importorskip("mcp")  # imported here: collecting the fast tier stays quick
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    out = tmp_path / "mcp"
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "doomagent", "mcp", "--out", str(out)], env=dict(os.environ)
    )

    async def session():
        async with (
            stdio_client(server) as streams,
            ClientSession(streams[0], streams[1], read_timeout_seconds=REPLY_S) as s,
        ):
            status = await _play(s, 100)
            look = await s.call_tool("look", {"facts": True})
            image = next(c for c in look.content if c.type == "image")
            size = Image.open(io.BytesIO(base64.b64decode(image.data))).size
            assert "health" in _text(look) and "ENGINE FACTS" in _text(look)
            errors = []
            for name, arguments in (
                ("press", {"action": "JUMP"}),
                ("press", {"action": "UP", "repeat": -1}),
                ("new_game", {"map": "E9M9"}),
                ("new_game", {"map": "E1M1", "wad": "../../etc/doom.wad"}),
            ):
                result = await s.call_tool(name, arguments)
                errors.append((result.is_error, _text(result)))
            still = json.loads(_text(await s.call_tool("status", {})))  # the session goes on
            ended = json.loads(_text(await s.call_tool("end_game", {})))
            return status, size, errors, still, ended

    status, size, errors, still, ended = asyncio.run(session())
    assert size == (640, 400) and status["decisions"] == 100 and still["decisions"] == 100
    assert all(is_error for is_error, _ in errors)
    assert "'JUMP' is not an action" in errors[0][1] and "repeat -1" in errors[1][1]
    assert "E9M9" in errors[2][1] and "never a path" in errors[3][1]
    assert ended["outcome"] == "ended" and ended["frames"] == 200
    trial = out / "freedoom1_E1M1" / "mcp__mcp" / "trial-000"
    steps = read_jsonl(trial / "steps.jsonl")
    assert [s["reason"] for s in steps[:3]] == ["step 0", "step 1", "step 2"]
    # the same inputs played by run_trial give the same frames and rooms
    recipe, _ = load_recipe("reference", max_frames=200)  # the 100 decisions the client played
    keys = iter(s["action"] for s in steps)
    builder = GraphBuilder([Step("player", policy_node(lambda obs: next(keys))), Step("act", _act())], state=DoomState)
    again = run_trial(recipe, builder=builder, seed=3, out=tmp_path / "run" / "trial-000")
    summary = json.loads((trial / "summary.json").read_text())
    assert (summary["frames"], summary["room_frames"]) == (200, again.room_frames)
    assert [(s["x"], s["y"]) for s in steps] == [
        (s["x"], s["y"]) for s in read_jsonl(tmp_path / "run" / "trial-000" / "steps.jsonl")
    ][:100]
    report = write_report([out], tmp_path / "report")
    assert "| mcp |" in (report / "report.md").read_text()


def _act():
    from doomagent import nodes

    return nodes.act


@pytest.mark.engine
def test_two_clients_over_streamable_http_play_games_of_their_own(tmp_path):
    pytest.importorskip("mcp")
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    out = tmp_path / "mcp"
    server = subprocess.Popen(
        [sys.executable, "-m", "doomagent", "mcp", "--http", "--port", "0", "--out", str(out)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().rsplit(" at ", 1)[1]

        async def client(presses):
            async with (
                streamable_http_client(url) as streams,
                ClientSession(streams[0], streams[1], read_timeout_seconds=REPLY_S) as s,
            ):
                status = await _play(s, presses)
                await s.call_tool("end_game", {})
                return status

        async def both():
            return await asyncio.gather(client(30), client(45))

        first, second = asyncio.run(both())
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert (first["decisions"], second["decisions"]) == (30, 45)
    assert first["folder"] != second["folder"]
    trials = sorted(p.name for p in (out / "freedoom1_E1M1" / "mcp__mcp").glob("trial-*"))
    assert trials == ["trial-000", "trial-001"]
    assert sorted(len(read_jsonl(out / "freedoom1_E1M1" / "mcp__mcp" / t / "steps.jsonl")) for t in trials) == [30, 45]
