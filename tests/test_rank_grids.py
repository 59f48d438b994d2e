import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attndepth.rank.arithmetic.modular import DEFAULT_PRIME, SECOND_PRIME
from attndepth.rank.grids import (
    DEFAULT_MARGIN,
    SeparationRankConfig,
    certified_rank,
    rank_from_grids,
    schwartz_zippel_bound,
    verify_rank,
)
from attndepth.rank.network import (
    LinearAttentionWeights,
    draw_linear_attention_weights,
)
from attndepth.simulations.testing import linear_attention_cases
from attndepth.theory.separation_rank import (
    coefficient_separation_rank,
    random_integer_weights,
    separation_rank_bounds,
    symbolic_network,
    weight_degree,
)
from tests.test_theory_separation_rank import MEASURED_RANKS

tiny = linear_attention_cases()  # (width, depth, tokens, residual, seed)


@settings(max_examples=10)
@given(tiny)
def test_exact_rank_at_most_every_bound(case):
    width, depth, tokens, rho, seed = case
    config = SeparationRankConfig(width=width, depth=depth, tokens=tokens, residual=rho)
    certificate = rank_from_grids(config, seed)
    split = config.split
    bounds = separation_rank_bounds(width, depth, len(split.p_positions),
                                    len(split.q_positions), rho)
    assert certificate.saturated
    assert certificate.rank <= bounds.best


@settings(max_examples=5)
@given(st.integers(0, 100))
def test_rank_invariant_under_permutations_within_sides(seed):
    base, permuted = (
        rank_from_grids(SeparationRankConfig(width=2, depth=2, tokens=5, partition=split), seed)
        for split in ("0,1,2/3,4", "0,3,4/1,2"))
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
    config = SeparationRankConfig(width=width, depth=depth, tokens=tokens, residual=residual)
    split = config.split
    variables = np.array(network.inputs).reshape(tokens, width)
    p_vars = tuple(variables[list(split.p_positions)].ravel())
    q_vars = tuple(variables[list(split.q_positions)].ravel())
    expected = coefficient_separation_rank(network.output(0, 0), p_vars, q_vars)
    weights = _weights_from_sympy(bilinear, value_output, residual, DEFAULT_PRIME)
    got = rank_from_grids(config, seed, weights=weights)
    assert got.rank == expected


def test_numeric_equals_exact_at_depth_one():
    for config in (SeparationRankConfig(width=3, depth=1, tokens=4),
                   SeparationRankConfig(width=2, depth=1, tokens=2)):
        assert rank_from_grids(config, 0, "numeric").rank == rank_from_grids(config, 0).rank


def test_numeric_reports_gap_and_tolerance():
    certificate = rank_from_grids(SeparationRankConfig(width=2, depth=2, tokens=2), 0, "numeric")
    assert certificate.tolerance > 0 and certificate.gap > 1e3
    assert certificate.failure_probability is None


def test_rank_history_non_decreasing_as_grids_grow():
    certificate = rank_from_grids(SeparationRankConfig(width=2, depth=3, tokens=2), 1)
    sizes, ranks = zip(*certificate.history, strict=True)
    assert list(ranks) == sorted(ranks) and list(sizes) == sorted(sizes)


def test_unsaturated_grids_are_reported_as_lower_bound():
    config = SeparationRankConfig(width=2, depth=3, tokens=2)
    certificate = rank_from_grids(config, 0, max_points=40)
    assert not certificate.saturated and certificate.reason == "max-points"
    assert certificate.failure_probability is None and certificate.rank == 40


def test_rank_cap_proves_equality():
    certificate = rank_from_grids(SeparationRankConfig(width=2, depth=2, tokens=2), 0, rank_cap=15)
    assert certificate.reason == "upper-bound" and certificate.failure_probability == 0.0


def test_verify_reproduces_with_second_prime_and_seed():
    verified = verify_rank(SeparationRankConfig(width=3, depth=2, tokens=2), seed=4)
    assert verified.agree and verified.second.prime == SECOND_PRIME
    with pytest.raises(ValueError, match="other_prime"):
        verify_rank(SeparationRankConfig(width=2, depth=1), other_prime=DEFAULT_PRIME)


def test_schwartz_zippel_degree_matches_theory():
    for depth in range(5):
        assert schwartz_zippel_bound(1, depth, 2**61 - 1) * (2**61 - 1) == pytest.approx(
            3**depth + weight_degree(depth))


@pytest.mark.parametrize("kwargs, match", [
    (dict(width=3, depth=1, heads=2), "heads"),
    (dict(width=0, depth=1), "width"),
    (dict(width=2, depth=-1), "depth"),
    (dict(width=2, depth=1, coordinate=2), "coordinate"),
    (dict(width=2, depth=1, residual=2), "residual"),
])
def test_bad_configs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SeparationRankConfig(**kwargs)


def test_bad_measure_options():
    config = SeparationRankConfig(width=2, depth=1)
    with pytest.raises(ValueError, match="prime"):
        rank_from_grids(config, prime=2**31 - 3)
    with pytest.raises(ValueError, match="method"):
        rank_from_grids(config, method="svd")
    with pytest.raises(ValueError, match="weights must match"):
        rank_from_grids(config, weights=draw_linear_attention_weights(3, 1, prime=DEFAULT_PRIME))


def test_a_known_cap_ends_the_measurement_in_one_step():
    config = SeparationRankConfig(width=2, depth=2, tokens=4, heads=2)  # rank 17 < bound 18
    capped = rank_from_grids(config, 0, rank_cap=18)
    assert len(capped.history) == 1 and capped.grid_p == 18 + DEFAULT_MARGIN
    assert (capped.rank, capped.reason) == (17, "margin")
    grown = rank_from_grids(config, 0, rank_cap=18, max_points=20)  # cap + margin > max_points
    assert grown.history[0][0] == 16 and grown.rank == 17


@pytest.mark.parametrize("config, rank", [c for c in MEASURED_RANKS if c[1] < 1000])
def test_recorded_ranks_are_what_the_measurement_gives(config, rank):
    # The ranks tests/test_theory_separation_rank.py compares with the bound, measured again.
    width, depth, p_size, q_size, residual = config
    measured = certified_rank(SeparationRankConfig(width=width, depth=depth, tokens=p_size + q_size,
                                                   residual=residual), 0, rank)
    assert (measured.rank, measured.reason) == (rank, "upper-bound")


@settings(max_examples=5)
@given(st.integers(40, 400))
@example(183)  # its points underflowed to 0 (a silent rank 0) before underflow was caught
def test_numeric_overflow_is_one_error_naming_the_depth(depth):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning may escape on the way
        with pytest.raises(ValueError, match=f"overflowed float64 at depth {depth}"):
            rank_from_grids(SeparationRankConfig(width=2, depth=depth), 0, "numeric", max_points=32)
