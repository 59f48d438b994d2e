"""Closed forms of separation ranks and bounds (theory document §1, "Closed forms").

What is proved here, for the network of Levine et al. 2020 (§3) with one head:

* depth 1: sep = d + 1 for every width d and every partition, with or
  without the residual (:func:`depth_one_separation_rank`);
* one position on each side (|P| = |Q| = 1): bound (d) = C(K + d, d), the
  number of monomials of degree ≤ K = (3^L − 1)/2 in d variables
  (:func:`single_position_bound`), and the knee of that curve for any d
  (:func:`single_position_knee`) with its limit law (:func:`knee_offset_limit`);
  the weights A = B = I reach it at small sizes (:func:`gram_witness_rank`),
  which proves the rank there over ℚ, independently of any prime.

That the rank with |P| = |Q| = 1 equals C(K + d, d) for every d and L is
proved in :mod:`attndepth.theory.single_position_rank` (the Gram witness reaches
the bound block by block), so the one-position knee of
:func:`single_position_knee` is the knee of the rank itself at every width.
"""

from __future__ import annotations

import functools
import math

import sympy as sp

from attndepth.errors import InvalidParameter
from attndepth.theory.separation_rank import (
    coefficient_separation_rank,
    structural_degree,
    symbolic_network,
)
from attndepth.validation import check_int


def _positive(name: str, value: object) -> int:
    return check_int(name, value, minimum=1)


def depth_one_separation_rank(width: int) -> int:
    """sep of f = y^{1,i}_p at depth 1, one head: d + 1, for every |P|, |Q| ≥ 1 and ρ.

    Proof. With ρ = 0, f = e_pᵀ B (M_P + M_Q) Aᵀ x^i = f_0 + f_1 with
    f_0 = e_pᵀ B M_P Aᵀ x^i (degree 0 in x_Q) and f_1 = e_pᵀ B M_Q Aᵀ x^i.
    Upper bound: f_0 has rank ≤ 1 (a function of x_P alone) and
    f_1 = Σ_c x^i_c g_c(x_Q) with g_c = (bᵀ M_Q Aᵀ)_c, b = Bᵀe_p, so rank ≤ d:
    sep ≤ d + 1 (it is also bound (d): h_Q(0) = 1 and h_P(0) = d). Lower bound,
    witness A = B = I: f_0 = Σ_{j∈P} x^j_p ⟨x^j, x^i⟩ ≠ 0, and the d functions
    g_c(x_Q) = Σ_{j∈Q} x^j_p x^j_c are linearly independent (set all but one Q position to zero:
    the monomials y_p y_c are distinct). f_0 and f_1 lie in different degrees
    of x_Q, so their coefficient matrices occupy disjoint columns and the
    ranks add: sep = 1 + d at the witness, hence generically (the generic
    rank is the maximum over weights). With ρ = 1, sep(ρ = 1) ≥ sep(ρ = 0)
    (:func:`attndepth.theory.residual_rank.confirm_residual_top_part`) and bound
    (d) is the same, so again d + 1. Checked exactly at the witness by
    :func:`depth_one_witness_rank`.
    """
    return _positive("width", width) + 1


def depth_one_witness_rank(width: int, p_size: int = 1, q_size: int = 1,
                           residual: int = 0) -> int:
    """sep of the witness network A = B = I at depth 1, from its coefficient matrix (SymPy).

    Positions 0 … |P| − 1 form P (output position i = 0, coordinate 0), the
    next |Q| form Q. Equal to :func:`depth_one_separation_rank` by its proof.
    """
    width, p_size, q_size = (_positive(name, value) for name, value in
                             (("width", width), ("p_size", p_size), ("q_size", q_size)))
    if residual not in (0, 1) or isinstance(residual, bool):
        raise InvalidParameter(f"residual must be 0 or 1, got {residual!r}")
    identity = sp.eye(width)
    network = symbolic_network([[identity]], [[identity]], p_size + q_size, residual)
    poly = sp.Poly(network.outputs[0, 0].element.as_expr(), *network.inputs)
    split = p_size * width
    return coefficient_separation_rank(poly, network.inputs[:split], network.inputs[split:])


def single_position_bound(width: int, depth: int) -> int:
    """Bound (d) for |P| = |Q| = 1 in closed form: C(K + d, d), K = (3^L − 1)/2.

    The number of monomials of degree ≤ K in d variables (one head; ρ = 0 or 1).

    Proof. With one Q position, M_Q = yyᵀ and a polynomial of degree a in
    M_Q is an even polynomial of degree 2a in y; every monomial of degree 2a
    arises, so h_Q(a) = C(2a + d − 1, d − 1), the monomials of degree 2a. With
    one P position, ν(xxᵀ)·x_c spans every monomial of degree 2b + 1 in x, so
    h_P(b) = C(2b + d, d − 1), the monomials of degree 2b + 1. Bound (d) is
    Σ_a min(h_Q(a), h_P(K − a)). For d ≥ 2 the count of monomials of degree m
    increases with m, so the minimum is h_Q(a) exactly when 2a ≤ 2(K − a) + 1,
    i.e. a ≤ a* = ⌊K/2⌋ (4a ≤ 2K + 1). The sum therefore counts the monomials of
    every even degree 0, 2, …, 2a* and every odd degree 1, 3, …, 2(K − a*) − 1;
    as 2a* and 2(K − a*) − 1 are K and K − 1 in some order, that is every degree
    0 … K once, and Σ_{m≤K} C(m + d − 1, d − 1) = C(K + d, d) (hockey stick).
    For d = 1 every term is 1 and both sides are K + 1. With ρ = 1 bound (d) is
    the same (``levine.residual-rank``). Equal to
    :func:`attndepth.theory.separation_rank.separation_rank_bounds` on every
    size computed (tested: d ≤ 12, L ≤ 5).

    It is the rank for every d and L
    (:func:`attndepth.theory.single_position_rank.single_position_rank`, proved).
    """
    width = _positive("width", width)
    depth = _positive("depth", depth)
    if depth > MAX_DEPTH:
        raise InvalidParameter(f"depth must be <= {MAX_DEPTH}, got {depth}")
    return math.comb(structural_degree(depth) + width, width)


