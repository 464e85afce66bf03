"""Where a search's tasks run: in this process, on local processes, or on a Dask cluster.

``map_tasks`` knows nothing about searches: it runs a picklable function on
each task and hands back the results in task order, so every caller merges
them in the same order whatever finished first. Dask (``dask.distributed``)
is optional: it is imported only when a scheduler is given.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable, Sequence

from atari5_spec.data.errors import InputError
from atari5_spec.data.processes import end_with_parent

OnDone = Callable[[int, Any], None]


def map_tasks(function: Callable, tasks: Sequence, *, scheduler: Any = None, processes: int = 0,
              on_done: OnDone | None = None, keep_results: bool = True, executor: Any = None) -> list:
    """``[function(task) for task in tasks]``, on a Dask cluster (``scheduler``: an address such as
    tcp://host:8786, or a ``distributed.Client``), else on ``executor`` (a process pool the caller started and
    ends, e.g. ``data.processes.worker_pool``), else on ``processes`` local processes (0 or 1: here).

    ``on_done(index, result)`` is called in this process as each task finishes (for progress bars
    and checkpoints), in completion order. With ``keep_results=False`` results are only handed to
    ``on_done`` (the list returned holds None), so that their memory need not grow with the tasks.
    The workers must have atari5-spec installed.
    """
    tasks = list(tasks)
    if scheduler is not None:
        return _on_dask(function, tasks, scheduler, on_done, keep_results)
    results = [None] * len(tasks)

    def store(index: int, result: Any) -> None:
        if keep_results:
            results[index] = result
        if on_done is not None:
            on_done(index, result)
    if executor is not None:
        _on_pool(executor, function, tasks, store)
        return results
    if processes <= 1 or len(tasks) <= 1:
        for index, task in enumerate(tasks):
            store(index, function(task))
        return results
    # spawn, not fork: the parent may hold threads (and their locks) of an earlier search
    # Workers end with this process, even when it is killed (SIGKILL never lets it tell them).
    with ProcessPoolExecutor(min(processes, len(tasks)), mp_context=multiprocessing.get_context("spawn"),
                             initializer=end_with_parent, initargs=(os.getpid(),)) as pool:
        _on_pool(pool, function, tasks, store)
    return results


def _on_pool(pool, function: Callable, tasks: list, store: Callable) -> None:
    """Every task on ``pool``, each result stored as it comes (``store(index, result)``)."""
    futures = {pool.submit(function, task): index for index, task in enumerate(tasks)}
    for future in as_completed(futures):
        store(futures[future], future.result())
        del future


def dask_client(scheduler: Any):
    """(client, owned): a ``distributed.Client`` connected to ``scheduler`` (or the client given), and
    whether this code opened it (and must close it). InputError when dask is missing or unreachable."""
    if hasattr(scheduler, "submit"):
        return scheduler, False
    try:
        from distributed import Client
    except ImportError as error:
        raise InputError("--scheduler needs dask.distributed: pip install 'atari5-spec-research[distributed]'") from error
    try:
        return Client(str(scheduler), timeout="10s"), True
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(f"cannot connect to the Dask scheduler at {scheduler}: {error}") from error


def _on_dask(function: Callable, tasks: list, scheduler: Any, on_done: OnDone | None, keep_results: bool) -> list:
    client, owned = dask_client(scheduler)
    from distributed import as_completed as dask_as_completed
    try:
        # pure=False: the same task submitted twice (e.g. a rerun) is computed again, not shared
        futures = client.map(function, tasks, pure=False)
        index_of = {future.key: index for index, future in enumerate(futures)}
        results = [None] * len(tasks)
        for future in dask_as_completed(futures):
            index, result = index_of[future.key], future.result()
            future.release()
            if keep_results:
                results[index] = result
            if on_done is not None:
                on_done(index, result)
        return results
    finally:
        if owned:
            client.close()
