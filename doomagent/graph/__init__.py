"""The LangGraph state machine that wires Vision, Planner, Experts, Agent and Act (issue 3)."""
