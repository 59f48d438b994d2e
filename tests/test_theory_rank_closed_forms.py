import math

import pytest
import sympy as sp

from attndepth.theory.rank_closed_forms import (
    depth_one_separation_rank,
    depth_one_witness_rank,
    gram_witness,
    gram_witness_rank,
    knee_offset_limit,
    single_position_bound,
    single_position_knee,
    single_position_polynomial,
)
from attndepth.theory.separation_rank import separation_rank_bounds, structural_degree


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("p_size, q_size", [(1, 1), (2, 1), (1, 3), (3, 2)])
@pytest.mark.parametrize("residual", [0, 1])
def test_depth_one_witness_meets_the_bound(width, p_size, q_size, residual):
    """The witness A = B = I has sep = d + 1 exactly, which is bound (d): proved."""
    rank = depth_one_witness_rank(width, p_size, q_size, residual)
    assert rank == depth_one_separation_rank(width) == \
        separation_rank_bounds(width, 1, p_size, q_size, residual).best


def test_a_degenerate_witness_falls_short():
    """The closed form is about generic weights: A = B = e_0 e_0ᵀ (rank one) gives 2."""
    from attndepth.theory.separation_rank import coefficient_separation_rank, symbolic_network

    corner = sp.zeros(3, 3)
    corner[0, 0] = 1
    network = symbolic_network([[corner]], [[corner]], 2)
    poly = sp.Poly(network.outputs[0, 0].element.as_expr(), *network.inputs)
    assert coefficient_separation_rank(poly, network.inputs[:3], network.inputs[3:]) == 2


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_single_position_bound_equals_the_integer_bound(depth):
    for width in range(1, 13):
        assert single_position_bound(width, depth) == \
            separation_rank_bounds(width, depth, 1, 1, 0).bigraded


def test_the_two_sums_of_the_proof_are_the_binomial():
    """Block by block (crossing at ⌊K/2⌋) the bound counts each degree 0 … K once;
    splitting one term later gives a larger, wrong value."""
    width, depth = 6, 3
    K = structural_degree(depth)

    def split_at(crossing):
        return (sum(math.comb(2 * a + width - 1, width - 1) for a in range(crossing + 1))
                + sum(math.comb(2 * b + width, width - 1) for b in range(K - crossing)))

    assert split_at(K // 2) == single_position_bound(width, depth) == math.comb(19, 6) == 27132
    assert split_at(K // 2 + 1) > 27132


@pytest.mark.parametrize("depth, degree", [(1, 1), (2, 4), (3, 13)])
def test_single_position_polynomial(depth, degree):
    d = sp.Symbol("d", positive=True, integer=True)
    polynomial = single_position_polynomial(depth)
    assert sp.degree(polynomial, d) == degree
    assert all(polynomial.subs(d, k) == single_position_bound(k, depth) for k in range(1, 12))
    assert single_position_polynomial(1) == d + 1


def test_single_position_knee_matches_the_decided_knees_and_leaves_the_corrected_law():
    """d = 2, 3, 4, 6, 9: knee 2, as levine.threshold decides from certified ranks; at
    d = 41 the curve's knee is 3 while log₃(2d + 1) = 4.02 (more than one layer)."""
    assert [single_position_knee(d) for d in (2, 3, 4, 6, 9)] == [2] * 5
    assert single_position_knee(41) == 3
    assert math.log(2 * 41 + 1, 3) - 3 > 1
    assert [single_position_knee(3**m) for m in (3, 4, 5, 6, 9)] == [3, 4, 5, 6, 8]
    assert [single_position_knee(d) for d in (10, 54, 55, 212, 213)] == [3, 3, 4, 4, 5]


def test_the_knee_offset_limit():
    c, offset = knee_offset_limit()
    g = lambda x: (1 + x) * math.log(1 + x) - x * math.log(x)  # noqa: E731
    assert abs(g(3 * c) - 2 * g(c)) < 1e-12
    assert offset == pytest.approx(-1.0202, abs=1e-4)


def test_bad_input():
    with pytest.raises(ValueError, match="width"):
        single_position_bound(0, 2)
    with pytest.raises(ValueError, match="depth must be an integer >= 1, got 2.5"):
        single_position_bound(2, 2.5)
    assert single_position_bound(2, 2.0) == single_position_bound(2, 2)  # an integral float
    with pytest.raises(ValueError, match="<= 30"):
        single_position_bound(2, 31)
    with pytest.raises(ValueError, match="10\\^6"):
        single_position_knee(10**6 + 1)
    with pytest.raises(ValueError, match="<= 3"):
        single_position_polynomial(4)
    with pytest.raises(ValueError, match="p_size"):
        depth_one_witness_rank(2, 0)
    with pytest.raises(ValueError, match="residual"):
        depth_one_witness_rank(2, 1, 1, 2)


@pytest.mark.parametrize("width, depth", [(2, 2), (3, 2), (4, 2),
                                          pytest.param(2, 3, marks=pytest.mark.slow)])
def test_the_identity_weights_reach_the_closed_form(width, depth):
    """A witness at the bound: the generic rank is C(K + d, d) here, proved over ℚ."""
    assert gram_witness_rank(width, depth) == single_position_bound(width, depth)


def test_the_gram_form_is_the_network_at_identity_weights():
    from attndepth.theory.separation_rank import symbolic_network

    identity = sp.eye(2)
    network = symbolic_network([[identity]] * 2, [[identity]] * 2, 2)
    poly, x, y = gram_witness(2, 2)
    direct = sp.Poly(network.outputs[0, 0].element.as_expr(), *network.inputs)
    renamed = poly.as_expr().subs(dict(zip(x + y, network.inputs, strict=True)))
    assert sp.expand(direct.as_expr() - renamed) == 0