#: Largest depth of the closed forms (K = (3^L − 1)/2 stays below 10^14).
MAX_DEPTH = 30


def single_position_polynomial(depth: int) -> sp.Expr:
    """:func:`single_position_bound` at fixed depth as a polynomial in d (SymPy).

    C(K + d, K) = (d + 1)(d + 2)…(d + K)/K!, of degree K in d: d + 1 at L = 1,
    (d + 1)…(d + 4)/24 at L = 2, degree 13 at L = 3.
    """
    depth = _positive("depth", depth)
    if depth > 3:
        raise InvalidParameter(f"depth must be <= 3 for the symbolic form, got {depth}")
    d = sp.Symbol("d", positive=True, integer=True)
    K = structural_degree(depth)
    return sp.expand(sp.prod([d + j for j in range(1, K + 1)]) / sp.factorial(K))


def single_position_knee(width: int) -> int:
    """The knee of the closed-form curve C(K_L + d, d): the first L with
    C(K_{L+1} + d, d) < C(K_L + d, d)² (exact integers).

    The knee of ``levine.threshold`` (the first depth whose next layer no
    longer squares the separation rank) for one Q position, computed on the
    proved upper bound, which is the rank for every d and L
    (:func:`attndepth.theory.single_position_rank.single_position_rank`): the
    knee of the rank itself. Width ≤ 10^6.
    """
    width = _positive("width", width)
    if width > 10**6:
        raise InvalidParameter(f"width must be <= 10^6 (exact binomials), got {width}")
    depth = 1
    while True:
        here = single_position_bound(width, depth)
        if single_position_bound(width, depth + 1) < here * here:
            return depth
        depth += 1


def knee_offset_limit() -> tuple[float, float]:
    """(c*, log₃(2c*)): where the one-position knee settles as d → ∞, relative to log₃ d.

    [derived] Stirling: ln C((1 + c)d, d) = d·g(c) + O(ln d) with
    g(c) = (1 + c) ln(1 + c) − c ln c. A layer multiplies K by about 3, so the
    next layer squares the rank while g(3c) ≥ 2g(c), with c = K/d; g(3c)/g(c)
    falls from 3 (c → 0, g(c) ≈ c ln(1/c)) to 1 (c → ∞, g(c) ≈ ln c), and
    crosses 2 once, at c* (SymPy ``nsolve``). The knee is where K_L ≈ 3^L/2
    first exceeds c*·d, i.e. the continuous knee is log₃ d + log₃(2c*): the
    integer knee minus log₃ d tends to the interval (log₃(2c*), log₃(2c*) + 1].
    """
    c = sp.Symbol("c", positive=True)
    g = lambda x: (1 + x) * sp.log(1 + x) - x * sp.log(x)  # noqa: E731
    root = float(sp.nsolve(g(3 * c) - 2 * g(c), c, 0.2))
    return root, math.log(2 * root, 3)


def gram_witness(width: int, depth: int) -> tuple[sp.Poly, tuple, tuple]:
    """f at the weights A = B = I, one position each side: e_0ᵀ(xxᵀ + yyᵀ)^K x (SymPy).

    [derived] With A = B = I every layer is T_l = M_l, so G = M^K with
    M = xxᵀ + yyᵀ. M maps span{x, y} to itself: M[x y] = [x y]Γ with Γ the
    Gram matrix [[|x|², ⟨x,y⟩], [⟨x,y⟩, |y|²]], so
    f = x_0 (Γ^K)₁₁ + y_0 (Γ^K)₂₁ — a polynomial in the three invariants and
    two coordinates, cheap to expand.

    Returns
    -------
    (poly, x, y) : the polynomial and the symbols of the two positions.
    """
    return _gram_witness(_positive("width", width), _positive("depth", depth))


@functools.lru_cache(maxsize=16)
def _gram_witness(width: int, depth: int) -> tuple[sp.Poly, tuple, tuple]:
    """:func:`gram_witness` of checked sizes (remembered: the proof's first and last steps
    both read it, and SymPy objects are immutable)."""
    x, y = sp.symbols(f"x0:{width}"), sp.symbols(f"y0:{width}")
    inner = sum(a * b for a, b in zip(x, y, strict=True))
    gram = sp.Matrix([[sum(a * a for a in x), inner], [inner, sum(b * b for b in y)]])
    power = gram ** structural_degree(depth)
    return sp.Poly(sp.expand(x[0] * power[0, 0] + y[0] * power[1, 0]), *x, *y), x, y


def gram_witness_rank(width: int, depth: int) -> int:
    """sep over x | y of :func:`gram_witness`, exactly (rank over ℚ of its coefficients).

    It meets C(K + d, d) = :func:`single_position_bound` at (d, L) = (2, 2),
    (3, 2), (4, 2), (2, 3) (tests, under a second) and (3, 3) (224 s, once);
    the same weights over GF(p) meet it at (5, 2) too. Wherever it does, the
    generic rank is *proved* to be C(K + d, d) (a witness at the bound). That it
    does for every d and L is proved by the harmonic decomposition of its
    y-slices (:func:`attndepth.theory.single_position_rank.single_position_rank`).
    """
    poly, x, y = gram_witness(width, depth)
    return coefficient_separation_rank(poly, x, y)

