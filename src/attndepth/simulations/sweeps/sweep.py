"""Declarative parameter sweeps over registered observables.

A spec (TOML) names an observable (key ``measurement``), a grid (lists) and
fixed values of its parameters, and seeds::

    measurement = "similarity"
    seeds = [0, 1]                 # or: seeds = { base = 0, count = 4 }
    [grid]
    variant = ["post-ln", "pre-ln"]
    depth = [16, 32]
    [fixed]
    tokens = 16
    width = 32

Every point (observable, parameters, seed, toolkit version) is identified by
the SHA-256 of its canonical JSON (:mod:`~attndepth.simulations.sweeps.sweep_spec`);
the store (:mod:`~attndepth.simulations.sweeps.store`) keeps one row per hash, so
rerunning a sweep computes only the
missing (or failed) points. Workers compute and return; the driver alone writes, one transaction
per point, as results arrive. The same spec gives the same numbers on every
executor because each point is seeded by its own seed alone. Observables live
in :mod:`~attndepth.simulations.sweeps.observables`, executors in
:mod:`~attndepth.simulations.sweeps.executors`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from attndepth.errors import InvalidParameter, WorkerDied
from attndepth.simulations.sweeps.executors import dask_results, local_results
from attndepth.simulations.sweeps.observables import observables
from attndepth.simulations.sweeps.store import open_store
from attndepth.simulations.sweeps.sweep_spec import SweepSpec, load_spec, parse_spec
from attndepth.simulations.threads import available_cores

__all__ = ["MAX_WORKERS", "SweepSummary", "WorkerDied", "load_spec", "parse_spec", "run_sweep"]

#: Most worker processes: each holds its own interpreter and NumPy (about 60 MiB), so
#: beyond a few per core they only cost memory.
MAX_WORKERS = 4 * (os.cpu_count() or 1)


@dataclass(frozen=True)
class SweepSummary:
    """Counts at the end of a sweep."""

    total: int
    computed: int
    reused: int
    failed: int


def checkpoint_directory(store_path: str | Path) -> Path:
    """Where the unfinished points of a checkpointed observable save themselves:
    ``STORE.checkpoints/`` beside the store, one ``HASH.npz`` per point, each
    deleted once its row is committed (and the folder once it is empty)."""
    path = Path(store_path)
    return path.with_name(path.name + ".checkpoints")


def run_sweep(spec: SweepSpec, store_path: str | Path, scheduler: str = "local",
              workers: int | None = None, progress: bool | None = None,
              on_result: Callable[[Any], None] | None = None) -> SweepSummary:
    """Run the points missing from the store; write each as it finishes.

    Parameters
    ----------
    spec : SweepSpec
    store_path : str or Path
        The SQLite store (created if missing; refused if it is not a store).
    scheduler : str
        ``local`` (process pool), ``dask-local`` (a LocalCluster) or
        ``tcp://HOST:PORT`` (an existing dask scheduler).
    workers : int, optional
        Worker processes (default: the machine's cores).
    progress : bool, optional
        tqdm bar on stderr; default on only when stderr is a terminal.
    on_result : callable, optional
        Called with each point's result (``.hash``, ``.metrics``, ``.error``)
        once its row is committed.

    Returns
    -------
    SweepSummary
    """
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1 \
            or workers > MAX_WORKERS:
        raise InvalidParameter(f"workers must be an integer from 1 to {MAX_WORKERS} (each worker "
                               "is "
                               f"a process with its own NumPy), got {workers!r}")
    available_cores()  # a bad ATTNDEPTH_THREADS is refused here, not inside every worker
    if scheduler not in ("local", "dask-local") and not scheduler.startswith("tcp://"):
        raise InvalidParameter(f"scheduler must be local, dask-local or tcp://HOST:PORT; "
                               f"got {scheduler!r}")
    with open_store(store_path) as store:
        done = store.hashes("ok")
        unique = {point.hash: point for point in spec.points}
        missing = [point for h, point in unique.items() if h not in done]
        checkpoints = checkpoint_directory(store_path)
        if observables()[spec.measurement].checkpointed:
            missing = [replace(point, checkpoint=str(checkpoints / f"{point.hash}.npz"))
                       for point in missing]
        reused = len(unique) - len(missing)
        if progress is None:
            progress = sys.stderr.isatty()
        bar = tqdm(total=len(unique), initial=reused, unit="pt", disable=not progress,
                   file=sys.stderr, desc=spec.measurement)
        computed = failed = 0
        results = (local_results(missing, workers) if scheduler == "local"
                   else dask_results(missing, scheduler, workers))
        try:
            for result in results:
                store.record(result)
                if result.error is None:  # committed: its checkpoint is no longer needed
                    (checkpoints / f"{result.hash}.npz").unlink(missing_ok=True)
                computed += 1
                failed += result.error is not None
                bar.update(1)
                if on_result is not None:
                    on_result(result)
        except BrokenProcessPool:
            raise WorkerDied(f"a worker process died (killed, or out of memory) after "
                             f"{computed} of {len(missing)} points; every row committed to "
                             f"{store_path} is kept: rerun the same command to continue"
                             ) from None
        finally:
            bar.close()
            with contextlib.suppress(OSError):  # removed once empty
                checkpoints.rmdir()
    return SweepSummary(total=len(unique), computed=computed, reused=reused, failed=failed)
