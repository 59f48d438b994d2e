"""Sweeps: resume after a kill, failed points recorded, nothing computed twice."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from attndepth.simulations.sweeps.store import open_store
from attndepth.simulations.sweeps.sweep import parse_spec, run_sweep

SPEC = {"measurement": "similarity", "seeds": {"base": 0, "count": 2},
        "grid": {"variant": ["post-ln", "pre-ln"], "depth": [4, 8]},
        "fixed": {"tokens": 6, "width": 8}}


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


def test_bad_scheduler_and_workers(tmp_path):
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


def _sweep_command(tmp_path, workers: int):
    """The CLI command of a 24-point sweep (a few seconds) and its store."""
    spec_path = tmp_path / "kill.toml"
    spec_path.write_text(KILL_SPEC)
    store = tmp_path / "kill.sqlite"
    return [sys.executable, "-m", "attndepth.cli.main", "sweep", str(spec_path), "--store",
            str(store), "--workers", str(workers), "--quiet"], store


def test_sigkill_then_resume_has_every_point_exactly_once(tmp_path):
    command, store = _sweep_command(tmp_path, 1)
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


def test_a_killed_pool_worker_is_one_line_and_the_rows_are_kept(tmp_path):
    command, store = _sweep_command(tmp_path, 2)
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    killed, deadline = False, time.time() + 60
    time.sleep(1.0)  # let the pool start and commit a few rows
    while not killed and time.time() < deadline:
        listed = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True,
                                text=True).stdout.split()
        for pid in map(int, listed):
            try:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            except ProcessLookupError:  # a short-lived helper that already left
                continue
        time.sleep(0.1)
    assert killed, "no worker to kill"
    stderr = process.communicate(timeout=120)[1]
    assert process.returncode == 3, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "worker process died" in lines[0] and "rerun" in lines[0]
    kept = len(open_store(store).hashes())
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    assert len(open_store(store).hashes()) == 24 >= kept


def test_a_killed_driver_takes_its_workers_with_it(tmp_path):
    command, _ = _sweep_command(tmp_path, 2)
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    workers, deadline = [], time.time() + 60
    while len(workers) < 2 and time.time() < deadline:
        time.sleep(0.2)
        workers = [int(pid) for pid in subprocess.run(
            ["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()]
    assert workers, "the pool never started"
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(os.path.exists(f"/proc/{pid}") for pid in workers):
        time.sleep(0.1)
    alive = [pid for pid in workers if os.path.exists(f"/proc/{pid}")
             and "Z" not in open(f"/proc/{pid}/stat").read().split()[2]]
    assert not alive, f"orphaned workers {alive}"


@pytest.mark.slow
@pytest.mark.jax
def test_a_training_point_killed_mid_run_resumes_from_its_checkpoint(tmp_path):
    from attndepth.simulations.checkpoints import read_checkpoint
    from attndepth.simulations.sweeps.observables import observe_training
    from attndepth.simulations.sweeps.sweep import checkpoint_directory

    params = {"variant": "post-ln", "depth": 2, "width": 8, "pairs": 2, "steps": 3000,
              "batch": 8, "evaluate_every": 50}
    (tmp_path / "t.toml").write_text(textwrap.dedent(f"""
        measurement = "train"
        seeds = [5]
        [fixed]
        {chr(10).join(f'{k} = {v!r}'.replace("'", '"') for k, v in params.items())}
        """))
    store = tmp_path / "t.sqlite"
    folder = checkpoint_directory(store)
    command = [sys.executable, "-m", "attndepth.cli.main", "sweep", str(tmp_path / "t.toml"),
               "--store", str(store), "--workers", "1"]
    child = subprocess.Popen(command, start_new_session=True, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list(folder.glob("*.npz")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # a few more evaluations
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    [checkpoint] = list(folder.glob("*.npz"))
    saved = read_checkpoint(checkpoint, "training")
    assert saved is not None
    done = json.loads(saved.state)["steps"][-1]
    assert 0 < done < params["steps"]  # killed mid-run, with steps to spare
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    [row] = open_store(store).rows()
    assert row["status"] == "ok" and not folder.exists()  # the checkpoint went with the row
    whole = observe_training(seed=5, **params)
    assert row["metrics"]["validation_loss"] == whole["validation_loss"]
    assert row["metrics"]["t_sim_curves"] == whole["t_sim_curves"]
