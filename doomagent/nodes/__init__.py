"""Graph nodes, one role per module: Vision, Planner, Experts, Agent, Act (issue 3)."""
