"""Every claim at small, hypothesis-drawn sizes: each must hold (or be consistent)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.framework.running import run_claim

seeds = st.integers(0, 10_000)


@settings(max_examples=8)
@given(seeds, st.integers(1, 3), st.sampled_from([(2, 1), (4, 2), (3, 1)]), st.integers(2, 5))
def test_levine_degree(seed, depth, shape, tokens):
    width, heads = shape
    result = run_claim("levine.degree", seed=seed, depth=depth, width=width, heads=heads,
                       tokens=tokens, batch=2, symbolic_depth=1)
    # a proved degree: a consistency check; at L = 1 its rivals 2^L + 1 and 3L are 3 too
    assert result.verdict == "consistent", result.outcome
    assert all(rival.rejected for rival in result.rivals) == (depth > 1)


@settings(max_examples=5)
@given(seeds, st.integers(1, 3), st.integers(3, 6))
def test_levine_structure(seed, depth, tokens):
    result = run_claim("levine.structure", seed=seed, depth=depth, width=3, heads=1,
                       tokens=tokens, batch=2, symbolic_depth=1)
    assert result.verdict == "consistent", result.outcome


@settings(max_examples=5)
@given(seeds, st.integers(2, 8), st.sampled_from([(4, 1), (8, 2)]), st.integers(1, 4))
def test_yuzhang_invariant_eigenspace(seed, tokens, shape, depth):
    width, heads = shape
    result = run_claim("yuzhang.invariant-eigenspace", seed=seed, tokens=tokens, width=width,
                       heads=heads, depth=depth, batch=2, symbolic_tokens=2)
    assert result.verdict == "consistent", result.outcome
