"""What each strategy sends per decision, and what it would cost: naive, plan, k-levels, direct and direct-plan over
the same frames, every role's model played through LiteLLM against a stub server on 127.0.0.1 that answers like
the test models (so the requests are the ones a real run would send) while the game is FakeEnv.

Per decision: model calls, prompt characters, images and image bytes; then the estimated cost per 1,000
decisions at gpt-4o's and claude-sonnet's LiteLLM prices, without and with prompt caching. With caching, a
request's stable beginning (instructions, walkthrough: `prompts.stable_prefix`) is priced at the provider's
cache-read rate as each provider does it: OpenAI caches by itself the longest beginning a request shares with
the role's previous one (in 128-token blocks, from 1,024 tokens); Anthropic only what the request marks (the
stable beginning, at least 1,024 tokens), paying its cache-write rate when it writes it. Both count the tool
definitions (which come first) toward the cached beginning. Tool definitions are priced as LiteLLM counts them,
and Anthropic's tool-use system prompt (313 tokens on requests that require a tool call) is added to Claude's.

    python bench/token_economy.py [--frames 300] [--recipes naive,plan,k-levels,direct,direct-plan]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from doomagent import FakeEnv, StubAnswer, load_recipe, run_trial
from doomagent.prompts import stable_prefix
from doomagent.providers.stub_server import StubServer

PRICED = {"gpt-4o": "gpt-4o", "claude-sonnet": "claude-sonnet-4-5"}
MOVES = ("UP", "UP", "LEFT", "RIGHT", "FIRE", "USE", "STRAFE LEFT")
# The stub answers what each prompt asks for: Vision the room and every number of the status bar (vision.j2);
# the direct Agent one line on the room, enemies, doors and health (direct.j2's SEEN), its key and a reason.
VISION = json.dumps(
    {
        "room": "a grey stone hall, brightly lit, brown floor; a door ahead at the far end, an opening on the left",
        "enemies": [],
        "items": [],
        "hazards": [],
        "hud": ["ammo 50", "health 100%", "armor 0%", "bullets 50/200", "shells 0/50", "rockets 0/50", "cells 0/300"],
    }
)
SEEN = "a grey hall, a door ahead, no enemies, health 100%"


def answer(body: dict, rng: random.Random) -> str | StubAnswer:
    """Answer like the seeded test model: by the request's shape."""
    if body.get("tools"):
        return StubAnswer(tool_calls=(("press", {"seen": SEEN, "key": rng.choice(MOVES), "reason": "the way on"}),))
    if body.get("max_tokens") == 2880:
        return VISION
    if body.get("max_tokens") == 150:
        return "1. Look for the door.\n2. Walk to it.\n3. Press USE."
    seen = f"SEEN: {SEEN}\n" if body.get("max_tokens") == 80 else ""  # the direct Agent, answering in text
    return f"{seen}ACTION: {rng.choice(MOVES)}\nREASON: the way on"


@dataclass
class Tally:
    """What one recipe sent."""

    decisions: int = 0
    calls: int = 0
    chars: int = 0
    images: int = 0
    image_bytes: int = 0
    cost: dict[str, float] = field(default_factory=dict)
    cached_cost: dict[str, float] = field(default_factory=dict)


def _parts(body: dict) -> tuple[str, list[tuple[str, str]]]:
    """Return a request's text and its images as (data URL, detail)."""
    text: list[str] = []
    images: list[tuple[str, str]] = []
    for message in body.get("messages", []):
        content = message.get("content")
        parts: list[dict[str, Any]] = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            if part.get("type") == "text":
                text.append(part["text"])
            elif part.get("type") == "image_url":
                url: dict[str, Any] = part["image_url"]
                images.append((url["url"], url.get("detail") or "auto"))
    return "\n".join(text), images


# Anthropic adds a system prompt of its own to every request that carries tools: 313 tokens when a tool call is
# required (346 with `auto`), billed as input (Anthropic's tool-use pricing, Claude 4 models). LiteLLM's counter does
# not know it; providers' reported usage includes it.
ANTHROPIC_TOOL_SYSTEM = 313


def _tool_tokens(model: str, tools: Any) -> int:
    """Return the input tokens a request's tool definitions cost at `model`, as LiteLLM counts them (the
    provider's own rendering of the definitions), plus Anthropic's tool-use system prompt."""
    import litellm

    if not tools:
        return 0
    probe = [{"role": "user", "content": "x"}]
    tokens = litellm.token_counter(model=model, messages=probe, tools=tools) - litellm.token_counter(
        model=model, messages=probe
    )
    return tokens + (ANTHROPIC_TOOL_SYSTEM if "claude" in model else 0)


