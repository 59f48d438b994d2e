import itertools
import math

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.utilities.iterables import partitions

from attndepth.theory.separation_rank import (
    bounded_partitions,
    coefficient_separation_rank,
    confirm_structural_lemma,
    corrected_knee,
    degree_block_bounds,
    homogeneous_degrees,
    leading_log_sep,
    log_bigraded_bound,
    matching_width,
    necessary_width,
    output_degree,
    p_side_dimension,
    q_matrix_dimension,
    q_side_dimension,
    random_integer_weights,
    regime_bounds,
    regime_limits,
    schur_module_dimension,
    separation_rank_bounds,
    structural_degree,
    symbolic_network,
    symmetric_rank_hilbert,
    threshold_depth,
    weight_degree,
)


@given(st.integers(0, 30))
def test_degrees_are_consistent(depth):
    assert 2 * structural_degree(depth) + 1 == output_degree(depth)
    assert weight_degree(depth) == 4 * structural_degree(depth)


@pytest.mark.parametrize("depth", [-1, 1.5, True, "2"])
def test_bad_depth(depth):
    with pytest.raises(ValueError, match="depth"):
        output_degree(depth)


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_symbolic_network_homogeneous_without_residual(depth):
    network = symbolic_network(*random_integer_weights(2, depth, 1, 1), tokens=2, width=2)
    assert homogeneous_degrees(network.output(1, 0)) == {3**depth}


def test_symbolic_network_with_residual_has_all_odd_degrees():
    network = symbolic_network(*random_integer_weights(2, 2, 1, 1), tokens=2, residual=1)
    assert homogeneous_degrees(network.output(0, 1)) == {1, 3, 5, 7, 9}


def test_zero_polynomial_has_no_degrees():
    import sympy as sp

    assert homogeneous_degrees(sp.Poly(0, sp.Symbol("x"))) == set()


def test_symbolic_network_hand_example():
    # d = 1, one layer, A = B = 1: y^i = Σ_j x_i x_j x_j = x_i (x_0² + x_1²).
    import sympy as sp

    network = symbolic_network([[sp.Matrix([[1]])]], [[sp.Matrix([[1]])]], tokens=2)
    x0, x1 = network.inputs
    assert network.output(0, 0).as_expr() == sp.expand(x0 * (x0**2 + x1**2))


@pytest.mark.parametrize("width, tokens, depth, heads, rho",
                         [(2, 3, 1, 1, 0), (2, 3, 2, 1, 1), (2, 2, 2, 2, 0), (3, 2, 1, 3, 1)])
def test_structural_lemma_exact(width, tokens, depth, heads, rho):
    assert confirm_structural_lemma(width, tokens, depth, heads, rho, seed=3)


# ---- dimension counts and bounds


def test_schur_dimensions_hand_values():
    assert schur_module_dimension((2, 1), 3) == 8  # adjoint of SL_3 plus trace-free part
    assert schur_module_dimension((1, 1), 4) == 6  # Λ² ℂ⁴
    assert schur_module_dimension((3,), 2) == 4  # Sym³ ℂ²
    assert schur_module_dimension((), 5) == 1
    with pytest.raises(ValueError, match="decreasing"):
        schur_module_dimension((1, 2), 3)


def _hook_content_dimension(parts: tuple[int, ...], n: int) -> int:
    """dim S_λ(ℂ^n) by the hook-content formula (Stanley, EC2, Cor. 7.21.4): the oracle."""
    conjugate = [sum(1 for p in parts if p > j) for j in range(parts[0])] if parts else []
    numerator, denominator = 1, 1
    for i, row in enumerate(parts):
        for j in range(row):
            numerator *= n + j - i
            denominator *= (row - j - 1) + (conjugate[j] - i - 1) + 1
    return numerator // denominator


def test_bounded_partitions_match_sympy():
    for size in range(0, 13):
        for parts in range(0, 6):
            ours = list(bounded_partitions(size, parts))
            theirs = [tuple(sorted((p for p, c in m.items() for _ in range(c)), reverse=True))
                      for m in partitions(size, m=parts)] if parts or not size else []
            assert len(ours) == len(set(ours)) and set(ours) == set(theirs)


