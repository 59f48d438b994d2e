"""chen.critical-scaling: the finite-d half point holds, the paper's limit and the rival
scalings are rejected, and the wrong sign of the scatter's term fails."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(overlap=0.25, width=64, smallest=8, largest=256, batch=2)


def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("chen.critical-scaling", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 5
    # β½/ln n stays above the paper's γ_c = 1/(1 − ρ) at finite d
    assert result.outcome.values["gamma"] > result.outcome.values["gamma_c"]


def test_the_wrong_theory_fails():
    found = get_claim("chen.critical-scaling")
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(found.id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"


def test_from_n_32_the_growth_cannot_tell_ln_n_from_ln_n_minus_one():
    """The reason the growth starts at n = 8: from n = 32 the two laws' growths differ by
    under 1 %, inside the band, and the verdict says so."""
    result = run_claim("chen.critical-scaling", seed=1, **{**SMALL, "smallest": 32})
    assert result.verdict == "indistinguishable"
    assert [rival.name for rival in result.rivals if not rival.rejected] == [
        "ln n for ln(n − 1)"]
