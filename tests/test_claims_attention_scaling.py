"""chen.critical-scaling: the finite-d half point holds, the paper's limit and the rival
scalings are rejected, and the wrong sign of the scatter's term fails."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(overlap=0.25, width=64, smallest=32, largest=256, batch=2)


def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("chen.critical-scaling", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 4
    # β½/ln n stays above the paper's γ_c = 1/(1 − ρ) at finite d
    assert result.outcome.values["gamma"] > result.outcome.values["gamma_c"]


def test_the_wrong_theory_fails():
    found = get_claim("chen.critical-scaling")
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(found.id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"
