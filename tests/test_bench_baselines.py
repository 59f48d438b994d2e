"""The "before" implementations compute what today's code computes, so before/after
ratios in bench/RESULTS.md compare the same work."""

import numpy as np

from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
from attndepth.rank.arithmetic.modular_rank import rank_mod
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition
from attndepth.simulations.models.stacks import (
    StackConfig,
    _draw_softmax_weights,
    draw_stack,
    run_stack,
)
from bench.baselines import (
    block_batches_before,
    block_batches_in_memory,
    draw_weights_before,
    evaluate_structured_before,
    polynomial_product_before,
    post_ln_stack_before,
    rank_mod_before,
)


def test_exact_evaluator_before_gives_the_same_matrix():
    weights = draw_linear_attention_weights(3, 3, 1, 1, 1, 0, prime=DEFAULT_PRIME)
    partition = make_partition("balanced", 4)
    rng = np.random.default_rng(0)
    XP = rng.integers(0, DEFAULT_PRIME, (7, 2, 3))
    XQ = rng.integers(0, DEFAULT_PRIME, (5, 2, 3))
    np.testing.assert_array_equal(evaluate_structured_before(weights, partition, XP, XQ, 2),
                                  evaluate_structured(weights, partition, XP, XQ, 2))


def test_polynomial_product_before_gives_the_same_coefficients():
    from attndepth.rank.degree_blocks import BLOCK_PRIME
    from attndepth.rank.evaluation.grid_parts import polynomial_product

    rng = np.random.default_rng(2)
    a = rng.integers(0, BLOCK_PRIME, (3, 4, 5, 5))
    b = rng.integers(0, BLOCK_PRIME, (3, 5, 5, 2))
    np.testing.assert_array_equal(polynomial_product_before(a, b, BLOCK_PRIME),
                                  polynomial_product(a, b, BLOCK_PRIME))


def test_block_batches_before_hold_at_most_512_mib_of_int32_unless_alone():
    sizes = [9, 18, 63, 228, 723, 2010, 5013, 11448, 8016, 2868, 888, 228, 48, 12]
    batches = block_batches_before(sizes)
    assert batches[0] == [7] and sorted(sum(batches, [])) == list(range(14))
    assert all(len(b) == 1 or sum(sizes[a] ** 2 for a in b) <= 1 << 27 for b in batches)


def test_block_batches_in_memory_partition_the_blocks_within_their_budget():
    sizes = [9, 18, 63, 228, 723, 2010, 5013, 11448, 8016, 2868, 888, 228, 48, 12]
    assert block_batches_in_memory(sizes) == [sorted(range(14), key=lambda a: -sizes[a])]
    batches = block_batches_in_memory(sizes, budget=8 * 11448**2 + 4 * 11448**2)
    assert batches[0] == [7] and sorted(sum(batches, [])) == list(range(14))
    for batch in batches:
        peak = 4 * sum(sizes[a] ** 2 for a in batch) + 8 * sizes[batch[0]] ** 2
        assert len(batch) == 1 or peak <= 8 * 11448**2 + 4 * 11448**2


def test_rank_before_gives_the_same_rank():
    rng = np.random.default_rng(1)
    F = (rng.integers(0, 100, (30, 6)) @ rng.integers(0, 100, (6, 25))) % DEFAULT_PRIME
    assert rank_mod_before(F, DEFAULT_PRIME) == rank_mod(F, DEFAULT_PRIME) == 6


def test_stack_and_weights_before_give_the_same_numbers():
    config = StackConfig(variant="post-ln", depth=5, tokens=6, width=8, heads=2)
    weights, X0 = draw_stack(config, 3, 4)
    np.testing.assert_allclose(post_ln_stack_before(config, weights, X0),
                               run_stack(config, 3, 4).states[-1], rtol=0, atol=1e-13)
    before = draw_weights_before(config, 3, 4)
    after = _draw_softmax_weights(config, 3, 4)
    for old, new in zip(before, (after.query, after.key, after.value, after.output),
                        strict=True):
        np.testing.assert_array_equal(old, new)


def test_the_variant_loop_before_gives_the_block_definitions_numbers_bit_for_bit():
    from bench.baselines import variant_stack_before
    from bench.forward import block_definition_before_after

    for variant in ("pure", "residual", "post-ln", "pre-ln", "post-ln-deesc-a",
                    "post-ln-deesc-b"):
        config = StackConfig(variant=variant, depth=3, tokens=5, width=8, heads=2, ffn=True,
                             tau=0.5, causal=True)
        weights, X0 = draw_stack(config, 2, 4)
        np.testing.assert_array_equal(variant_stack_before(config, weights, X0),
                                      run_stack(config, 2, 4).states[-1])
    assert block_definition_before_after(4, 8, 2, 2)["max |Δ state|"] == 0.0
