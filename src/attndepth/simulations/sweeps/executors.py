"""Where sweep points run: in this process, a local process pool, or dask.

Workers compute and return :class:`~attndepth.simulations.sweeps.store.PointResult`
values; only the driver writes to the store. A point that raises becomes a
failed result, never a failed sweep.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import time
import traceback
from collections.abc import Iterable
from concurrent.futures import Future, as_completed
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter, UserCodeFailed, describe_exception
from attndepth.simulations.pools import finished_results, process_pool, stop_pool
from attndepth.simulations.sweeps.observables import observables
from attndepth.simulations.sweeps.store import PointResult
from attndepth.simulations.sweeps.sweep_spec import SweepPoint
from attndepth.simulations.threads import share_cores
from attndepth.simulations.version import TOOLKIT_VERSION


def _environment() -> dict[str, Any]:
    import platform

    return {"python": platform.python_version(), "numpy": np.__version__}


def run_point(point: SweepPoint) -> PointResult:
    """Compute one point (in a worker); an exception becomes a failed result."""
    start = time.perf_counter()
    if point.measurement not in observables() and point.module:
        importlib.import_module(point.module)  # registers it in this worker
    measurement = observables()[point.measurement]
    extra = {"checkpoint": point.checkpoint} if point.checkpoint else {}
    try:
        metrics, error = measurement.function(seed=point.seed, **point.params, **extra), None
    except Exception as exc:  # a failing point is recorded, never fatal to the sweep
        metrics = None
        # a user's code names itself (UserCodeFailed); a message that cannot be printed
        # is said so instead of failing the sweep
        first = str(exc) if isinstance(exc, UserCodeFailed) else describe_exception(exc)
        error = first + "\n" + "".join(traceback.format_exception(exc)[-3:])
    return PointResult(point.hash, point.measurement, point.params, metrics, error, point.seed,
                       TOOLKIT_VERSION, _environment(), time.perf_counter() - start)


def local_results(points: list[SweepPoint], workers: int) -> Iterable[PointResult]:
    if workers == 1:
        yield from (run_point(point) for point in points)
        return
    with process_pool(workers, share_cores, (workers, os.getpid())) as pool:
        futures = [pool.submit(run_point, point) for point in points]
        seen: set[Future[PointResult]] = set()
        try:
            for future in as_completed(futures):
                seen.add(future)
                yield future.result()
        except KeyboardInterrupt:  # the workers stop now; what had finished is committed
            kept = finished_results(futures, seen)
            stop_pool(pool)
            yield from kept
            raise


def dask_results(points: list[SweepPoint], scheduler: str, workers: int) -> Iterable[PointResult]:
    try:
        from dask.distributed import Client, LocalCluster
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise InvalidParameter("the dask schedulers need the optional extra: "
                               "pip install -e '.[distributed]'") from None
    if scheduler == "dask-local":
        # the cluster's processes start with Ctrl-C ignored (they inherit it): a Ctrl-C in
        # the terminal reaches the whole process group, and only the driver answers it.
        # Its processes log only what is CRITICAL: a task's error reaches the driver as the
        # future's exception, a lost worker is retried, and while the cluster closes its
        # workers' heartbeats to a scheduler already gone would print ERROR lines of their
        # own (from other processes, past _shut_down's silence) under the one line a Ctrl-C
        # leaves
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=":0", silence_logs=logging.CRITICAL)
            client = Client(cluster)
            client.run(share_cores, workers)
        finally:
            signal.signal(signal.SIGINT, previous)
    else:
        cluster = None
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as error:
            raise InvalidParameter(f"cannot reach dask scheduler {scheduler}: {error}") from None
    try:
        # retries: a task whose worker dies is rerun elsewhere
        futures = client.map(run_point, points, retries=3, pure=False)
        for future in dask_completed(futures):
            yield future.result()
    except asyncio.CancelledError:  # Ctrl-C seen by dask's event loop first
        raise KeyboardInterrupt from None
    finally:
        _shut_down(client, cluster)


#: The loggers a cluster's teardown writes to in this process (dask's, and asyncio's
#: "Task was destroyed" of a cancelled task).
TEARDOWN_LOGGERS = ("distributed", "asyncio", "tornado")


def _shut_down(client: Any, cluster: Any) -> None:
    """Close the client and the local cluster. What closing raises or logs while a sweep
    ends (a task cancelled by Ctrl-C, a worker already gone, a nanny killing a worker)
    never replaces why it ended, on the terminal or in the exit code: the rows it
    committed are kept either way. A second Ctrl-C still stops it."""
    loggers = [logging.getLogger(name) for name in TEARDOWN_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        for close in (client.close, None if cluster is None else cluster.close):
            if close is None:
                continue
            try:
                close()
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: BLE001 - asyncio.CancelledError is one
                continue
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