def price(tally: Tally, bodies: list[dict], replies: list[str]) -> None:
    """Add the cost of these requests at each priced model, without and with prompt caching."""
    import litellm
    from litellm.litellm_core_utils.token_counter import estimate_image_tokens

    for label, model in PRICED.items():
        info = litellm.model_cost[model]
        read = info.get("cache_read_input_token_cost", info["input_cost_per_token"])
        write = info.get("cache_creation_input_token_cost", info["input_cost_per_token"])
        previous: dict[int, str] = {}
        plain = cached = 0.0
        for body, reply in zip(bodies, replies, strict=True):
            text, images = _parts(body)
            text_tokens = litellm.token_counter(model=model, text=text)
            tool_tokens = _tool_tokens(model, body.get("tools"))
            text_tokens += tool_tokens
            image_tokens = sum(estimate_image_tokens(model, url, detail) for url, detail in images)
            out_tokens = litellm.token_counter(model=model, text=reply) + 1
            full_in = text_tokens + image_tokens
            request_cost = full_in * info["input_cost_per_token"] + out_tokens * info["output_cost_per_token"]
            plain += request_cost
            key = body.get("max_tokens", 0)  # one role's requests follow each other in the cache
            if "claude" in model:  # Anthropic: the marked beginning (prompts.stable_prefix) only
                prefix = text[: stable_prefix(text)]
                # the cached prefix is the tools, then the messages up to the mark (tools count toward 1,024)
                tokens = litellm.token_counter(model=model, text=prefix) + tool_tokens
                if tokens >= 1024 and previous.get(key, "").startswith(prefix):
                    request_cost -= tokens * (info["input_cost_per_token"] - read)
                elif tokens >= 1024:
                    request_cost += tokens * (write - info["input_cost_per_token"])
            else:  # OpenAI: the longest beginning shared with the role's previous request, in 128-token blocks
                shared = os.path.commonprefix([previous.get(key, ""), text])  # noqa: RUF071 (characters, not paths)
                # the tools come first in the prompt OpenAI builds: they are part of the shared beginning
                same_tools = key in previous and tool_tokens
                tokens = (litellm.token_counter(model=model, text=shared) + same_tools) // 128 * 128
                if tokens >= 1024:
                    request_cost -= tokens * (info["input_cost_per_token"] - read)
            previous[key] = text
            cached += request_cost
        tally.cost[label] = plain
        tally.cached_cost[label] = cached


def measure(name: str, frames: int) -> Tally:
    """Play one recipe against the stub and tally what it sent."""
    rng = random.Random(7)
    replies: list[str] = []

    def reply(body: dict) -> str | StubAnswer:
        out = answer(body, rng)
        replies.append(out if isinstance(out, str) else json.dumps([{n: a} for n, a in out.tool_calls]))  # as generated
        return out

    with StubServer("openai", reply=reply) as stub, tempfile.TemporaryDirectory() as tmp:
        base = stub.url + "/v1"
        recipe, folder = load_recipe(name, model="openai/gpt-4o", vision_model="openai/gpt-4o", max_frames=frames)
        assert recipe.roles is not None
        roles = [role for role, _ in recipe.roles.items()]
        sets = [f"{r}.api_base={base}" for r in roles] + [f"{r}.api_key_env=STUB_KEY" for r in roles]
        recipe, folder = load_recipe(
            name, model="openai/gpt-4o", vision_model="openai/gpt-4o", max_frames=frames, overrides=sets
        )
        result = run_trial(recipe, recipe_dir=folder, out=Path(tmp) / "trial", make_env=FakeEnv)
        bodies = [r.body for r in stub.requests]
    tally = Tally(decisions=result.decisions, calls=len(bodies))
    for body in bodies:
        text, images = _parts(body)
        tally.chars += len(text)
        tally.images += len(images)
        tally.image_bytes += sum(len(base64.b64decode(url.split(",", 1)[1])) for url, _ in images)
    price(tally, bodies, replies)
    return tally


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--recipes", default="naive,plan,k-levels,direct,direct-plan")
    args = parser.parse_args()
    os.environ["STUB_KEY"] = "sk-stub"
    rows = {name: measure(name, args.frames) for name in args.recipes.split(",")}
    print(f"{args.frames} frames per recipe on freedoom1 E1M1 (FakeEnv), requests as LiteLLM sent them to a stub")
    head = "| recipe | calls/dec | prompt chars/dec | images/dec | image KB/dec |"
    head += "".join(f" $/1k dec {m} | cached |" for m in PRICED)
    print(head)
    print("|" + "---|" * (5 + 2 * len(PRICED)))
    for name, t in rows.items():
        d = max(1, t.decisions)
        cells = [f"{t.calls / d:.2f}", f"{t.chars / d:,.0f}", f"{t.images / d:.2f}", f"{t.image_bytes / d / 1024:.1f}"]
        for m in PRICED:
            cells += [f"{t.cost[m] / d * 1000:.2f}", f"{t.cached_cost[m] / d * 1000:.2f}"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if "direct" in rows and "plan" in rows:
        for m in PRICED:
            for kind, costs in (("without caching", "cost"), ("with caching", "cached_cost")):
                direct = getattr(rows["direct"], costs)[m] / rows["direct"].decisions
                plan = getattr(rows["plan"], costs)[m] / rows["plan"].decisions
                print(f"direct / plan cost per decision at {m} {kind}: {direct / plan:.2f} (target <= 0.5)")


if __name__ == "__main__":
    main()
