"""dey.depth-scaled-residuals: the law holds for CompleteP and depth-µP, its rivals fail."""

import pytest

from attndepth.framework.running import run_claim

SMALL = dict(depth=16, tokens=8, width=16, ffn=True, batch=32)  # the smallest member


def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("dey.depth-scaled-residuals", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 4
    exponents = result.outcome.values["exponents"]
    # measured, not judged: no scaling moves the stream more than linearly in L here
    assert exponents["SP"] > 0.9 and abs(exponents["GPT-2"]) < 0.2


def test_the_neighbouring_exponent_fails():
    from attndepth.framework.registry import get_claim

    found = get_claim("dey.depth-scaled-residuals")
    wrong = found.theory.replaced({"displacement_exponent": lambda alpha: 1 - alpha})
    assert run_claim(found.id, seed=1, theory=wrong, **SMALL).verdict == "fails"


@pytest.mark.parametrize("member", [{"depth": 16, "tokens": 8, "width": 16, "ffn": False}])
def test_a_member_of_the_family_runs(member):
    assert run_claim("dey.depth-scaled-residuals", batch=16, **member).in_family is True
