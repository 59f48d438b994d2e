"""Fast (structural-lemma) evaluation against the plain network, the oracle."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
from attndepth.rank.evaluation.grid_evaluation import (
    evaluate_plain,
    evaluate_structured,
    evaluate_structured_scales,
)
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition
from attndepth.simulations.testing import linear_attention_cases

tiny = linear_attention_cases()  # (width, depth, tokens, residual, seed)


@given(tiny, st.sampled_from(["balanced", "interleaved"]))
def test_structured_evaluation_equals_plain_oracle(case, style):
    width, depth, tokens, rho, seed = case
    partition = make_partition(style, tokens)
    rng = np.random.default_rng(seed)
    for prime in (DEFAULT_PRIME, None):
        weights = draw_linear_attention_weights(width, depth, 1, rho, 1, seed, prime=prime)
        shape_p = (3, len(partition.p_positions), width)
        shape_q = (4, len(partition.q_positions), width)
        if prime is None:
            XP, XQ = rng.standard_normal(shape_p), rng.standard_normal(shape_q)
        else:
            XP, XQ = rng.integers(0, prime, shape_p), rng.integers(0, prime, shape_q)
        fast = evaluate_structured(weights, partition, XP, XQ, width - 1)
        slow = evaluate_plain(weights, partition, XP, XQ, width - 1)
        if prime is None:
            np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12 * np.abs(slow).max())
        else:
            np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize(("width", "depth", "residual", "coordinate"),
                         [(3, 3, 0, 0), (3, 3, 1, 1), (5, 2, 1, 4), (4, 3, 0, 2), (2, 1, 1, 0)])
def test_structured_equals_plain_across_chunks_and_strategies(width, depth, residual, coordinate,
                                                              monkeypatch):
    # width 5: d × d products take matmul_mod's int64 path, d² = 16, 25 its float path;
    # a chunk of 7 pairs splits the 4 × 6 grid unevenly
    monkeypatch.setattr("attndepth.rank.evaluation.grid_evaluation.CHUNK_PAIRS", 7)
    weights = draw_linear_attention_weights(width, depth, 1, residual, 1, 5, prime=DEFAULT_PRIME)
    partition = make_partition("balanced", 3)
    rng = np.random.default_rng(4)
    XP = rng.integers(0, DEFAULT_PRIME, (4, 2, width))
    XQ = rng.integers(0, DEFAULT_PRIME, (6, 1, width))
    np.testing.assert_array_equal(evaluate_structured(weights, partition, XP, XQ, coordinate),
                                  evaluate_plain(weights, partition, XP, XQ, coordinate))


def test_structured_evaluation_is_the_same_on_one_and_several_threads(monkeypatch):
    monkeypatch.setattr("attndepth.rank.evaluation.grid_evaluation.CHUNK_PAIRS", 10)  # 8 chunks
    weights = draw_linear_attention_weights(3, 3, 1, 1, 1, 2, prime=DEFAULT_PRIME)
    partition = make_partition("balanced", 4)
    rng = np.random.default_rng(6)
    XP = rng.integers(0, DEFAULT_PRIME, (16, 2, 3))
    XQ = rng.integers(0, DEFAULT_PRIME, (5, 2, 3))
    single = evaluate_structured(weights, partition, XP, XQ, 1, threads=1)
    np.testing.assert_array_equal(evaluate_structured(weights, partition, XP, XQ, 1, threads=3),
                                  single)
    np.testing.assert_array_equal(evaluate_plain(weights, partition, XP, XQ, 1), single)


def test_multihead_structured_equals_plain():
    weights = draw_linear_attention_weights(4, 2, 2, 1, 1, 3, prime=DEFAULT_PRIME)
    partition = make_partition("0,2/1,3", 4)
    rng = np.random.default_rng(0)
    XP = rng.integers(0, DEFAULT_PRIME, (3, 2, 4))
    XQ = rng.integers(0, DEFAULT_PRIME, (5, 2, 4))
    np.testing.assert_array_equal(evaluate_structured(weights, partition, XP, XQ, 2),
                                  evaluate_plain(weights, partition, XP, XQ, 2))


@pytest.mark.parametrize("bad", [0, "two"])
def test_structured_evaluation_rejects_bad_thread_counts(bad):
    weights = draw_linear_attention_weights(2, 1, 1, 0, 1, 0, prime=DEFAULT_PRIME)
    X = np.ones((2, 1, 2), dtype=np.int64)
    with pytest.raises(ValueError, match="threads"):
        evaluate_structured(weights, make_partition("balanced", 2), X, X, 0, threads=bad)


@pytest.mark.parametrize("width", [112, 128])
def test_the_kronecker_set_up_is_size_checked_before_it_is_built(width):
    from attndepth.rank.grids import SeparationRankConfig, rank_from_grids

    with pytest.raises(ValueError, match="Kronecker transfer matrices needs"):
        rank_from_grids(SeparationRankConfig(width=width, depth=1), 0, max_points=16)


@settings(max_examples=25, deadline=None)
@given(width=st.integers(1, 10), depth=st.integers(1, 3), heads=st.sampled_from([1, 2]),
       residual=st.sampled_from([0, 1]), tokens=st.integers(2, 9),
       prime=st.sampled_from([65_521, 33_554_393, 67_108_859]), seed=st.integers(0, 2**20))
def test_structured_equals_plain_for_block_primes(width, depth, heads, residual,
                                                           tokens, prime, seed):
    # the block primes (< 2^26) and a small one, every head count and width up to 10
    if width % heads:
        heads = 1
    weights = draw_linear_attention_weights(width, depth, heads, residual, 1, seed, prime=prime)
    partition = make_partition("balanced", tokens)
    rng = np.random.default_rng(seed)
    XP = rng.integers(0, prime, (3, len(partition.p_positions), width))
    XQ = rng.integers(0, prime, (4, len(partition.q_positions), width))
    fast = evaluate_structured(weights, partition, XP, XQ, width - 1)
    assert fast.dtype == np.int64 and fast.min() >= 0 and fast.max() < prime
    np.testing.assert_array_equal(fast, evaluate_plain(weights, partition, XP, XQ, width - 1))


@settings(max_examples=25, deadline=None)
@given(width=st.integers(1, 5), depth=st.integers(0, 4), heads=st.integers(1, 2),
       residual=st.integers(0, 1), tokens=st.integers(2, 5), seed=st.integers(0, 2**16),
       prime=st.sampled_from([DEFAULT_PRIME, 67_108_859]), chunk=st.sampled_from([5, 1 << 14]))
def test_all_scales_at_once_equal_one_evaluation_per_scale(width, depth, heads, residual,
                                                           tokens, seed, prime, chunk):
    # the first layer as a cubic in s = t² (evaluate_structured_scales) against the
    # per-scale evaluation of the scaled columns, exactly, across chunk boundaries
    import attndepth.rank.evaluation.grid_evaluation as grid

    assume(width % heads == 0)
    weights = draw_linear_attention_weights(width, depth, heads, residual, 1, seed, prime=prime)
    partition = make_partition("balanced", tokens)
    rng = np.random.default_rng(seed)
    XP = rng.integers(0, prime, (3, len(partition.p_positions), width))
    XQ = rng.integers(0, prime, (4, len(partition.q_positions), width))
    scales = np.arange(1, 7, dtype=np.int64)
    coordinate = seed % width
    old, grid.CHUNK_PAIRS = grid.CHUNK_PAIRS, chunk
    try:
        together = evaluate_structured_scales(weights, partition, XP, XQ, coordinate, scales)
        apart = np.stack([evaluate_structured(weights, partition, XP, XQ * t % prime, coordinate)
                          for t in scales], axis=-1)
    finally:
        grid.CHUNK_PAIRS = old
    np.testing.assert_array_equal(together, apart)


def test_all_scales_at_once_needs_a_prime():
    weights = draw_linear_attention_weights(2, 2, 1, 0, 1, 0)
    XP = np.ones((1, 1, 2))
    with pytest.raises(ValueError, match="modulo a prime"):
        evaluate_structured_scales(weights, make_partition("balanced", 2), XP, XP, 0, [1, 2])
    exact = draw_linear_attention_weights(2, 2, 1, 0, 1, 0, prime=DEFAULT_PRIME)
    for bad in ([], [0, 1], [1.5], [DEFAULT_PRIME]):
        with pytest.raises(ValueError, match="scales must be"):
            evaluate_structured_scales(exact, make_partition("balanced", 2), XP, XP, 0, bad)


def test_all_scales_at_once_reduce_at_every_step_for_large_scales():
    # scales near p: p·s³ ≥ 2^62, so the polynomial is reduced after every Horner step
    prime = 67_108_859
    weights = draw_linear_attention_weights(3, 3, 1, 1, 1, 7, prime=prime)
    partition = make_partition("balanced", 3)
    rng = np.random.default_rng(7)
    XP = rng.integers(0, prime, (2, len(partition.p_positions), 3))
    XQ = rng.integers(0, prime, (3, len(partition.q_positions), 3))
    scales = np.array([prime - 1, prime - 2, 12_345_678], dtype=np.int64)
    np.testing.assert_array_equal(
        evaluate_structured_scales(weights, partition, XP, XQ, 1, scales),
        np.stack([evaluate_structured(weights, partition, XP, XQ * t % prime, 1)
                  for t in scales], axis=-1))
