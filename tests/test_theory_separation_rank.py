import math

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from sympy.utilities.iterables import partitions

from attndepth.theory.separation_rank import (
    check_structural_lemma,
    coefficient_separation_rank,
    homogeneous_degrees,
    leading_log_sep,
    log_bigraded_bound,
    matching_width,
    output_degree,
    p_side_dimension,
    random_integer_weights,
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
    assert check_structural_lemma(width, tokens, depth, heads, rho, seed=3)


# ---- dimension counts and bounds



def test_schur_dimensions_hand_values():
    assert schur_module_dimension((2, 1), 3) == 8  # adjoint of SL_3 plus trace-free part
    assert schur_module_dimension((1, 1), 4) == 6  # Λ² ℂ⁴
    assert schur_module_dimension((3,), 2) == 4  # Sym³ ℂ²
    assert schur_module_dimension((), 5) == 1
    with pytest.raises(ValueError, match="decreasing"):
        schur_module_dimension((1, 2), 3)


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


@pytest.mark.parametrize("config, rank", [
    # (d, L, |P|, |Q|, ρ) -> certified exact rank measured by simulations.seprank
    ((2, 1, 1, 1, 0), 3), ((2, 2, 1, 1, 0), 15), ((2, 3, 1, 1, 0), 105),
    ((3, 2, 1, 1, 0), 35), ((2, 2, 2, 2, 0), 18), ((3, 3, 3, 3, 0), 3102),
])
def test_bigraded_bound_hand_checked_values(config, rank):
    assert separation_rank_bounds(*config).bigraded == rank


def test_bounds_ordering_and_residual():
    bounds = separation_rank_bounds(3, 2, 2, 2, 0)
    assert bounds.best == bounds.bigraded <= min(bounds.q_side, bounds.p_side) <= bounds.monomials
    assert separation_rank_bounds(2, 2, 2, 2, 1).bigraded == 20  # ρ = 1: degrees mix


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
