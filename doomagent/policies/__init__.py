"""Scripted policies that need no model: useful as demos, baselines and test drivers."""

from doomagent.policies.route import RouteFollower

__all__ = ["RouteFollower"]
