import pytest
import sympy as sp

from theory.similarity import (
    check_invariant_eigenspace,
    generic_row_stochastic,
    leading_basis,
    mean_projector,
)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_invariant_eigenspace_lemma(n):
    assert check_invariant_eigenspace(n)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_helmert_basis_orthonormal_with_leading_ones(n):
    Q = leading_basis(n)
    assert (Q.T * Q).applyfunc(sp.simplify) == sp.eye(n)
    assert Q[:, 0] == sp.ones(n, 1) / sp.sqrt(n)


def test_projector_is_idempotent_and_rows_stochastic():
    Pi = mean_projector(4)
    assert Pi * Pi == Pi
    P = generic_row_stochastic(3)
    assert (P * sp.ones(3, 1)).applyfunc(sp.simplify) == sp.ones(3, 1)


def test_lemma_fails_for_non_stochastic_matrix():
    # Sanity of the check itself: a matrix without P1 = 1 breaks the form.
    from theory.similarity import invariant_eigenspace_form

    form = invariant_eigenspace_form(sp.Matrix([[1, 1], [0, 1]]))
    assert form[1, 0] != 0


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_bad_tokens(bad):
    with pytest.raises(ValueError, match="tokens"):
        mean_projector(bad)