def test_p_side_count_equals_filtered_partition_sum():
    # the count's definition: Σ dim S_μ over μ ⊢ 2b + 1, one odd part, ℓ(μ) ≤ min(m, d)
    for width in (1, 2, 3, 4, 5):
        for p_size in range(1, width + 2):
            for degree in range(0, 7):
                expected = 0
                for m in partitions(2 * degree + 1, m=min(p_size, width)):
                    parts = tuple(sorted((p for p, c in m.items() for _ in range(c)),
                                         reverse=True))
                    if sum(part % 2 for part in parts) == 1:
                        expected += _hook_content_dimension(parts, width)
                assert p_side_dimension(degree, width, p_size) == expected


def test_weyl_dimension_equals_hook_content():
    for size in range(0, 11):
        for multiplicities in partitions(size):
            parts = tuple(sorted((p for p, c in multiplicities.items() for _ in range(c)),
                                 reverse=True))
            for n in range(1, 7):
                assert schur_module_dimension(parts, n) == _hook_content_dimension(parts, n)


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_plethysm_sum_equals_monomial_count(width):
    # Σ_{λ ⊢ a, ℓ(λ) ≤ d} dim S_{2λ}(ℂ^d) = C(d(d+1)/2 + a − 1, a).
    for degree in range(1, 7):
        total = sum(
            schur_module_dimension(
                tuple(sorted((2 * p for p, c in m.items() for _ in range(c)), reverse=True)),
                width)
            for m in partitions(degree, m=width))
        assert total == math.comb(width * (width + 1) // 2 + degree - 1, degree)


def test_rank_one_hilbert_is_even_monomials():
    for width in (2, 3, 5):
        for degree in range(5):
            assert symmetric_rank_hilbert(degree, width, 1) == math.comb(width + 2 * degree - 1,
                                                                         2 * degree)


def test_p_side_single_position_counts_odd_monomials():
    assert p_side_dimension(3, 2, 1) == math.comb(2 + 6, 7)


#: (d, L, |P|, |Q|, ρ) -> certified exact rank, each regenerated by the command beside it
#: (balanced partition, seed 0; the rank meets the bound, reason "upper-bound"). The four
#: small ones are measured again in tests/test_rank_grids.py.
MEASURED_RANKS = [
    ((2, 1, 1, 1, 0), 3),     # attndepth seprank --width 2 --depth 1 --tokens 2
    ((2, 2, 1, 1, 0), 15),    # attndepth seprank --width 2 --depth 2 --tokens 2
    ((2, 3, 1, 1, 0), 105),   # attndepth seprank --width 2 --depth 3 --tokens 2
    ((3, 2, 1, 1, 0), 35),    # attndepth seprank --width 3 --depth 2 --tokens 2
    ((2, 2, 2, 2, 0), 18),    # attndepth seprank --width 2 --depth 2 --tokens 4
    ((3, 3, 3, 3, 0), 3102),  # attndepth seprank --width 3 --depth 3 --tokens 6  (~30 s)
]


@pytest.mark.parametrize("config, rank", MEASURED_RANKS)
def test_bigraded_bound_hand_checked_values(config, rank):
    assert separation_rank_bounds(*config).bigraded == rank


def test_bounds_ordering_and_residual():
    bounds = separation_rank_bounds(3, 2, 2, 2, 0)
    assert bounds.best == bounds.bigraded <= min(bounds.q_side, bounds.p_side) <= bounds.monomials
    # ρ = 1: degrees mix; the staircase cover gives the ρ = 0 value (the grouped bound was 20)
    assert separation_rank_bounds(2, 2, 2, 2, 1).bigraded == 18


@pytest.mark.parametrize("width, depth", [(2, 2), (3, 3), (2, 4), (4, 2)])
def test_log_bound_agrees_with_exact_integers(width, depth):
    exact = separation_rank_bounds(width, depth, width, width).bigraded
    assert log_bigraded_bound(width, depth) == pytest.approx(math.log(exact), rel=1e-12)
    single = separation_rank_bounds(width, depth, 1, 1).bigraded
    assert log_bigraded_bound(width, depth, side=1) == pytest.approx(math.log(single), rel=1e-12)


def test_log_bound_rejects_partition_sizes_needing_partitions():
    with pytest.raises(ValueError, match="side"):
        log_bigraded_bound(4, 2, side=2)


def test_coefficient_rank_hand_example():
    x, y, u, v = sp.symbols("x y u v")
    poly = sp.Poly(x * u + y * v + x * y * u * v, x, y, u, v)
    assert coefficient_separation_rank(poly, (x, y), (u, v)) == 3
    poly = sp.Poly((x + y) * (u + v), x, y, u, v)
    assert coefficient_separation_rank(poly, (x, y), (u, v)) == 1
    with pytest.raises(ValueError, match="partition"):
        coefficient_separation_rank(poly, (x,), (u, v))


@pytest.mark.slow
def test_regime_limits():
    limits = regime_limits(depths=(1, 2))
    assert limits.above_ratio == 1
    assert limits.below_ratio[1] == 4 and limits.below_ratio[2] == sp.Rational(13, 4)
    L, d = sp.symbols("L d", positive=True)
    assert sp.limit(limits.below_scale, L, sp.oo) == sp.Rational(1, 2)
    assert sp.simplify(limits.above_scale - sp.log(3) * (d + 1) / (2 * d)) == 0
    assert leading_log_sep().free_symbols == {L, d}


def test_depth_efficiency_doubly_exponential_below_threshold():
    below = matching_width(3, 27, 2)  # one layer less, below the knee
    above = matching_width(8, 27, 7)  # one layer less, far above it
    assert below > 100 * 27 and above < 2 * 27


def test_threshold_depth():
    assert threshold_depth(81) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="width"):
        threshold_depth(0)


