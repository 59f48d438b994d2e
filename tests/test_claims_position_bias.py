"""wu.position-bias: the mask's rollout holds and rejects its five rivals; ln 2 in place
of the decay mask's rate fails."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(decay=0.5, temperature=2.0, width=16, tokens=8, rate_depth=16, batch=16)


def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("wu.position-bias", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 5


def test_the_wrong_theory_fails():
    found = get_claim("wu.position-bias")
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(found.id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"
