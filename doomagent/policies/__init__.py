"""Scripted policies that need no model: useful as demos, baselines and test drivers."""

from doomagent.policies.plan_walker import PlanWalker
from doomagent.policies.reference import ReferenceNavigator
from doomagent.policies.route import RouteFollower

__all__ = ["PlanWalker", "ReferenceNavigator", "RouteFollower"]
