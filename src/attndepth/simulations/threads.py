"""Cores and BLAS threads: how many this process may use, and one-thread BLAS regions."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from functools import cache

from threadpoolctl import ThreadpoolController

from attndepth.environment import MAX_THREADS, is_set, set_here, setting
from attndepth.sandbox import MEMORY_VARIABLE, user_memory
from attndepth.validation import check_int, check_optional_int

#: Environment variable that caps the threads attndepth starts (exact evaluation,
#: FLINT); sweep workers set it to their share of the cores.
THREADS_VARIABLE = "ATTNDEPTH_THREADS"


def available_cores() -> int:
    """Threads attndepth may use: ``$ATTNDEPTH_THREADS`` if set, else the CPU cores this
    process may run on (its affinity mask where the OS has one)."""
    threads = setting(THREADS_VARIABLE)
    if threads is not None:
        return int(threads)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def share_cores(workers: int, parent: int | None = None) -> None:
    """In one of ``workers`` worker processes on this machine: use a 1/workers share of
    the cores for attndepth's threads and for BLAS, for the rest of the process, and (unless
    ``ATTNDEPTH_CLAIM_MEMORY`` is set) a 1/workers share of the memory a user's function
    may allocate (:func:`attndepth.sandbox.user_memory`).

    On Linux the worker also asks to be killed when its parent (the sweep's
    driver) dies, so a killed driver leaves no orphaned workers. ``parent``, the
    driver's pid as the driver saw it: a worker whose driver died before that request
    (between the fork and this call) kills itself at once.

    Raises
    ------
    ValueError
        ``workers`` is not an integer >= 1, or ``parent`` neither None nor one.
    """
    workers = check_int("workers", workers, minimum=1)
    _die_with_parent(check_optional_int("parent", parent, minimum=1))
    share = max(1, available_cores() // workers)
    set_here(THREADS_VARIABLE, min(share, MAX_THREADS))
    if not is_set(MEMORY_VARIABLE):  # a user's code: a share of the memory too
        set_here(MEMORY_VARIABLE, f"{user_memory() / workers / 2**30:.6g}")
    _controller().limit(limits=share, user_api="blas")


def _die_with_parent(parent: int | None = None) -> None:
    """prctl(PR_SET_PDEATHSIG, SIGKILL) where the C library has it (Linux); else nothing.

    The request covers only a parent that dies after it: if ``parent`` is given and is
    no longer this process's parent (it died first, and the process was re-parented),
    the process sends itself the signal the request would have brought.
    """
    import ctypes
    import ctypes.util
    import signal

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


@cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # scans the loaded libraries once (~1 ms)


def single_threaded_blas() -> AbstractContextManager:
    """A region in which BLAS uses one thread (many small products, or our own threads).

    Small eig/SVD/GEMM calls gain nothing from BLAS threads, and BLAS threads
    started inside threads of ours contend for the same cores.
    """
    return _controller().limit(limits=1, user_api="blas")
