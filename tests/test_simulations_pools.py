"""Every process pool: workers that leave Ctrl-C to the driver, a driver that stops them at
once and keeps what finished — on every surface that runs a pool."""

import ast
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import attndepth
from attndepth.simulations.pools import finished_results, process_pool


def _sigint_disposition(_):
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def _sleep(seconds):
    time.sleep(seconds)
    return seconds


def test_no_module_makes_a_pool_of_its_own():
    """Every ProcessPoolExecutor of attndepth is made by process_pool."""
    package = Path(attndepth.__file__).parent
    for path in package.rglob("*.py"):
        if path.name == "pools.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name | ast.Attribute):
                name = node.id if isinstance(node, ast.Name) else node.attr
                assert name not in ("ProcessPoolExecutor", "Pool"), path


def test_workers_ignore_ctrl_c():
    with process_pool(2) as pool:
        assert all(pool.map(_sigint_disposition, range(4)))


def _running(pid):
    """The process's state letter from ``/proc`` while it runs; ``""`` once it has ended
    (gone, or a zombie waiting to be reaped: whoever reaps it, it runs no more)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""
    return "" if state in ("Z", "X") else state


def test_an_interrupted_pool_stops_its_workers_at_once():
    """Tasks of 600 s each: the block ends long before any of them could."""
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), process_pool(2) as pool:
        pool.submit(_sleep, 0).result()  # the workers are up
        futures = [pool.submit(_sleep, 600) for _ in range(4)]
        workers = list(pool._processes.values())
        raise KeyboardInterrupt
    pids = [process.pid for process in workers]
    while any(_running(pid) for pid in pids) and time.monotonic() - start < 60:
        time.sleep(0.1)
    states = {pid: _running(pid) for pid in pids}
    assert not any(states.values()), f"workers still running (pid: /proc state): {states}"
    assert all(future.cancelled() or future.done() for future in futures)


def test_what_finished_is_kept():
    with process_pool(2) as pool:
        futures = [pool.submit(_sleep, 0) for _ in range(3)]
        for future in futures:
            future.result()
    assert finished_results(futures, {futures[0]}) == [0, 0]


def _default_ctrl_c():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(argv, cwd, ready, limit=60.0):
    """Run ``attndepth argv`` in its own process group, send Ctrl-C to the whole group
    once ``ready()`` is true, and return (exit code, seconds it took to stop, stdout,
    stderr)."""
    # started as a shell starts a command, Ctrl-C at its default: a signal its parent (an
    # xdist worker, after the slow suite's earlier tests) ignores would stay ignored
    process = subprocess.Popen([sys.executable, "-m", "attndepth.cli.main", *argv], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=_default_ctrl_c)
    start = time.monotonic()
    while not ready() and time.monotonic() - start < limit and process.poll() is None:
        time.sleep(0.1)
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return process.returncode, time.monotonic() - sent, out, err


SLEEPY = '''
import time
from attndepth import Outcome, claim

@claim("mine.quick", source="s", statement="s", tolerance="t",
       presets={"quick": {}, "full": {}})
def quick(seed):
    open("quick.done", "w").close()
    return Outcome("1", "1", "holds")

@claim("mine.slow", source="s", statement="s", tolerance="t",
       presets={"quick": {}, "full": {}})
def slow(seed):
    time.sleep(600)
    return Outcome("1", "1", "holds")
'''


@pytest.mark.slow
def test_ctrl_c_of_verify_with_workers_stops_at_once_and_reports_what_finished(tmp_path):
    (tmp_path / "sleepy.py").write_text(SLEEPY)
    code, seconds, out, err = _interrupt(
        ["verify", "--claims", "sleepy.py", "--jobs", "2", "--no-wrong-theory"], tmp_path,
        lambda: (tmp_path / "quick.done").exists() and time.sleep(1) is None)
    assert code == 130 and seconds < 10, (code, seconds, err)
    assert "mine.quick" in out and "mine.slow" not in out
    assert err.strip().splitlines()[-1].startswith("attndepth: interrupted: 1 of 2 claims")
    assert "Traceback" not in err


SPEC = '''measurement = "similarity"
seeds = {base = 0, count = 4}
[grid]
width = [32, 48]
depth = [100, 200]
[fixed]
variant = "post-ln"
tokens = 32
batch = 16
'''


def _rows(store):
    try:
        with sqlite3.connect(store) as connection:
            return connection.execute("SELECT count(*) FROM points").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["local", "dask-local"])
def test_ctrl_c_of_a_sweep_stops_at_once_and_keeps_every_finished_row(tmp_path, scheduler):
    (tmp_path / "spec.toml").write_text(SPEC)
    store = tmp_path / "s.sqlite"
    code, seconds, out, err = _interrupt(
        ["sweep", "spec.toml", "--store", str(store), "--workers", "2", "--scheduler",
         scheduler, "--quiet"], tmp_path, lambda: _rows(store) >= 1)
    assert code == 130 and seconds < 15, (code, seconds, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # what else was said, if anything
    assert lines[0].startswith("attndepth: interrupted") and 1 <= _rows(store) < 16
