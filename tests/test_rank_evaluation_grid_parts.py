"""The depth-3 parts as matrix-polynomial coefficients, against the scaled evaluations."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
from attndepth.rank.degree_blocks import BLOCK_PRIME, separating_scales
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured_scales
from attndepth.rank.evaluation.grid_parts import (
    PARTS_DEPTH,
    evaluate_structured_parts,
    polynomial_product,
)
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition


def _parts_from_scales(weights, partition, XP, XQ, coordinate):
    """The oracle: K + 1 evaluations at scaled columns, then the inverse Vandermonde."""
    prime = weights.prime
    scales, inverse = separating_scales((3 ** PARTS_DEPTH - 1) // 2, prime)
    scaled = evaluate_structured_scales(weights, partition, XP, XQ, coordinate, scales)
    products = scaled.astype(object) @ inverse.T.astype(object)
    return (products % prime).astype(np.int64)


@settings(max_examples=30, deadline=None)
@given(width=st.integers(1, 6), heads=st.integers(1, 6), residual=st.integers(0, 1),
       p_size=st.integers(1, 4), q_size=st.integers(1, 4), seed=st.integers(0, 2**16),
       prime=st.sampled_from([BLOCK_PRIME, DEFAULT_PRIME]))
def test_the_coefficients_are_the_parts_the_scales_separate(width, heads, residual, p_size,
                                                            q_size, seed, prime):
    assume(width % heads == 0)
    weights = draw_linear_attention_weights(width, PARTS_DEPTH, heads, residual, 1, seed,
                                            prime=prime)
    partition = make_partition(f"sizes={p_size}/{q_size}", p_size + q_size)
    rng = np.random.default_rng(seed)
    XP = rng.integers(0, prime, (3, p_size, width))
    XQ = rng.integers(0, prime, (4, q_size, width))
    coordinate = seed % width
    parts = evaluate_structured_parts(weights, partition, XP, XQ, coordinate)
    assert parts.shape == (3, 4, 14) and parts.min() >= 0 and parts.max() < prime
    np.testing.assert_array_equal(parts, _parts_from_scales(weights, partition, XP, XQ,
                                                            coordinate))


def test_chunks_and_threads_do_not_change_the_parts(monkeypatch):
    import attndepth.rank.evaluation.grid_parts as grid_parts

    weights = draw_linear_attention_weights(4, 3, 2, 0, 1, 5, prime=BLOCK_PRIME)
    partition = make_partition("sizes=2/2", 4)
    rng = np.random.default_rng(5)
    XP, XQ = rng.integers(0, BLOCK_PRIME, (2, 9, 2, 4))
    whole = evaluate_structured_parts(weights, partition, XP, XQ, 1, threads=1)
    monkeypatch.setattr(grid_parts, "PARTS_CHUNK_PAIRS", 10)
    np.testing.assert_array_equal(
        evaluate_structured_parts(weights, partition, XP, XQ, 1, threads=2), whole)


@pytest.mark.parametrize("prime", [101, BLOCK_PRIME, DEFAULT_PRIME])  # lazy, lazy, reduced
def test_polynomial_product_is_the_convolution_of_coefficients(prime):
    rng = np.random.default_rng(0)
    a = rng.integers(prime - 3, prime, (2, 3, 2, 4))  # batch 2, degree 2, 2 × 4 matrices
    b = rng.integers(prime - 3, prime, (2, 4, 4, 3))  # degree 3, 4 × 3; residues near p
    product = polynomial_product(a, b, prime)
    assert product.shape == (2, 6, 2, 3)
    a, b = a.astype(object), b.astype(object)
    for k in range(6):
        expected = sum(a[:, i] @ b[:, k - i] for i in range(3) if 0 <= k - i < 4) % prime
        np.testing.assert_array_equal(product[:, k], expected.astype(np.int64))


def test_other_depths_and_float_weights_are_refused():
    partition = make_partition("balanced", 2)
    XP = np.ones((1, 1, 2), dtype=np.int64)
    shallow = draw_linear_attention_weights(2, 2, 1, 0, 1, 0, prime=BLOCK_PRIME)
    with pytest.raises(ValueError, match="takes depth 3"):
        evaluate_structured_parts(shallow, partition, XP, XP, 0)
    floats = draw_linear_attention_weights(2, 3, 1, 0, 1, 0)
    with pytest.raises(ValueError, match="modulo a prime"):
        evaluate_structured_parts(floats, partition, XP, XP, 0)
    exact = draw_linear_attention_weights(2, 3, 1, 0, 1, 0, prime=BLOCK_PRIME)
    assert evaluate_structured_parts(exact, partition, XP[:0], XP, 0).shape == (0, 1, 14)


def test_bad_coordinates_and_shapes_are_refused_in_one_line():
    weights = draw_linear_attention_weights(2, 3, 1, 0, 1, 0, prime=BLOCK_PRIME)
    XP = np.ones((1, 1, 2), dtype=np.int64)
    for bad in (2, -1, 0.5, True):
        with pytest.raises(ValueError, match="coordinate must be an integer from 0 to"):
            evaluate_structured_parts(weights, make_partition("balanced", 2), XP, XP, bad)
    with pytest.raises(ValueError, match="coefficient stacks"):
        polynomial_product(np.ones((2, 2), dtype=np.int64), np.ones((1, 2, 2), dtype=np.int64),
                           101)
