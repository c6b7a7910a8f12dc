"""Work as tasks (robohw.support.tasks), as the report runs it: each starts once what it needs
has its result, on one process or several, with a progress line each; and a forked worker
forgets the progress of the process it came from (Progress.detach)."""

import io
import operator

import pytest

from robohw.support.progress import Progress
from robohw.support.tasks import Task, run_tasks


def _tasks():
    # "total" needs both sums; "late" needs "total": a chain across the pool's rounds.
    return [Task("total", operator.add, lambda r: (r["a"], r["b"]), frozenset({"a", "b"})),
            Task("a", operator.add, lambda r: (1, 2)),
            Task("late", operator.mul, lambda r: (r["total"], 10), frozenset({"total"})),
            Task("b", operator.mul, lambda r: (3, 4))]


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_task_runs_once_its_needs_have_their_results(jobs):
    log = io.StringIO()
    progress = Progress(4, log)
    assert run_tasks(_tasks(), jobs, progress) == {"a": 3, "b": 12, "total": 15, "late": 150}
    assert progress.done == 4


def test_a_task_whose_needs_never_come_is_an_error():
    orphan = [Task("x", operator.neg, lambda r: (1,), frozenset({"nothing"}))]
    for jobs in (1, 2):
        with pytest.raises(RuntimeError, match="tasks that wait for nothing to come: x"):
            run_tasks(orphan, jobs, Progress(1, io.StringIO()))


def test_a_worker_forgets_the_runs_it_inherited(monkeypatch):
    monkeypatch.setattr(Progress, "silenced", False)      # as a command without --quiet
    inherited = Progress(3, io.StringIO())
    inherited.step("one")
    assert inherited in Progress._running
    Progress.detach()
    assert inherited not in Progress._running
    inherited.step("two")                     # its own steps still count where it lives
    assert inherited.done == 2
