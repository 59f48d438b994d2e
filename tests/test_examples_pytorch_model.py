"""The PyTorch page's claim runs (docs/pytorch.md): GPT-2's 1/sqrt(2L) initialisation gives
a depth-independent growth of the residual stream; the rival (no scaling) is rejected."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="the page's claim needs the hf extra")

CLAIMS = Path(__file__).resolve().parent.parent / "examples" / "pytorch_model" / "gpt2_claims.py"

pytestmark = pytest.mark.slow


def test_the_gpt2_claim_gives_the_verdict_the_page_reports():
    run = subprocess.run([sys.executable, "-m", "attndepth.cli.main", "verify", "--claims",
                          str(CLAIMS), "--format", "json"],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    [entry] = json.loads(run.stdout)["claims"]
    assert entry["claim"] == "mine.gpt2-depth-independent-growth"
    assert entry["verdict"] == "holds" and entry["wrong_theory"] == "fails"
    assert [rival["rejected"] for rival in entry["rivals"]] == [True]
    assert entry["evidence"]["seeds"] == 8
