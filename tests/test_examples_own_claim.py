"""The README's example of a user's own claim runs, with its rival and its family."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "own_claim" / "postln_rate.py"


@pytest.mark.slow
def test_the_example_claim_runs_and_reports_its_rival():
    run = subprocess.run([sys.executable, "-m", "attndepth.cli.main", "verify", "--claims",
                          str(EXAMPLE), "--format", "json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    [entry] = json.loads(run.stdout)["claims"]
    assert entry["claim"] == "mine.postln-rate" and entry["in_family"] is True
    assert entry["verdict"] == "indistinguishable"  # ln 2 is within 2 % at d = 64
    assert [rival["name"] for rival in entry["rivals"]] == ["ln 2"]
    assert entry["evidence"]["seeds"] >= 4
