"""The residual connection (ρ = 1) and the separation rank (theory document §1).

With ρ = 1 the output has parts of every degree up to 3^L; its top-degree part
is the ρ = 0 network (:func:`confirm_residual_top_part`), which gives the lower
bound sep(ρ = 1) ≥ sep(ρ = 0); the staircase bound (d) of
:func:`attndepth.theory.separation_rank.separation_rank_bounds` gives the
upper side. Checked as ``levine.residual-rank``.
"""

from __future__ import annotations

import itertools

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.theory.separation_rank import (
    output_degree,
    p_side_dimension,
    q_side_dimension,
    random_integer_weights,
    structural_degree,
    symbolic_network,
)
from attndepth.validation import check_int


@proof_cache
def confirm_residual_top_part(width: int = 2, tokens: int = 3, depth: int = 2,
                              heads: int = 1, seed: int = 0) -> bool:
    """Verify that the top-degree part of the ρ = 1 network is the ρ = 0 network, exactly.

    [derived] With the same weights, the part of y^{L,i} with ρ = 1 of degree
    3^L in the inputs equals y^{L,i} with ρ = 0. Proof: T_l = ρI + T_l⁰ with
    T_l⁰ = Σ_h B_h M_l A_hᵀ; by induction M_l (ρ = 1) = M_l⁰ + (terms of lower
    degree), since M_{l+1} = T_l M_l T_lᵀ and the top-degree part of a product
    of matrix polynomials is the product of the top-degree parts whenever that
    is nonzero — and where it is zero both sides of the claim vanish in that
    degree. So G (ρ = 1) = G⁰ + (degree < K in M) and f = f⁰ + (degree < 3^L).

    Consequence (a lower bound for ρ = 1). In the coefficient matrix of f
    (ρ = 1) the blocks C_{b,a} (degree 2a in x_Q, 2b + 1 in x_P) vanish for
    a + b > K (:func:`separation_rank_bounds`, (d)). Order the column groups by
    K − a: the matrix becomes block upper triangular with the anti-diagonal
    blocks C_{K−a,a} on its diagonal, and a nonsingular square submatrix of
    each of them together forms a nonsingular submatrix of C (its determinant
    is the product of theirs). So sep(f) ≥ Σ_a rank C_{K−a,a}, and the
    anti-diagonal blocks are the top-degree part of f, i.e. f⁰'s degree blocks:
    sep(f with ρ = 1) ≥ sep(f⁰) for every weight setting, over any field.

    Returns True when every output coordinate's top-degree part equals the
    ρ = 0 output (random integer weights of ``seed``, SymPy over ZZ).
    """
    width, tokens, depth, heads = (check_int(name, value, minimum=1) for name, value in (
        ("width", width), ("tokens", tokens), ("depth", depth), ("heads", heads)))
    seed = check_int("seed", seed, minimum=0)
    if width % heads:
        raise InvalidParameter(f"heads must divide width={width}, got heads={heads}")
    bilinear, value_output = random_integer_weights(width, depth, heads, seed)
    residual = symbolic_network(bilinear, value_output, tokens, residual=1)
    plain = symbolic_network(bilinear, value_output, tokens, residual=0)
    top = output_degree(depth)
    ring = residual.ring
    for row in range(tokens):
        for column in range(width):
            full = residual.outputs[row, column].element
            part = ring({monomial: coefficient for monomial, coefficient in full.terms()
                         if sum(monomial) == top})
            if part != plain.outputs[row, column].element:
                return False
    return True


def predicted_residual_rank(config: tuple[int, ...], rank_without: int) -> int:
    """[conjecture] sep with ρ = 1, H = 1: the separation rank with ρ = 0, unchanged.

    Parameters
    ----------
    config : the network (d, L, H, N, ρ, |P|); the prediction does not depend on it.
    rank_without : the (certified) separation rank of the same network with ρ = 0.
    """
    return rank_without


def grouped_bound(width: int, depth: int, p_size: int, q_size: int) -> int:
    """min(Σ_a col(a), Σ_b row(b)): a proved but weaker bound with ρ = 1 (a wrong theory
    of the rank).

    The coefficient matrix grouped by one side only — the thresholds t = K + 1
    and t = 0 of the staircase cover in
    :func:`attndepth.theory.separation_rank.separation_rank_bounds` — as this
    project stated bound (d) with ρ = 1 before. As a prediction of the rank it
    says the lower-degree parts add rank up to it; the claim's test shows it fails.
    """
    K = structural_degree(depth)
    h_q = [q_side_dimension(a, width, q_size) for a in range(K + 1)]
    h_p = [p_side_dimension(b, width, p_size) for b in range(K + 1)]
    cumulative_q = list(itertools.accumulate(h_q))
    cumulative_p = list(itertools.accumulate(h_p))
    return min(sum(min(h_q[a], cumulative_p[K - a]) for a in range(K + 1)),
               sum(min(h_p[b], cumulative_q[K - b]) for b in range(K + 1)))
