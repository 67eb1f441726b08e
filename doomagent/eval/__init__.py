"""Evaluation: the eval's job types (`jobs`), folder planning and the scheduler (`runner`) over local or Ray
backends, metrics from the room track, progress along a plan, suites, reports and their tables, replays."""

from __future__ import annotations

from doomagent.eval.jobs import Event, Job
from doomagent.eval.metrics import LAMBDA, RoomCell, Summary, TrialRecord, pmat_table, room_frames, summarize
from doomagent.eval.runner import plan_jobs, run_jobs
from doomagent.rundir.plan import group_name, is_finished

__all__ = [
    "LAMBDA",
    "Event",
    "Job",
    "RoomCell",
    "Summary",
    "TrialRecord",
    "group_name",
    "is_finished",
    "plan_jobs",
    "pmat_table",
    "room_frames",
    "run_jobs",
    "summarize",
]
