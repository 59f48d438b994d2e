"""Executors: a local pool shares the cores; dask gives the same rows and survives a kill."""

import os
import signal
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.sweeps.observables import Parameter, register_observable
from attndepth.simulations.sweeps.store import open_store
from attndepth.simulations.sweeps.sweep import MAX_WORKERS, parse_spec, run_sweep

SPEC = {"measurement": "similarity", "seeds": {"base": 0, "count": 2},
        "grid": {"variant": ["post-ln", "pre-ln"], "depth": [4, 8]},
        "fixed": {"tokens": 6, "width": 8}}


def _measure_threads(seed: int, a: int) -> dict:
    from attndepth.simulations.threads import available_cores

    return {"threads": available_cores()}


def test_local_workers_share_the_cores(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNDEPTH_THREADS", "4")
    register_observable("threads", _measure_threads, {"a": Parameter(int)})
    spec = parse_spec({"measurement": "threads", "grid": {"a": [1, 2, 3]}, "seeds": [0]})
    run_sweep(spec, tmp_path / "s.sqlite", workers=2, progress=False)
    rows = open_store(tmp_path / "s.sqlite").rows()
    assert [row["metrics"]["threads"] for row in rows] == [2, 2, 2]


def test_local_and_dask_local_identical(tmp_path):
    spec = parse_spec(SPEC)
    run_sweep(spec, tmp_path / "local.sqlite", "local", 2, progress=False)
    run_sweep(spec, tmp_path / "dask.sqlite", "dask-local", 2, progress=False)
    local = {r["hash"]: r["metrics"] for r in open_store(tmp_path / "local.sqlite").rows()}
    dask = {r["hash"]: r["metrics"] for r in open_store(tmp_path / "dask.sqlite").rows()}
    assert local == dask


def test_dask_worker_killed_mid_sweep_still_completes(tmp_path):
    from dask.distributed import Client, LocalCluster

    spec = parse_spec({"measurement": "similarity", "seeds": {"base": 0, "count": 12},
                       "grid": {"depth": [48, 64]},
                       "fixed": {"variant": "post-ln", "tokens": 16, "width": 32,
                                 "batch": 16}})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        store = tmp_path / "dask.sqlite"
        outcome = {}
        worker = threading.Thread(target=lambda: outcome.setdefault(
            "summary", run_sweep(spec, store, cluster.scheduler_address, progress=False)))
        worker.start()
        # Kill a worker while it holds tasks (a kill between tasks would test nothing).
        held, deadline = {}, time.time() + 60
        while not held and time.time() < deadline:
            time.sleep(0.05)
            held = {address: keys for address, keys in client.processing().items() if keys}
        assert held, "no worker ever held a task"
        victim, tasks = next(iter(held.items()))
        os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
        worker.join(timeout=240)
    assert not worker.is_alive()
    assert len(tasks) >= 1
    rows = open_store(store).rows()
    assert len(rows) == 24 and all(r["status"] == "ok" for r in rows)
    assert outcome["summary"].computed == 24 and outcome["summary"].failed == 0


@settings(max_examples=10)
@given(st.integers(MAX_WORKERS + 1, 10**6) | st.integers(-10, 0))
def test_worker_counts_are_bounded(workers):
    with pytest.raises(ValueError, match="workers must be an integer from 1"):
        run_sweep(parse_spec(SPEC), "/nonexistent/never-created.sqlite", workers=workers)


def test_closing_dask_after_ctrl_c_never_replaces_the_interrupt():
    import asyncio

    from attndepth.simulations.sweeps.executors import _shut_down

    closed = []

    class Closes:
        def __init__(self, raises):
            self.raises = raises

        def close(self):
            closed.append(self.raises)
            if self.raises is not None:
                raise self.raises

    _shut_down(Closes(asyncio.CancelledError()), Closes(RuntimeError("gone")))
    assert len(closed) == 2  # both closed, whatever the first raised
    with pytest.raises(KeyboardInterrupt):  # a second Ctrl-C still stops it
        _shut_down(Closes(KeyboardInterrupt()), None)
