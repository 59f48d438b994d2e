"""herasimchyk.residual-influence: the recursion holds and rejects its five rivals; each
placement read with the other's law fails."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(variant="pre-ln", temperature=8.0, width=64, tokens=8, depth=8, batch=16,
             directions=2)


def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("herasimchyk.residual-influence", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 5


def test_the_wrong_theory_fails():
    found = get_claim("herasimchyk.residual-influence")
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(found.id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"
