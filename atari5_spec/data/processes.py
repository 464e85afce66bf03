"""Worker processes end with their parent, whether it ends normally, by SIGTERM or by SIGKILL.

A pool's workers wait on a queue; a parent killed outright (SIGKILL, the OOM
killer) never tells them to stop, and they would run on. :func:`end_with_parent`
is the pools' ``initializer``: on Linux it asks the kernel to send the worker
SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``); everywhere it also
starts a daemon thread that polls the parent's process id once a second and
ends the worker when the parent is gone (re-parented workers see another id).

:func:`forked_pool` forks a pool's workers where that is safe (no imports to
repeat: about half a second of CPU per worker); :func:`worker_pool` (verify's
workers) spawns them where it is not.

A pool's work is waited for with a bound (:func:`wait_for`) and the pool closed with one
(:func:`close_pool`): a worker that never answers (one once slept on a lock for eleven minutes inside
verify's pool) ends the wait with :class:`WorkerTimeout` naming the work, and a worker that does not exit
is killed, instead of the parent waiting forever.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time

__all__ = ["end_with_parent", "forked_pool", "worker_pool", "wait_for", "close_pool", "WorkerTimeout"]

PR_SET_PDEATHSIG = 1
POLL_SECONDS = 1.0


def _kernel_signal_on_parent_death() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no libc prctl here: the watchdog thread below still ends the worker
        pass


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)  # the parent is gone: nobody will read this worker's results
        time.sleep(POLL_SECONDS)


def end_with_parent(parent: int) -> None:
    """Make this (worker) process end when process ``parent`` ends; a pool initializer."""
    _kernel_signal_on_parent_death()
    if os.getppid() != parent:  # the parent died before the request above took effect
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="end-with-parent").start()


def forked_pool(count: int):
    """A ``ProcessPoolExecutor`` of ``count`` workers forked now, ending with this process; None where a fork is
    not safe or not available.

    A fork copies the locks another thread may hold (a logger's, the import lock) and the child could wait on
    them forever: so only while this process runs one Python thread, and every worker is forked before the
    pool's own manager thread starts (the first submit forks them all, then starts it; later tasks reuse them).
    """
    from concurrent.futures import ProcessPoolExecutor

    if threading.active_count() > 1 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"),
                               initializer=end_with_parent, initargs=(os.getpid(),))
    pool.submit(int)  # forks every worker now, while this process is single-threaded (CPython gh-90622)
    if len(getattr(pool, "_processes", ())) < count:  # an older stdlib forks one per task, later, beside the thread
        pool.shutdown()
        return None
    return pool


def worker_pool(count: int):
    """A ``ProcessPoolExecutor`` of ``count`` workers ending with this process: forked now where
    :func:`forked_pool` can, else spawned (a fresh interpreter: safe beside threads, slower to start; the
    caller's main module is imported again, so an unguarded script must not reach this)."""
    from concurrent.futures import ProcessPoolExecutor

    return forked_pool(count) or ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=end_with_parent, initargs=(os.getpid(),))


class WorkerTimeout(RuntimeError):
    """A worker's result did not come within its bound: the work is named, the pool is to be closed."""


def wait_for(future, seconds: float, what: str):
    """``future.result()``, or :class:`WorkerTimeout` naming ``what`` after ``seconds`` without an answer."""
    from concurrent.futures import TimeoutError as FutureTimeout

    try:
        return future.result(timeout=seconds)
    except FutureTimeout:
        raise WorkerTimeout(f"{what}: no answer from its worker in {seconds:g} s") from None


def close_pool(pool, seconds: float) -> list[int]:
    """Shut ``pool`` down without waiting on it forever: its workers are given ``seconds`` to exit, then killed.

    Returns the process ids that had to be killed (empty when every worker exited)."""
    # The executor's own shutdown(wait=True) joins every worker with no bound: a worker stuck on a lock would
    # hold the parent with it. Its process table is private, but the only way to bound the join.
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + seconds
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    killed = [process.pid for process in processes if process.is_alive()]
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join(POLL_SECONDS)
    return killed
