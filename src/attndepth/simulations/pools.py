"""Every process pool attndepth starts: workers that leave Ctrl-C to the driver, and a
driver that stops them at once.

A pool made by :func:`process_pool` starts its workers with ``SIGINT`` ignored, so a
Ctrl-C in a terminal (sent to the whole process group) interrupts only the driver;
when the driver's block ends by an exception (``KeyboardInterrupt``, an error), the
pending tasks are cancelled and the workers terminated, instead of the block waiting
for every running task as ``ProcessPoolExecutor.__exit__`` does. What had finished is
the caller's: :func:`finished_results` hands over the results of the futures that
completed before the interruption, so the driver keeps them (a sweep commits them,
``verify`` reports them).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

#: Seconds the driver waits for a terminated worker to be gone.
TERMINATE_SECONDS = 5.0


def _start_worker(initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver stops the workers
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def process_pool(workers: int, initializer: Callable[..., Any] | None = None,
                 initargs: tuple[Any, ...] = (), *, start_method: str | None = None
                 ) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers ignore ``SIGINT`` and are terminated, their pending
    tasks cancelled, as soon as the block ends by an exception (module docstring).

    Parameters
    ----------
    workers : the worker processes.
    initializer, initargs : run in each worker as it starts (after ``SIGINT`` is
        ignored).
    start_method : ``"fork"``, ``"spawn"`` or None (the platform's default).

    Yields
    ------
    ProcessPoolExecutor
    """
    context = multiprocessing.get_context(start_method) if start_method else None
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_start_worker, initargs=(initializer, initargs))
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel the pool's pending tasks and terminate its workers now (no waiting for the
    running tasks)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(TERMINATE_SECONDS)
    for process in processes:  # one that outlived SIGTERM (busy being forked): SIGKILL
        with contextlib.suppress(Exception):
            if process.is_alive():
                process.kill()
                process.join(TERMINATE_SECONDS)


def finished_results(futures: Iterable[Future[Any]], seen: set[Future[Any]]) -> list[Any]:
    """The results of the futures that completed normally and are not in ``seen``: what
    a driver interrupted while waiting keeps."""
    kept = []
    for future in futures:
        if future in seen or not future.done() or future.cancelled():
            continue
        if future.exception() is None:
            kept.append(future.result())
    return kept