@pytest.mark.parametrize("width, depth, p_size, q_size, total, blocks, largest", [
    (2, 5, 2, 2, 109_024, 122, 2_628),  # the sizes quoted for the block method
    (4, 3, 4, 4, 31_460, 14, 11_440),
    (3, 4, 1, 1, 12_341, 41, 861),
])
def test_degree_blocks_sum_to_the_bigraded_bound(width, depth, p_size, q_size, total, blocks,
                                                  largest):
    parts = degree_block_bounds(width, depth, p_size, q_size)
    assert [part.degree for part in parts] == list(range(blocks))
    assert sum(part.bound for part in parts) == total == \
        separation_rank_bounds(width, depth, p_size, q_size).bigraded
    assert max(part.bound for part in parts) == largest
    assert all(part.bound == min(part.q_side, part.p_side) for part in parts)


def test_degree_blocks_refuse_bad_sizes():
    with pytest.raises(ValueError, match="p_size"):
        degree_block_bounds(2, 2, 0, 1)
    with pytest.raises(ValueError, match="depth"):
        degree_block_bounds(2, 9, 1, 1)


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5])
def test_p_side_count_is_below_the_spanning_counts_and_closed_at_the_ends(width):
    for p_size in range(1, width + 3):
        for degree in range(6):
            count = p_side_dimension(degree, width, p_size)
            assert count <= width * symmetric_rank_hilbert(degree, width, p_size)
            assert count <= math.comb(p_size * width + 2 * degree, 2 * degree + 1)
            if p_size == 1:  # every monomial of degree 2b + 1 in x^i
                assert count == math.comb(width + 2 * degree, 2 * degree + 1)
            if p_size >= width:
                assert count == width * symmetric_rank_hilbert(degree, width, width)


def test_p_side_count_lowers_the_example_of_the_issue():
    """d = 3, L = 3, P = {0, 1}, Q = {2}: bound (d) was 964 with the spanning counts."""
    assert p_side_dimension(4, 3, 2) == 315 < 360
    assert separation_rank_bounds(3, 3, 2, 1).bigraded == 946


