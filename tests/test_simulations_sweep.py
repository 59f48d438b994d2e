import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from attndepth.simulations.store import open_store
from attndepth.simulations.sweep import (
    Parameter,
    load_spec,
    parse_spec,
    register_measurement,
    run_sweep,
)

SPEC = {"measurement": "similarity", "seeds": {"base": 0, "count": 2},
        "grid": {"variant": ["post-ln", "pre-ln"], "depth": [4, 8]},
        "fixed": {"tokens": 6, "width": 8}}


def test_spec_points_and_stable_hashes():
    spec = parse_spec(SPEC)
    assert len(spec.points) == 8
    assert len({p.hash for p in spec.points}) == 8
    assert [p.hash for p in parse_spec(SPEC).points] == [p.hash for p in spec.points]
    assert spec.points[0].params["heads"] == 1  # default filled in


def test_similarity_measurement_runs_in_the_requested_dtype(tmp_path):
    spec = parse_spec({**SPEC, "grid": {"variant": ["post-ln"], "dtype": ["float64", "float32"]},
                       "fixed": {"tokens": 6, "width": 8, "depth": 4}, "seeds": [0]})
    assert run_sweep(spec, tmp_path / "s.sqlite", workers=1, progress=False).failed == 0
    rows = open_store(tmp_path / "s.sqlite").rows()
    finals = {row["config"]["dtype"]: row["metrics"]["t_sim_final"] for row in rows}
    assert abs(finals["float32"] - finals["float64"]) < 1e-5


def _measure_threads(seed: int, a: int) -> dict:
    from attndepth.simulations.threads import available_cores

    return {"threads": available_cores()}


def test_local_workers_share_the_cores(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNDEPTH_THREADS", "4")
    register_measurement("threads", _measure_threads, {"a": Parameter(int)})
    spec = parse_spec({"measurement": "threads", "grid": {"a": [1, 2, 3]}, "seeds": [0]})
    run_sweep(spec, tmp_path / "s.sqlite", workers=2, progress=False)
    rows = open_store(tmp_path / "s.sqlite").rows()
    assert [row["metrics"]["threads"] for row in rows] == [2, 2, 2]


def test_sweep_twice_computes_nothing_the_second_time(tmp_path):
    spec = parse_spec(SPEC)
    first = run_sweep(spec, tmp_path / "s.sqlite", workers=2, progress=False)
    second = run_sweep(spec, tmp_path / "s.sqlite", workers=2, progress=False)
    assert (first.computed, first.reused) == (8, 0)
    assert (second.computed, second.reused) == (0, 8)


def test_failing_point_recorded_and_sweep_continues(tmp_path):
    spec = parse_spec({**SPEC, "grid": {"variant": ["post-ln"], "depth": [4]},
                       "fixed": {"tokens": 6, "width": 8, "tau": 3.0}})  # tau out of range
    summary = run_sweep(spec, tmp_path / "s.sqlite", workers=1, progress=False)
    assert summary.failed == 2
    rows = open_store(tmp_path / "s.sqlite").rows()
    assert all(r["status"] == "failed" and "tau" in r["error"] for r in rows)


def _measure_add(seed: int, a: int, b: int = 1) -> dict:
    return {"sum": a + b + seed}


def test_registered_custom_measurement(tmp_path):
    register_measurement("add", _measure_add, {"a": Parameter(int), "b": Parameter(int, 1)})
    spec = parse_spec({"measurement": "add", "grid": {"a": [1, 2]}, "seeds": [5]})
    run_sweep(spec, tmp_path / "s.sqlite", workers=1, progress=False)
    sums = sorted(r["metrics"]["sum"] for r in open_store(tmp_path / "s.sqlite").rows())
    assert sums == [7, 8]


@pytest.mark.parametrize("document, match", [
    ({"measurement": "nope"}, "measurement"),
    ({**SPEC, "grid": {"depht": [1]}}, "grid.depht"),
    ({**SPEC, "grid": {"depth": []}}, "empty"),
    ({**SPEC, "grid": {"depth": ["4"]}}, "grid.depth"),
    ({**SPEC, "grid": {"depth": 4}}, "must be a list"),
    ({**SPEC, "fixed": {"tokens": 6, "width": 8.5}}, "fixed.width"),
    ({**SPEC, "seeds": []}, "seeds"),
    ({**SPEC, "seeds": [-1]}, "seeds"),
    ({**SPEC, "extra": 1}, "unknown spec key"),
    ({"measurement": "similarity", "fixed": {"depth": 2}}, "variant"),
])
def test_bad_specs_rejected_before_running(document, match):
    with pytest.raises(ValueError, match=match):
        parse_spec(document)


def test_bad_toml_and_scheduler(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("measurement = ")
    with pytest.raises(ValueError, match="TOML"):
        load_spec(path)
    with pytest.raises(ValueError, match="scheduler"):
        run_sweep(parse_spec(SPEC), tmp_path / "s.sqlite", scheduler="yarn")
    with pytest.raises(ValueError, match="workers"):
        run_sweep(parse_spec(SPEC), tmp_path / "s.sqlite", workers=0)


KILL_SPEC = textwrap.dedent("""
    measurement = "similarity"
    seeds = { base = 0, count = 12 }
    [grid]
    depth = [48, 64]
    [fixed]
    variant = "post-ln"
    tokens = 16
    width = 32
    batch = 16
""")


def test_sigkill_then_resume_has_every_point_exactly_once(tmp_path):
    spec_path = tmp_path / "kill.toml"
    spec_path.write_text(KILL_SPEC)
    store = tmp_path / "kill.sqlite"
    command = [sys.executable, "-m", "attndepth.cli", "sweep", str(spec_path), "--store",
               str(store), "--workers", "1", "--quiet"]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:
        time.sleep(0.2)
        if store.exists():
            try:
                if len(open_store(store).hashes()) >= 3:
                    break
            except ValueError:
                continue
    process.send_signal(signal.SIGKILL)
    process.wait()
    partial = len(open_store(store).hashes())
    assert 3 <= partial < 24
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    rows = open_store(store).rows()
    assert len(rows) == 24 and len({r["hash"] for r in rows}) == 24
    assert all(r["status"] == "ok" for r in rows)


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
        time.sleep(1.5)
        pids = client.run(os.getpid)
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        worker.join(timeout=240)
    assert not worker.is_alive()
    rows = open_store(store).rows()
    assert len(rows) == 24 and all(r["status"] == "ok" for r in rows)
