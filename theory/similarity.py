"""Token similarity under self-attention (Yu & Zhang 2023, THEORY §3).

Notation: n tokens as the rows of X (n × d); P row-stochastic (P1 = 1);
Π = 11ᵀ/n; t_sim(X) = ‖ΠX‖_F²/‖X‖_F², t_div = 1 − t_sim.
"""

from __future__ import annotations

import sympy as sp


def _check_tokens(tokens: object) -> int:
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise ValueError(f"tokens must be an integer >= 1, got {tokens!r}")
    return tokens


def mean_projector(tokens: int) -> sp.Matrix:
    """Π = 11ᵀ/n (n × n): orthogonal projector onto span{1}."""
    n = _check_tokens(tokens)
    return sp.ones(n, n) / n


def leading_basis(tokens: int) -> sp.Matrix:
    """Orthonormal Q = [1/√n, U] (n × n): the Helmert basis.

    Column 0 is 1/√n; column k ≥ 1 is (1, …, 1, −k, 0, …)/√(k(k+1)) with k
    ones, orthogonal to 1 and to each other.
    """
    n = _check_tokens(tokens)
    columns = [sp.ones(n, 1) / sp.sqrt(n)]
    for k in range(1, n):
        column = sp.zeros(n, 1)
        for row in range(k):
            column[row] = 1
        column[k] = -k
        columns.append(column / sp.sqrt(k * (k + 1)))
    return sp.Matrix.hstack(*columns)


def generic_row_stochastic(tokens: int, name: str = "p") -> sp.Matrix:
    """A row-stochastic n × n matrix with generic symbolic entries.

    Entry (i, j) for j < n−1 is a free symbol p_ij; the last entry of each row
    is 1 − (the others), so P1 = 1 holds identically.
    """
    n = _check_tokens(tokens)
    P = sp.zeros(n, n)
    for i in range(n):
        free = sp.symbols(f"{name}_{i}_0:{n - 1}") if n > 1 else ()
        for j, symbol in enumerate(free):
            P[i, j] = symbol
        P[i, n - 1] = 1 - sum(free)
    return P


def invariant_eigenspace_form(P: sp.Matrix) -> sp.Matrix:
    """QᵀPQ in the basis Q = [1/√n, U], simplified.

    Lemma (Yu & Zhang 2023; THEORY §3). If P1 = 1 then PQe₁ = Qe₁, so the
    first column of QᵀPQ is e₁: QᵀPQ = [[1, *], [0, UᵀPU]] is block upper
    triangular, and (I − Π)PX = (I − Π)P(I − Π)X (the diversity part evolves
    by the compressed matrix UᵀPU alone).
    """
    Q = leading_basis(P.shape[0])
    return (Q.T * P * Q).applyfunc(sp.simplify)


def check_invariant_eigenspace(tokens: int) -> bool:
    """Prove the lemma for generic row-stochastic P of size n, symbolically.

    Returns True when the first column of QᵀPQ is exactly e₁ and
    (I−Π)P − (I−Π)P(I−Π) vanishes identically.
    """
    P = generic_row_stochastic(tokens)
    n = P.shape[0]
    form = invariant_eigenspace_form(P)
    first_column_is_e1 = all(sp.simplify(form[i, 0] - (1 if i == 0 else 0)) == 0 for i in range(n))
    centre = sp.eye(n) - mean_projector(n)
    compressed = (centre * P - centre * P * centre).applyfunc(sp.simplify)
    return first_column_is_e1 and compressed == sp.zeros(n, n)
