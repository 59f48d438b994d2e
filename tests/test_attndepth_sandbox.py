"""The sandbox of a user's code: exceptions, exits, time and memory contained."""

import os

import pytest

from attndepth import errors, sandbox
from attndepth.cli.main import EXIT_BAD_INPUT


def test_user_code_contains_everything_but_ctrl_c_and_attndepths_own_errors():
    class Escapes(BaseException):
        pass

    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError

    for raised, words in [(Escapes("out"), "Escapes: out"), (SystemExit(0), "SystemExit: 0"),
                          (Unprintable(), "could not be printed"), (KeyError("k"), "KeyError")]:
        with pytest.raises(errors.UserCodeFailed, match=f"mine raised .*{words}"), \
                sandbox.user_code("mine"):
            raise raised
    for passing in (KeyboardInterrupt(), errors.InvalidParameter("bad")):
        with pytest.raises(type(passing)), sandbox.user_code("mine"):
            raise passing


def test_user_code_stops_a_function_at_its_time_limit():
    import signal
    import time

    before = signal.getsignal(signal.SIGALRM)
    start = time.perf_counter()
    with pytest.raises(errors.UserCodeFailed, match="longer than its limit of 0.2 s"), \
            sandbox.user_code("mine", 0.2):
        try:
            time.sleep(10)
        except Exception:  # the user's own handler cannot swallow the limit
            pass
    assert time.perf_counter() - start < 5
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


HOG = '''
import numpy as np
from attndepth import Outcome, claim

@claim("mine.hog", source="s", statement="s", tolerance="t", presets={"quick": {}, "full": {}})
def verify(seed):
    hoard = []
    while True:  # 64 MiB at a time, touched, for ever
        hoard.append(np.ones(2**23))
'''


def test_a_user_claim_that_allocates_without_bound_is_one_line_and_exit_2(tmp_path):
    """Its own process (the limit is process-wide): 0.25 GiB allowed, then MemoryError."""
    import subprocess
    import sys

    (tmp_path / "hog.py").write_text(HOG)
    run = subprocess.run([sys.executable, "-m", "attndepth.cli.main", "verify", "--claims",
                          str(tmp_path / "hog.py")], capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, sandbox.MEMORY_VARIABLE: "0.25"},
                         timeout=300)
    assert run.returncode == EXIT_BAD_INPUT, run.stderr
    [line] = run.stderr.strip().splitlines()
    assert "claim 'mine.hog' could not be run" in line and "MemoryError" in line
    assert "0.25 GiB (ATTNDEPTH_CLAIM_MEMORY)" in line and "Traceback" not in run.stderr


@pytest.mark.parametrize("setting", ["0", "-1", "nan", "lots", "1e400"])
def test_a_bad_memory_setting_is_refused(setting, monkeypatch):
    monkeypatch.setenv(sandbox.MEMORY_VARIABLE, setting)
    with pytest.raises(ValueError, match="ATTNDEPTH_CLAIM_MEMORY must be a number of GiB"):
        sandbox.user_memory()


def test_the_memory_limit_is_lifted_when_the_users_function_returns(monkeypatch):
    import resource

    monkeypatch.setenv(sandbox.MEMORY_VARIABLE, "1")
    before = resource.getrlimit(resource.RLIMIT_DATA)
    with sandbox.user_code("claim 'mine.small'"):
        inside = resource.getrlimit(resource.RLIMIT_DATA)
    assert resource.getrlimit(resource.RLIMIT_DATA) == before
    assert inside[0] != resource.RLIM_INFINITY and inside[0] <= (
        before[0] if before[0] != resource.RLIM_INFINITY else inside[0])


def test_os_exit_in_a_users_code_is_its_failure_and_is_restored():
    real = os._exit
    with pytest.raises(errors.UserCodeFailed, match=r"mine raised .*os\._exit\(3\)"), \
            sandbox.user_code("mine"):
        os._exit(3)
    assert os._exit is real


def test_os_exit_in_a_claims_file_is_one_line_and_exit_2(tmp_path, capsys):
    from attndepth.cli.main import main

    path = tmp_path / "exits.py"
    path.write_text("import os\nos._exit(0)\n")
    assert main(["verify", "--claims", str(path)]) == EXIT_BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "exits.py" in line and "os._exit(0)" in line
