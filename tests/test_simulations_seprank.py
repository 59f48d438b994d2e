import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.modular import DEFAULT_PRIME, SECOND_PRIME
from attndepth.simulations.seprank import (
    DEFAULT_MARGIN,
    SeprankConfig,
    evaluate_plain,
    evaluate_structured,
    make_partition,
    measure_rank,
    schwartz_zippel_bound,
    verify_rank,
)
from attndepth.simulations.stacks import LinearAttentionWeights, draw_linear_attention_weights
from attndepth.theory.separation_rank import (
    coefficient_separation_rank,
    random_integer_weights,
    separation_rank_bounds,
    symbolic_network,
    weight_degree,
)

tiny = st.tuples(
    st.sampled_from([1, 2, 3]),  # width
    st.integers(0, 2),  # depth
    st.integers(2, 4),  # tokens
    st.sampled_from([0, 1]),  # residual
    st.integers(0, 1000),  # seed
)


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
    monkeypatch.setattr("attndepth.simulations.seprank.CHUNK_PAIRS", 7)
    weights = draw_linear_attention_weights(width, depth, 1, residual, 1, 5, prime=DEFAULT_PRIME)
    partition = make_partition("balanced", 3)
    rng = np.random.default_rng(4)
    XP = rng.integers(0, DEFAULT_PRIME, (4, 2, width))
    XQ = rng.integers(0, DEFAULT_PRIME, (6, 1, width))
    np.testing.assert_array_equal(evaluate_structured(weights, partition, XP, XQ, coordinate),
                                  evaluate_plain(weights, partition, XP, XQ, coordinate))


def test_structured_evaluation_is_the_same_on_one_and_several_threads(monkeypatch):
    monkeypatch.setattr("attndepth.simulations.seprank.CHUNK_PAIRS", 10)  # 8 chunks
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


@settings(max_examples=10)
@given(tiny)
def test_exact_rank_at_most_every_bound(case):
    width, depth, tokens, rho, seed = case
    config = SeprankConfig(width=width, depth=depth, tokens=tokens, residual=rho)
    certificate = measure_rank(config, seed)
    split = config.split
    bounds = separation_rank_bounds(width, depth, len(split.p_positions),
                                    len(split.q_positions), rho)
    assert certificate.saturated
    assert certificate.rank <= bounds.best


@settings(max_examples=5)
@given(st.integers(0, 100))
def test_rank_invariant_under_permutations_within_sides(seed):
    base = measure_rank(SeprankConfig(width=2, depth=2, tokens=5, partition="0,1,2/3,4"), seed)
    permuted = measure_rank(SeprankConfig(width=2, depth=2, tokens=5, partition="0,3,4/1,2"),
                            seed)
    assert base.rank == permuted.rank


def _weights_from_sympy(bilinear, value_output, residual, prime):
    A = np.array([[np.array(m.tolist(), dtype=np.int64) % prime for m in layer]
                  for layer in bilinear])[None]
    B = np.array([[np.array(m.tolist(), dtype=np.int64) % prime for m in layer]
                  for layer in value_output])[None]
    return LinearAttentionWeights(A, B, residual, prime, seed=0)


@pytest.mark.parametrize("width, depth, tokens, residual, seed", [
    (1, 2, 2, 0, 0), (2, 1, 2, 0, 1), (2, 2, 2, 0, 0), (2, 2, 3, 1, 2), (2, 1, 4, 1, 3),
])
def test_exact_rank_equals_sympy_coefficient_rank(width, depth, tokens, residual, seed):
    bilinear, value_output = random_integer_weights(width, depth, 1, seed)
    network = symbolic_network(bilinear, value_output, tokens, residual, width=width)
    config = SeprankConfig(width=width, depth=depth, tokens=tokens, residual=residual)
    split = config.split
    variables = np.array(network.inputs).reshape(tokens, width)
    p_vars = tuple(variables[list(split.p_positions)].ravel())
    q_vars = tuple(variables[list(split.q_positions)].ravel())
    expected = coefficient_separation_rank(network.output(0, 0), p_vars, q_vars)
    weights = _weights_from_sympy(bilinear, value_output, residual, DEFAULT_PRIME)
    got = measure_rank(config, seed, weights=weights)
    assert got.rank == expected


