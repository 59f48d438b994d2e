"""karagodin.speed-regulation: the clocks hold, the paper's aligned regime and the naive
readings are rejected, and the aligned clock in place of the derived one fails."""

import pytest

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim

SMALL = dict(norm_kind="layer", beta=0.5, step=0.05, width=64, causal=True, depth=16,
             tokens=8, batch=16, reference_step=0.2)


@pytest.mark.slow  # two stacks and an nGPT reference over up to 64 seeds: about 15 s
def test_the_claim_holds_and_rejects_its_rivals():
    result = run_claim("karagodin.speed-regulation", seed=1, **SMALL)
    assert result.verdict == "holds", result.outcome
    assert all(rival.rejected for rival in result.rivals) and len(result.rivals) == 5


def test_the_wrong_theory_fails():
    found = get_claim("karagodin.speed-regulation")
    [(name, wrong)] = found.wrong_theory.items()
    result = run_claim(found.id, seed=1, theory=found.theory.replaced({name: wrong}), **SMALL)
    assert result.verdict == "fails"
