"""alekseev.jacobian-growth: the two laws hold where they are told apart, each rejects the
other, sech² cannot be told from sech⁴, and the stretched law for pre-LN fails."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(alpha=1.0, width=32, tokens=8, causal=False, window=4, batch=8, directions=2)


def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("alekseev.jacobian-growth", seed=1, **SMALL)
    assert result.verdict == "indistinguishable", result.outcome
    held = [rival.name for rival in result.rivals if not rival.rejected]
    assert held == ["DyT's Jacobian not squared, w ∝ E sech²(a₀x)"]
    assert len(result.rivals) == 6


def test_the_wrong_theory_fails():
    found = get_claim("alekseev.jacobian-growth")
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(found.id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"
