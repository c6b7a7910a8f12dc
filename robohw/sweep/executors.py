"""Where a sweep's tasks run: in this process, in a pool of local processes, or on a
``dask.distributed`` cluster. Each takes the same tasks and the same function and hands every
outcome back as it arrives, in whatever order the tasks finish.
"""

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed

__all__ = ["ExecutorError", "default_jobs", "connect", "worker_count", "run_tasks"]


class ExecutorError(RuntimeError):
    """The cluster cannot be reached, or is not installed: one line saying which."""


def default_jobs():
    """Local processes by default: one per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def connect(address, timeout=10):
    """A ``distributed.Client`` of the scheduler at ``address`` (``tcp://host:8786``)."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise ExecutorError("--dask needs dask.distributed: pip install -e '.[synth]' (or "
                            "'.[test]')") from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as error:
        raise ExecutorError(f"cannot reach the Dask scheduler at {address}: "
                            f"{str(error).splitlines()[0] if str(error) else type(error).__name__}"
                            ) from None


def worker_count(jobs=1, client=None):
    """How many tasks run at once: ``jobs`` locally, the cluster's threads with a client."""
    if client is None:
        return jobs
    return max(1, sum(client.nthreads().values()))


def run_tasks(tasks, function, on_outcome, *, jobs=1, client=None):
    """Run ``function(task)`` for every task; call ``on_outcome(task, outcome)`` in this
    process as each finishes. ``jobs``: local processes (1: in this process, in order);
    ``client``: a ``distributed.Client`` instead, one Dask task per sweep task.

    An exception in a task stops the run and propagates; tasks already finished have been
    handed back. Interrupted (Ctrl-C), the pool's queued tasks are cancelled."""
    if client is not None:
        from dask.distributed import as_completed as dask_completed
        futures = {client.submit(function, task, pure=False): task for task in tasks}
        try:
            for future in dask_completed(futures):
                on_outcome(futures[future], future.result())
        finally:
            client.cancel(list(futures))
        return
    if jobs == 1 or len(tasks) <= 1:
        for task in tasks:
            on_outcome(task, function(task))
        return
    # Spawned, not forked: a fork of a process with threads (NumPy's, a progress line's) may
    # deadlock, and Python 3.12 warns of it.
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = {pool.submit(function, task): task for task in tasks}
        for future in as_completed(futures):
            on_outcome(futures[future], future.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
