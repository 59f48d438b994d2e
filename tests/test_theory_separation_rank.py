import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory.separation_rank import (
    check_structural_lemma,
    homogeneous_degrees,
    output_degree,
    random_integer_weights,
    structural_degree,
    symbolic_network,
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
