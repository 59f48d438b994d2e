"""The linear-attention network of Levine et al.: exact vs float, ranks, errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
from attndepth.rank.network import (
    draw_linear_attention_weights,
    linear_attention_states,
)


@given(st.integers(1, 3), st.integers(0, 2), st.sampled_from([1, 2]), st.sampled_from([0, 1]),
       st.integers(0, 2**32))
def test_linear_attention_exact_equals_float_on_small_integers(width_half, depth, heads, rho, seed):
    # Exact mode reduces the same integer network; check against an object-dtype oracle.
    width = 2 * width_half
    p = DEFAULT_PRIME
    weights = draw_linear_attention_weights(width, depth, heads, rho, 1, seed, prime=p)
    Y = np.random.default_rng(seed).integers(0, p, (2, 3, width))
    got = linear_attention_states(Y, weights)[-1]
    expected = Y.astype(object)
    for layer in range(depth):
        A = weights.bilinear[0, layer].astype(object)
        B = weights.value_output[0, layer].astype(object)
        new = rho * expected
        for h in range(heads):
            new = new + np.stack([(y @ A[h] @ y.T) @ (y @ B[h].T) for y in expected])
        expected = new % p
    np.testing.assert_array_equal(got, expected.astype(np.int64))


def test_linear_attention_products_have_rank_at_most_head_dim():
    weights = draw_linear_attention_weights(6, 2, 3, 0, 2, 0)
    assert np.linalg.matrix_rank(weights.bilinear[0, 0, 0]) == 2
    assert np.linalg.matrix_rank(weights.value_output[1, 1, 2]) == 2


@pytest.mark.parametrize(
    "kwargs, match",
    [(dict(width=0, depth=1), "width"), (dict(width=4, depth=1, heads=3), "heads"),
     (dict(width=4, depth=1, residual=2), "residual"),
     (dict(width=4, depth=1, prime=15), "prime")],
)
def test_linear_attention_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        draw_linear_attention_weights(**kwargs)


def test_linear_attention_overflow_names_the_depth():
    weights = draw_linear_attention_weights(4, 8, 1, 0, 1, 0)
    with pytest.raises(ValueError, match="overflowed float64 at depth 6"):
        linear_attention_states(np.full((1, 3, 4), 5.0), weights)


def test_oversized_linear_attention_rejected_before_allocating():
    with pytest.raises(ValueError, match="array elements"):
        draw_linear_attention_weights(10**6, 2)


def test_the_memory_guard_counts_what_the_draw_holds_at_once_not_only_the_results():
    import pytest

    # 2·8·4096² = 2^28 output entries passed the old guard; the four drawn factors and the
    # products' temporaries of one stack come on top of them
    with pytest.raises(ValueError, match="one stack's draws needs 1.61e\\+09 array elements"):
        draw_linear_attention_weights(4096, 8)
