"""Cores and BLAS threads: how many this process may use, and one-thread BLAS regions."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from functools import cache

from threadpoolctl import ThreadpoolController

#: Environment variable that caps the threads attndepth starts (exact evaluation,
#: FLINT); sweep workers set it to their share of the cores.
THREADS_VARIABLE = "ATTNDEPTH_THREADS"


def available_cores() -> int:
    """Threads attndepth may use: ``$ATTNDEPTH_THREADS`` if set, else the CPU cores this
    process may run on (its affinity mask where the OS has one)."""
    setting = os.environ.get(THREADS_VARIABLE)
    if setting is not None:
        if not setting.strip().isdigit() or int(setting) < 1:
            raise ValueError(f"{THREADS_VARIABLE} must be a positive integer, got {setting!r}")
        return int(setting)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def share_cores(workers: int) -> None:
    """In one of ``workers`` worker processes on this machine: use a 1/workers share of
    the cores for attndepth's threads and for BLAS, for the rest of the process."""
    share = max(1, available_cores() // max(1, workers))
    os.environ[THREADS_VARIABLE] = str(share)
    _controller().limit(limits=share, user_api="blas")


@cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # scans the loaded libraries once (~1 ms)


def single_threaded_blas() -> AbstractContextManager:
    """A region in which BLAS uses one thread (many small products, or our own threads).

    Small eig/SVD/GEMM calls gain nothing from BLAS threads, and BLAS threads
    started inside threads of ours contend for the same cores.
    """
    return _controller().limit(limits=1, user_api="blas")
