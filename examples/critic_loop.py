"""A reflective critic with its own recipe role: after the Agent picks an action, a critic model may
object, and the Agent thinks again (at most twice per decision) before the action is played.

    python examples/critic_loop.py                       # offline: test models everywhere
    python examples/critic_loop.py --critic-model openai/my-model --critic-api-base http://127.0.0.1:8000/v1

The recipe is the paper's plan recipe plus a `critic` role; the Planner is removed from the graph, so
its model (gpt-4o in the recipe) is never built and needs no key. The critic's objection reaches the
Agent through the `feedback` key, which the Agent's prompt shows.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from doomagent import DoomState, GraphBuilder, load_recipe, run_trial


class CriticState(DoomState, total=False):
    objection: str | None  # the critic's last objection this decision (None: it agreed)
    objections: int  # objections raised over the whole trial


def critic(state: Mapping[str, Any], runtime: Any) -> dict[str, Any]:
    """Ask the critic role whether the Agent's move makes sense; an objection sends the Agent back."""
    ctx = runtime.context
    prompt = (
        f"A Doom player sees:\n{state.get('vision', '')}\n\n"
        f"It wants to press {state['action']} because: {state.get('reason') or 'no reason given'}.\n"
        "If that is sensible, answer OK. Otherwise answer with one short sentence saying what is wrong."
    )
    answer = ctx.ask("critic", prompt)
    verdict = answer.text.strip()
    if not answer.ok or not verdict or verdict.upper().startswith("OK"):
        return {"objection": None}
    return {
        "objection": verdict[:200],
        "objections": state.get("objections", 0) + 1,
        "feedback": f"A critic objected to {state['action']}: {verdict[:200]} Choose again.",
    }


def build(recipe: Any) -> GraphBuilder:
    """Return the plan graph without its Planner, with the critic loop after the Agent."""
    return (
        GraphBuilder.from_recipe(recipe, state=CriticState)
        .remove_node("planner")
        .add_node("critic", critic, after="agent", roles=["critic"])
        .add_loop("critic", back_to="agent", when=lambda s: s.get("objection") is not None, max_times=2)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--critic-model", default="test:7")
    parser.add_argument("--critic-api-base", default=None)
    parser.add_argument("--max-frames", type=int, default=200)
    parser.add_argument("--out", default="runs/critic-loop")
    args = parser.parse_args()
    critic_role = f"roles.critic={{model: {args.critic_model}, temperature: 0.2, max_tokens: 40}}"
    overrides = ["vision.model=test", "agent.model=test", critic_role]
    if args.critic_api_base:
        overrides.append(f"critic.api_base={args.critic_api_base}")
    recipe, folder = load_recipe("plan", overrides=overrides, max_frames=args.max_frames)
    result = run_trial(recipe, builder=build(recipe), out=args.out, recipe_dir=folder)
    critic_use = result.usage.roles.get("critic")
    print(f"{result.outcome} after {result.frames} frames, {result.decisions} decisions")
    print(f"critic calls: {critic_use.calls if critic_use else 0}; files in {args.out}")


if __name__ == "__main__":
    main()
