"""The tutorial's files run (docs/tutorial.md): the DeepNorm claims, their figure, the
map, the pytest run, and the separation-rank conjecture, with the verdicts it reports."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEEPNORM = EXAMPLES / "deepnorm" / "deepnorm_claims.py"
DEFICIT = EXAMPLES / "separation_rank_conjecture" / "two_head_deficit.py"

pytestmark = pytest.mark.slow


def _attndepth(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "attndepth.cli.main", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=900)


def _claims(run):
    return {entry["claim"]: entry for entry in json.loads(run.stdout)["claims"]}


def test_the_deepnorm_claims_give_the_verdicts_the_tutorial_reports():
    run = _attndepth("verify", "--claims", DEEPNORM, "--format", "json")
    assert run.returncode == 0, run.stderr
    claims = _claims(run)
    rate, slows = claims["mine.deepnorm-rate"], claims["mine.deepnorm-slows"]
    # the derivation runs 1.5 % low at d = 64, α = 2: its interval straddles the 2 % edge at
    # base seed 0 (at seed 2 it lies inside: indistinguishable; docs/tutorial.md says so)
    assert rate["verdict"] == "inconclusive" and rate["evidence"]["seeds"] == 16
    assert rate["wrong_theory"] == "fails"
    assert slows["verdict"] == "holds" and slows["wrong_theory"] == "fails"


def test_the_deepnorm_figure_map_and_pytest_run(tmp_path):
    figures = _attndepth("figures", "--claims", DEEPNORM, "--out", tmp_path / "figs")
    assert figures.returncode == 0, figures.stderr
    assert (tmp_path / "figs" / "mine.deepnorm-rate.png").stat().st_size > 10_000
    mapped = _attndepth("map", "mine.deepnorm-rate", "--claims", DEEPNORM, "--grid",
                        "alpha=1.5,3", "--grid", "width=32", "--out", tmp_path / "maps")
    assert mapped.returncode == 0, mapped.stderr
    assert "mine.deepnorm-rate  map  alpha=1.5, width=32" in mapped.stderr  # progress lines
    tested = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                             "--attndepth-claims", str(DEEPNORM), "-k", "slows"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert tested.returncode == 0 and "1 passed" in tested.stdout, tested.stdout


def test_the_two_head_deficit_conjecture_holds_with_its_rivals_rejected():
    run = _attndepth("verify", "--claims", DEFICIT, "--format", "json")
    assert run.returncode == 0, run.stderr
    entry = _claims(run)["mine.two-head-deficit"]
    assert entry["verdict"] == "holds" and entry["wrong_theory"] == "fails"
    assert entry["values"]["rank"] == 107 and all(r["rejected"] for r in entry["rivals"])


def test_the_declared_deepnorm_claim_runs_with_its_figure(tmp_path):
    declared = EXAMPLES / "deepnorm" / "deepnorm_declared.py"
    run = _attndepth("verify", "--claims", declared, "--format", "json")
    assert run.returncode == 0, run.stderr
    entry = _claims(run)["mine.deepnorm-declared"]
    assert entry["verdict"] == "indistinguishable" and entry["wrong_theory"] == "fails"
    figures = _attndepth("figures", "--claims", declared, "--out", tmp_path)
    assert figures.returncode == 0 and (tmp_path / "mine.deepnorm-declared.png").is_file()