def test_necessary_width_is_the_first_width_whose_bound_reaches_the_rank():
    for rank, depth in [(35, 1), (560, 2), (12341, 3)]:
        width = necessary_width(rank, depth, 1)
        assert separation_rank_bounds(width, depth, 1, 1).best >= rank
        assert width == 1 or separation_rank_bounds(width - 1, depth, 1, 1).best < rank


def test_q_matrix_dimension_and_the_corrected_knee():
    assert [q_matrix_dimension(4, q) for q in (1, 2, 3, 4, 9)] == [4, 7, 9, 10, 10]
    assert corrected_knee(4, 4) == pytest.approx(math.log(21, 3))
    upper, blocks = regime_bounds(4, 4)
    assert upper(3) == 31460 and sum(blocks(3)) == 31460


def test_residual_staircase_bound_equals_the_plain_bound_and_beats_one_sided_groupings():
    """Bound (d) with ρ = 1 (minimum over staircase covers) equals the ρ = 0 bound on every
    size d ≤ 4, L ≤ 3, |P|, |Q| ≤ 5; the one-sided groupings gave 290 and 36,920."""
    for width, depth, p_size, q_size in itertools.product(range(1, 5), range(1, 4),
                                                           range(1, 6), range(1, 6)):
        assert (separation_rank_bounds(width, depth, p_size, q_size, 1).bigraded
                == separation_rank_bounds(width, depth, p_size, q_size, 0).bigraded)
    assert separation_rank_bounds(2, 3, 2, 2, 1).bigraded == 232
    assert separation_rank_bounds(4, 3, 4, 4, 1).bigraded == 31460


@pytest.mark.parametrize("sizes", [(8, 5, 9, 8), (4096, 8, 4096, 4096), (8, 6, 4, 4)])
def test_exact_bounds_beyond_minutes_of_work_are_refused_at_once(sizes):
    import time

    from attndepth.theory.separation_rank import exact_bound_work

    start = time.perf_counter()
    with pytest.raises(ValueError, match="use log_bigraded_bound"):
        separation_rank_bounds(*sizes)
    assert exact_bound_work(*sizes) == math.inf
    assert time.perf_counter() - start < 10  # the estimate itself stops early


def test_the_work_estimate_counts_the_partitions_it_sums_over():
    from attndepth.theory.separation_rank import bounded_partitions, exact_bound_work

    width, depth, p_size, q_size = 4, 2, 2, 2  # K = 4
    partitions = sum(1 for a in range(5) for _ in bounded_partitions(a, 2))
    assert exact_bound_work(width, depth, p_size, q_size) == partitions * (2 + 4) * width


@given(st.integers(0, 12), st.integers(1, 6), st.integers(1, 7))
@settings(max_examples=60, deadline=None)
def test_the_side_counts_equal_their_sums_of_schur_dimensions(degree, width, size):
    """The counts' unchecked Weyl products against the checked public formula."""
    from attndepth.theory.separation_rank import bounded_partitions, schur_module_dimension

    rank_side = sum(schur_module_dimension(tuple(2 * p for p in parts), width)
                    for parts in bounded_partitions(degree, size)) if size < width else None
    if rank_side is not None and degree:
        assert q_side_dimension(degree, width, size) == rank_side
    rows = min(size, width)
    p_side = 0
    for half in bounded_partitions(degree, rows):
        padded = half + (0,) * (rows - len(half))
        p_side += sum(schur_module_dimension(tuple(2 * part + (k == r)
                                                   for k, part in enumerate(padded)), width)
                      for r in range(rows) if r == 0 or padded[r] < padded[r - 1])
    assert p_side_dimension(degree, width, size) == p_side


def test_a_wrong_structural_form_fails_the_lemma(monkeypatch):
    """The lemma's identity can fail: G built from 2M in place of M does not give Y^L."""
    import attndepth.theory.separation_rank as module

    right = module.structural_form
    monkeypatch.setattr(module, "structural_form", lambda bilinear, value_output, M, residual=0:
                        right(bilinear, value_output, M * M.domain(2), residual))
    for residual in (0, 1):
        assert not module.confirm_structural_lemma.__wrapped__(2, 3, 2, 1, residual, 0)