def test_numeric_equals_exact_at_depth_one():
    for config in (SeprankConfig(width=3, depth=1, tokens=4), SeprankConfig(width=2, depth=1,
                                                                             tokens=2)):
        assert measure_rank(config, 0, "numeric").rank == measure_rank(config, 0).rank


def test_numeric_reports_gap_and_tolerance():
    certificate = measure_rank(SeprankConfig(width=2, depth=2, tokens=2), 0, "numeric")
    assert certificate.tolerance > 0 and certificate.gap > 1e3
    assert certificate.failure_probability is None


def test_rank_history_non_decreasing_as_grids_grow():
    certificate = measure_rank(SeprankConfig(width=2, depth=3, tokens=2), 1)
    sizes, ranks = zip(*certificate.history, strict=True)
    assert list(ranks) == sorted(ranks) and list(sizes) == sorted(sizes)


def test_unsaturated_grids_are_reported_as_lower_bound():
    certificate = measure_rank(SeprankConfig(width=2, depth=3, tokens=2), 0, max_points=40)
    assert not certificate.saturated and certificate.reason == "max-points"
    assert certificate.failure_probability is None and certificate.rank == 40


def test_rank_cap_proves_equality():
    certificate = measure_rank(SeprankConfig(width=2, depth=2, tokens=2), 0, rank_cap=15)
    assert certificate.reason == "upper-bound" and certificate.failure_probability == 0.0


def test_verify_reproduces_with_second_prime_and_seed():
    verified = verify_rank(SeprankConfig(width=3, depth=2, tokens=2), seed=4)
    assert verified.agree and verified.second.prime == SECOND_PRIME
    with pytest.raises(ValueError, match="other_prime"):
        verify_rank(SeprankConfig(width=2, depth=1), other_prime=DEFAULT_PRIME)


def test_schwartz_zippel_degree_matches_theory():
    for depth in range(5):
        assert schwartz_zippel_bound(1, depth, 2**61 - 1) * (2**61 - 1) == pytest.approx(
            3**depth + weight_degree(depth))


@pytest.mark.parametrize("spec, tokens, match", [
    ("1/0,2", 3, "must lie in P"),
    ("0,1/1,2", 3, "overlap"),
    ("0,1,2/", 3, "non-empty"),
    ("0/1", 3, "cover"),
    ("0,a/1", 2, "integers"),
    ("0-1", 2, "partition must be"),
    ("balanced", 1, "tokens"),
])
def test_bad_partitions(spec, tokens, match):
    with pytest.raises(ValueError, match=match):
        make_partition(spec, tokens)


@pytest.mark.parametrize("kwargs, match", [
    (dict(width=3, depth=1, heads=2), "heads"),
    (dict(width=0, depth=1), "width"),
    (dict(width=2, depth=-1), "depth"),
    (dict(width=2, depth=1, coordinate=2), "coordinate"),
    (dict(width=2, depth=1, residual=2), "residual"),
])
def test_bad_configs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SeprankConfig(**kwargs)


def test_bad_measure_options():
    config = SeprankConfig(width=2, depth=1)
    with pytest.raises(ValueError, match="prime"):
        measure_rank(config, prime=2**31 - 3)
    with pytest.raises(ValueError, match="method"):
        measure_rank(config, method="svd")
    with pytest.raises(ValueError, match="weights must match"):
        measure_rank(config, weights=draw_linear_attention_weights(3, 1, prime=DEFAULT_PRIME))


def test_a_known_cap_ends_the_measurement_in_one_step():
    config = SeprankConfig(width=2, depth=2, tokens=4, heads=2)  # rank 17 < bound 18
    capped = measure_rank(config, 0, rank_cap=18)
    assert len(capped.history) == 1 and capped.grid_p == 18 + DEFAULT_MARGIN
    assert (capped.rank, capped.reason) == (17, "margin")
    grown = measure_rank(config, 0, rank_cap=18, max_points=20)  # cap + margin > max_points
    assert grown.history[0][0] == 16 and grown.rank == 17


@pytest.mark.parametrize("bad", [0, "two"])
def test_structured_evaluation_rejects_bad_thread_counts(bad):
    weights = draw_linear_attention_weights(2, 1, 1, 0, 1, 0, prime=DEFAULT_PRIME)
    X = np.ones((2, 1, 2), dtype=np.int64)
    with pytest.raises(ValueError, match="threads"):
        evaluate_structured(weights, make_partition("balanced", 2), X, X, 0, threads=bad)
