"""Your claims, our machinery: a user's claims file through verify --claims and pytest.

The file holds one true claim and one deliberately false one; both paths must
report the false one's smallest counterexample.
"""

import subprocess
import sys
import textwrap

import pytest

from attndepth.cli.main import main
from attndepth.framework.registry import load_claims

USER_CLAIMS = textwrap.dedent('''
    from attndepth import Family, Outcome, claim, verdict_from

    SQUARE_BOUND = 2  # theory side: n² ≥ 2n for n ≥ 2


    @claim("mine.square", source="arithmetic", statement="n² ≥ 2n for n ≥ 2",
           tolerance="exact", presets={"quick": {"n": 3}, "full": {"n": 10}},
           wrong_theory={"SQUARE_BOUND": 5},
           family=Family(parameters={"n": tuple(range(2, 12))}, beyond={"n": (50, 100)}))
    def verify_square(seed, n):
        return Outcome(str(SQUARE_BOUND * n), str(n * n), verdict_from(n * n >= SQUARE_BOUND * n))


    @claim("mine.false", source="wishful thinking", statement="every n is below 7",
           tolerance="exact", presets={"quick": {"n": 3}, "full": {"n": 5}},
           family=Family(parameters={"n": tuple(range(1, 10))}))
    def verify_false(seed, n):
        return Outcome("n < 7", f"n = {n}", verdict_from(n < 7))
''')


@pytest.fixture
def claims_file(tmp_path, monkeypatch):
    from attndepth.framework import registry as claims

    # Claims loaded here must not stay registered for the other test modules.
    monkeypatch.setattr(claims, "_REGISTRY", dict(claims.all_claims()))
    path = tmp_path / "user_claims.py"
    path.write_text(USER_CLAIMS)
    return path


def _pytest(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_verify_claims_file_runs_and_searches_it(claims_file, capsys):
    assert main(["verify", "--claims", str(claims_file)]) == 0
    out = capsys.readouterr().out
    assert "mine.square" in out and "mine.false" in out and "levine" not in out
    assert main(["verify", "--claims", str(claims_file), "--search", "--draws", "2",
                 "--workers", "1"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "Smallest counterexample: n=7" in out and f"--claims {claims_file}" in out


def test_bad_claims_sources_are_clear_errors(claims_file, tmp_path, capsys):
    assert main(["verify", "--claims", str(tmp_path / "missing.py")]) == 2
    assert "does not exist" in capsys.readouterr().err
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    with pytest.raises(ValueError, match="registered no claim"):
        load_claims(str(empty))
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('oops')\n")
    with pytest.raises(ValueError, match="RuntimeError: oops"):
        load_claims(str(broken))


def test_pytest_runs_claims_as_tests_with_the_counterexample(claims_file, tmp_path):
    run = _pytest(tmp_path, "--attndepth-claims", str(claims_file), "--attndepth-search", "2")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout
    assert "claim mine.false fails" in run.stdout and "Smallest counterexample: n=7" in run.stdout


def test_pytest_preset_mode_and_opt_in(claims_file, tmp_path):
    run = _pytest(tmp_path, "--attndepth-claims", str(claims_file))
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout + run.stderr
    quiet = _pytest(tmp_path)  # without the options the plugin adds nothing
    assert "no tests ran" in quiet.stdout
