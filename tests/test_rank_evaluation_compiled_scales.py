import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attndepth.rank import degree_blocks
from attndepth.rank.degree_blocks import BLOCK_PRIME, measure_block_ranks
from attndepth.rank.evaluation import compiled_scales
from attndepth.rank.evaluation.compiled_scales import (
    compiled_supports,
    evaluate_scales_compiled,
)
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured_scales
from attndepth.rank.grids import SeparationRankConfig
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition
from attndepth.theory.separation_rank import degree_block_bounds

pytest.importorskip("jax")
pytestmark = pytest.mark.jax

SMALL_PRIME = 65_521


def check_compiled_equals_numpy(width, depth, heads, residual, tokens, seed, prime,
                                large_scales, chunk):
    weights = draw_linear_attention_weights(width, depth, heads, residual, 1, seed, prime=prime)
    partition = make_partition("balanced", tokens)
    rng = np.random.default_rng(seed)
    XP = rng.integers(0, prime, (5, len(partition.p_positions), width))
    XQ = rng.integers(0, prime, (3, len(partition.q_positions), width))
    scales = (np.array([prime - 1, prime - 2, 1234]) if large_scales
              else np.arange(1, 6, dtype=np.int64))
    coordinate = seed % width
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled_scales, "COMPILED_CHUNK_PAIRS", chunk)
        compiled = evaluate_scales_compiled(weights, partition, XP, XQ, coordinate, scales)
    assert compiled.shape == (5, 3, scales.size) and compiled.dtype == np.int64
    np.testing.assert_array_equal(
        compiled, evaluate_structured_scales(weights, partition, XP, XQ, coordinate, scales))


@pytest.mark.parametrize("case", [
    # depth 4 with two heads and ρ = 1, scales near p (Horner reduced at every step),
    # the grid split into padded calls of two rows
    dict(width=2, depth=4, heads=2, residual=1, tokens=4, seed=5, prime=BLOCK_PRIME,
         large_scales=True, chunk=6),
    dict(width=3, depth=3, heads=1, residual=0, tokens=3, seed=8, prime=SMALL_PRIME,
         large_scales=False, chunk=1 << 15),
])
def test_compiled_equals_numpy(case):
    check_compiled_equals_numpy(**case)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(width=st.integers(1, 4), depth=st.integers(3, 5), heads=st.integers(1, 2),
       residual=st.integers(0, 1), tokens=st.integers(2, 5), seed=st.integers(0, 2**16),
       prime=st.sampled_from([SMALL_PRIME, BLOCK_PRIME]), large_scales=st.booleans(),
       chunk=st.sampled_from([6, 1 << 15]))
def test_compiled_equals_numpy_on_drawn_networks(width, depth, heads, residual, tokens, seed,
                                                 prime, large_scales, chunk):
    # every depth to 5, head count and residual, lazy and stepwise Horner sums, and
    # grids in one call or several padded ones (each draw compiles: a few seconds)
    assume(width % heads == 0)
    check_compiled_equals_numpy(width, depth, heads, residual, tokens, seed, prime,
                                large_scales, chunk)


def test_the_supported_primes_keep_int64_exact():
    assert compiled_supports(8, BLOCK_PRIME)
    assert compiled_supports(8, 2**28 - 57)
    assert not compiled_supports(8, 2**31 - 1)
    assert not compiled_supports(2, 2**31 - 1)  # 4·p² ≥ 2^63


def test_compiled_refuses_what_it_cannot_compute():
    partition = make_partition("balanced", 2)
    XP = np.ones((1, 1, 2), dtype=np.int64)
    shallow = draw_linear_attention_weights(2, 2, 1, 0, 1, 0, prime=SMALL_PRIME)
    with pytest.raises(ValueError, match="depth >= 3"):
        evaluate_scales_compiled(shallow, partition, XP, XP, 0, [1, 2])
    with pytest.raises(ValueError, match="modulo a prime"):
        evaluate_scales_compiled(draw_linear_attention_weights(2, 3, 1, 0, 1, 0), partition,
                                 XP, XP, 0, [1, 2])
    deep = draw_linear_attention_weights(2, 3, 1, 0, 1, 0, prime=SMALL_PRIME)
    for bad in ([], [0, 1], [1.5], [SMALL_PRIME]):
        with pytest.raises(ValueError, match="scales must be"):
            evaluate_scales_compiled(deep, partition, XP, XP, 0, bad)
    wide = draw_linear_attention_weights(2, 3, 1, 0, 1, 0, prime=2**31 - 1)
    with pytest.raises(ValueError, match="overflow int64"):
        evaluate_scales_compiled(wide, partition, XP, XP, 0, [1, 2])
    empty = evaluate_scales_compiled(deep, partition, XP[:0], XP, 0, [1, 2])
    assert empty.shape == (0, 1, 2)


def test_depth_four_blocks_are_the_same_with_and_without_the_compiler(monkeypatch):
    # the degree blocks compile their kernel for large grids at depth 4, and without JAX
    # use NumPy: one result
    config = SeparationRankConfig(width=2, depth=4, heads=2, tokens=3, partition="sizes=1/2")
    split = config.split
    bounds = [b.bound for b in degree_block_bounds(2, 4, len(split.p_positions),
                                                   len(split.q_positions))]
    weights = draw_linear_attention_weights(2, 4, 2, 0, 1, 0, prime=BLOCK_PRIME)
    large = degree_blocks.COMPILED_MIN_EVALUATIONS
    assert degree_blocks._scales_evaluator(weights, large) is evaluate_scales_compiled
    assert degree_blocks._scales_evaluator(weights, large - 1) is evaluate_structured_scales
    monkeypatch.setattr(degree_blocks, "COMPILED_MIN_EVALUATIONS", 0)
    compiled = measure_block_ranks(config, bounds, seed=3)
    monkeypatch.setattr(degree_blocks, "compiled_available", lambda: False)
    plain = measure_block_ranks(config, bounds, seed=3)
    assert [b.rank for b in compiled.blocks] == [b.rank for b in plain.blocks]
    assert compiled.rank == plain.rank > 0
