"""sun.variance-growth and sun.near-identity: the laws hold, their rivals are rejected,
and a wrong theory fails."""

import pytest

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(depth=16, tokens=8, width=16, batch=16)  # the smallest member


def test_variance_growth_holds_and_rejects_its_rivals():
    result = run_claim("sun.variance-growth", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 7


def test_near_identity_holds_and_rejects_its_rivals():
    result = run_claim("sun.near-identity", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 5
    # at initialisation LNS brings deep blocks closer to the identity, not further
    assert result.outcome.values["ratio_lns"] < 0.6


@pytest.mark.parametrize("claim_id", ["sun.variance-growth", "sun.near-identity"])
def test_the_wrong_theory_fails(claim_id):
    found = get_claim(claim_id)
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(claim_id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"
