"""barbero.representational-collapse: the 1/n shift holds and rejects 1/√n, O(1) and 1/n²;
the exponent −½ in its place fails."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(variant="post-ln", depth=1, width=32, ffn=False, heads=1, lengths=(16, 128),
             batch=16)


def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("barbero.representational-collapse", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 3


def test_the_wrong_theory_fails():
    found = get_claim("barbero.representational-collapse")
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(found.id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"
