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
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time

__all__ = ["end_with_parent", "forked_pool", "worker_pool"]

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
