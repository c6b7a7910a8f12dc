"""Work as tasks on every core: each :class:`Task` runs once the tasks it needs have their
results, ``jobs`` at a time in processes of their own (:func:`run_tasks`), with a progress
step as each ends (its label and its time). What ``robohw report`` runs its designs, sections
and digests with."""

import dataclasses
import time

from robohw.support.progress import Progress

__all__ = ["Task", "run_tasks"]


@dataclasses.dataclass(frozen=True)
class Task:
    """One piece of work: ``function(*arguments(results))`` once the tasks labelled ``needs``
    have their results (``results``: by label). ``function`` and what ``arguments`` returns
    must pickle (a module's function and plain data) where tasks run in processes."""
    label: str
    function: object
    arguments: object
    needs: frozenset = frozenset()


def _timed(function, *args):
    """``(seconds, result)`` of ``function(*args)``."""
    started = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - started, result


def _unmet(pending):
    raise RuntimeError(f"tasks that wait for nothing to come: "
                       f"{', '.join(t.label for t in pending)}")


def run_tasks(tasks, jobs, progress):
    """``{label: result}`` of ``tasks`` (:class:`Task`), ``jobs`` at a time in processes of
    their own (1, or a single task: here); a progress step as each ends, with its time. Whenever a
    process is free it takes the first task in the given order whose needs are met: the order is the
    priority (what others wait for, and the longest, first)."""
    results, pending = {}, list(tasks)

    def next_ready():
        task = next((t for t in pending if t.needs <= results.keys()), None)
        if task is not None:
            pending.remove(task)
        return task

    def done(label, timed):
        seconds, results[label] = timed
        progress.step(f"{label}: {seconds:.0f} s")

    if jobs == 1 or len(tasks) < 2:
        while pending:
            task = next_ready() or _unmet(pending)
            done(task.label, _timed(task.function, *task.arguments(results)))
        return results
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    with ProcessPoolExecutor(min(jobs, len(tasks)), initializer=Progress.detach) as pool:
        running = {}
        while pending or running:
            while len(running) < jobs and (task := next_ready()) is not None:
                future = pool.submit(_timed, task.function, *task.arguments(results))
                running[future] = task.label
            if not running:
                _unmet(pending)
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                done(running.pop(future), future.result())
    return results
