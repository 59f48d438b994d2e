import os
import signal
import subprocess
import sys

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from attndepth.simulations.threads import available_cores, share_cores, single_threaded_blas


def _blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


def test_available_cores_is_the_affinity_mask_without_the_variable(monkeypatch):
    monkeypatch.delenv("ATTNDEPTH_THREADS", raising=False)
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count()
    assert available_cores() == expected


def test_single_threaded_blas_limits_and_restores():
    before = _blas_threads()
    assert before, "numpy's BLAS is not visible to threadpoolctl: nothing below is tested"
    with single_threaded_blas():
        assert all(threads == 1 for threads in _blas_threads())
    assert _blas_threads() == before


def test_environment_caps_the_threads(monkeypatch):
    monkeypatch.setenv("ATTNDEPTH_THREADS", "3")
    assert available_cores() == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("ATTNDEPTH_THREADS", bad)
        with pytest.raises(ValueError, match="ATTNDEPTH_THREADS"):
            available_cores()


def test_share_cores_splits_the_machine_between_workers(monkeypatch):
    monkeypatch.setenv("ATTNDEPTH_THREADS", "4")
    before = _blas_threads()
    assert before
    try:
        share_cores(2)
        assert available_cores() == 2
        assert all(threads <= 2 for threads in _blas_threads())
    finally:  # the limit share_cores sets lasts for the process: put BLAS back
        threadpool_limits(limits=max(before) if before else None, user_api="blas")


@pytest.mark.parametrize("kwargs", [dict(workers=0), dict(workers=2.5),
                                    dict(workers=1, parent="1"), dict(workers=1, parent=0)])
def test_share_cores_refuses_bad_input_before_changing_anything(kwargs):
    # a parent that is not a pid would otherwise read as "my driver died": a SIGKILL
    with pytest.raises(ValueError, match="workers|parent"):
        share_cores(**kwargs)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
@pytest.mark.parametrize("parent, survives", [("os.getppid()", True), ("1", False)])
def test_a_worker_whose_driver_died_before_it_started_dies_too(parent, survives):
    # a driver killed between the fork and the worker's prctl: the worker finds itself
    # re-parented (here: told a parent it does not have) and kills itself
    script = (f"import os\nfrom attndepth.simulations.threads import share_cores\n"
              f"share_cores(1, {parent})\nprint('alive')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    if survives:
        assert done.returncode == 0 and done.stdout == "alive\n", done.stderr
    else:
        assert done.returncode == -signal.SIGKILL and done.stdout == ""


@pytest.mark.parametrize("setting", ["9" * 5000, "0", "65", "٣", "-1", "", "1e1", "08 "])
def test_a_bad_threads_variable_is_one_clear_error(monkeypatch, setting):
    from attndepth.simulations.threads import available_cores

    monkeypatch.setenv("ATTNDEPTH_THREADS", setting)
    if setting.strip() == "08":
        assert available_cores() == 8
        return
    with pytest.raises(ValueError, match="ATTNDEPTH_THREADS must be an integer from 1 to 64"):
        available_cores()
