"""Separation rank of the linear-attention network (Levine et al. 2020, docs/theory.md §1).

The analysed model (softmax, LayerNorm and the FFN removed) with width d,
H heads, depth L and N positions is

    y^{l+1,i} = ρ·y^{l,i} + Σ_h Σ_j ⟨W_Q^h y^{l,i}, W_K^h y^{l,j}⟩ W_O^h W_V^h y^{l,j},

and the studied function is one output coordinate ``f = y^{L,i}_p``.

This module states, symbolically and as exact integers, what the theory says
about f: its degree, the structural lemma, upper bounds on its separation rank
and the depth threshold. Everything here uses SymPy / the standard library.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy import ZZ
from sympy.polys.matrices import DomainMatrix

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int, check_positive


def output_degree(depth: int) -> int:
    """Degree of f in the inputs: ``3^L`` (Levine et al. 2020, §3).

    Each layer multiplies a query, a key and a value, each linear in the
    layer's input, so degrees multiply by 3 per layer. With ρ = 0 f is
    homogeneous of that degree; with ρ = 1 it has terms of every odd degree
    from 1 to ``3^L`` (``y^{l+1} = y^l + cubic``, and f(−x) = −f(x)).
    """
    return 3 ** check_int("depth", depth, minimum=0)


def structural_degree(depth: int) -> int:
    """Degree K of ``G_L`` in the entries of ``M = Σ_j x^j x^jᵀ``: ``(3^L − 1)/2``.

    Proof (docs/theory.md §1, structural lemma). ``y^{L,i} = G_L(M_0) x^i`` where
    ``G_{l+1} = T_l G_l``, ``T_l = ρI + Σ_h B_h M_l A_hᵀ`` and
    ``M_{l+1} = T_l M_l T_lᵀ``. Write k_l = deg G_l and m_l = deg M_l in M_0:
    m_0 = 1, deg T_l = m_l, m_{l+1} = 3 m_l, so m_l = 3^l and
    k_{l+1} = k_l + 3^l, k_0 = 0, giving k_L = Σ_{l<L} 3^l = (3^L − 1)/2.
    Consistency: deg f in x = 2K + 1 = 3^L.
    """
    return (3 ** check_int("depth", depth, minimum=0) - 1) // 2


def weight_degree(depth: int) -> int:
    """Degree of f in the weights: ``2(3^L − 1)``.

    Proof: w_0 = 0 and a layer multiplies four weight matrices (W_Q, W_K, W_V,
    W_O) with three copies of the previous layer, so w_{l+1} = 4 + 3 w_l, whose
    solution is w_l = 2(3^l − 1). (With ρ = 1 the extra term y^l has lower
    degree, so the bound is unchanged.) Used by the Schwartz–Zippel bound.
    """
    return 2 * (3 ** check_int("depth", depth, minimum=0) - 1)


@dataclass(frozen=True)
class SymbolicNetwork:
    """A tiny linear-attention network with symbolic inputs and integer weights.

    Attributes
    ----------
    inputs : the input symbols x_{j,a} (position j, coordinate a), row-major.
    outputs : (tokens × width) DomainMatrix over ZZ[inputs]: the polynomials y^{L,j}_a.
    ring : the polynomial ring ZZ[inputs].
    """

    inputs: tuple[sp.Symbol, ...]
    outputs: DomainMatrix
    ring: Any

    def output(self, position: int, coordinate: int) -> sp.Poly:
        """f = y^{L,position}_coordinate as a SymPy ``Poly`` in the inputs."""
        element = self.outputs.rep.to_ddm()[position][coordinate]
        return sp.Poly(self.ring.to_sympy(element), *self.inputs)


MatrixStack = list[list[sp.Matrix]]


def random_integer_weights(width: int, depth: int, heads: int, seed: int,
                           magnitude: int = 3) -> tuple[MatrixStack, MatrixStack]:
    """Integer A_h, B_h per layer and head, entries uniform in ±{1, …, magnitude}.

    Zero entries are excluded so a tiny network is rarely degenerate (an
    identically zero output would make a symbolic check vacuous).
    """
    generator = random.Random(seed)
    values = [v for v in range(-magnitude, magnitude + 1) if v]

    def random_matrix() -> sp.Matrix:
        return sp.Matrix(width, width, lambda *_: generator.choice(values))

    bilinear = [[random_matrix() for _ in range(heads)] for _ in range(depth)]
    value_output = [[random_matrix() for _ in range(heads)] for _ in range(depth)]
    return bilinear, value_output


def _to_domain(matrix: sp.Matrix, ring: object) -> DomainMatrix:
    return DomainMatrix.from_Matrix(matrix).convert_to(ring)


def symbolic_network(
    bilinear: list[list[sp.Matrix]],
    value_output: list[list[sp.Matrix]],
    tokens: int,
    residual: int = 0,
    width: int | None = None,
) -> SymbolicNetwork:
    """Build ``y^{L}`` exactly as polynomials in symbolic inputs.

    ``Y' = ρY + Σ_h (Y A_h Yᵀ)(Y B_hᵀ)`` (row i of ``Y A_h Yᵀ`` holds
    y^iᵀ A_h y^j), computed in ``DomainMatrix`` over ZZ[x] for speed.
    bilinear[l][h], value_output[l][h] : d × d integer sympy matrices;
    ``width`` is needed only when the network has depth 0.
    """
    if width is None:
        if not bilinear:
            raise InvalidParameter("width must be given for a depth-0 network")
        width = bilinear[0][0].shape[0]
    symbols = sp.symbols(f"x_0:{tokens}_0:{width}")
    ring = ZZ[symbols]
    Y = DomainMatrix([[ring(symbols[j * width + a]) for a in range(width)]
                      for j in range(tokens)], (tokens, width), ring)
    for A_layer, B_layer in zip(bilinear, value_output, strict=True):
        new = Y * ring(residual)
        for A, B in zip(A_layer, B_layer, strict=True):
            A_dm, B_dm = _to_domain(A, ring), _to_domain(B, ring)
            new = new + (Y * A_dm * Y.transpose()) * (Y * B_dm.transpose())
        Y = new
    return SymbolicNetwork(inputs=tuple(symbols), outputs=Y, ring=ring)


def homogeneous_degrees(poly: sp.Poly) -> set[int]:
    """Total degrees of the monomials of ``poly`` (one value iff homogeneous; empty for 0)."""
    if poly.is_zero:
        return set()
    return {sum(monomial) for monomial in poly.monoms()}


def structural_form(
    bilinear: list[list[sp.Matrix]],
    value_output: list[list[sp.Matrix]],
    M: DomainMatrix,
    residual: int = 0,
) -> DomainMatrix:
    """``G_L(M)`` of the structural lemma: ``G = T_{L-1} ⋯ T_0`` with
    ``T_l = ρI + Σ_h B_h M_l A_hᵀ``, ``M_{l+1} = T_l M_l T_lᵀ``.

    Then ``y^{L,i} = G_L(M_0) x^i`` for every position i (docs/theory.md §1).
    M : d × d DomainMatrix over a polynomial ring.
    """
    ring = M.domain
    width = M.shape[0]
    identity = DomainMatrix.eye(width, ring)
    G = identity
    layers = list(zip(bilinear, value_output, strict=True))
    for layer, (A_layer, B_layer) in enumerate(layers):
        T = identity * ring(residual)
        for A, B in zip(A_layer, B_layer, strict=True):
            T = T + _to_domain(B, ring) * M * _to_domain(A, ring).transpose()
        G = T * G
        if layer < len(layers) - 1:  # the last layer's M_L is never used
            M = T * M * T.transpose()
    return G


@proof_cache
def confirm_structural_lemma(width: int = 2, tokens: int = 3, depth: int = 2,
                             heads: int = 1, residual: int = 0, seed: int = 0) -> bool:
    """Verify ``Y^L = X G_L(XᵀX)ᵀ`` (row i: y^{L,i} = G_L(M_0) x^i) exactly.

    Both sides are polynomials in the symbolic inputs for random integer
    weights; returns True when they are identical.
    """
    bilinear, value_output = random_integer_weights(width, depth, heads, seed)
    network = symbolic_network(bilinear, value_output, tokens, residual)
    ring = network.ring
    X = DomainMatrix([[ring(network.inputs[j * width + a]) for a in range(width)]
                      for j in range(tokens)], (tokens, width), ring)
    G = structural_form(bilinear, value_output, X.transpose() * X, residual)
    return X * G.transpose() == network.outputs


# --------------------------------------------------------------------------
# Dimension counts: Schur modules and the Hilbert function of rank-bounded
# symmetric matrices
# --------------------------------------------------------------------------


def bounded_partitions(size: int, parts: int, largest: int | None = None
                       ) -> Iterator[tuple[int, ...]]:
    """The partitions of ``size`` into at most ``parts`` parts, each ≤ ``largest``.

    Yields weakly decreasing tuples of positive integers (the empty tuple for
    size 0), each once, in reverse lexicographic order.
    """
    largest = size if largest is None else min(largest, size)
    if size == 0:
        yield ()
        return
    if parts == 0:
        return
    for first in range(largest, (size + parts - 1) // parts - 1, -1):
        for rest in bounded_partitions(size - first, parts - 1, first):
            yield (first, *rest)


def schur_module_dimension(partition: tuple[int, ...], n: int) -> int:
    """dim S_λ(ℂ^n) by Weyl's formula: Π_{1≤i<j≤n} (λ_i − λ_j + j − i) / (j − i).

    Parameters
    ----------
    partition : weakly decreasing positive parts λ₁ ≥ λ₂ ≥ … (zeros ignored).
    n : the dimension of ℂ^n (integer ≥ 1).

    Returns
    -------
    int, 0 when λ has more than n parts (Fulton–Harris, Representation Theory,
    Thm. 6.3(1)). Pairs i < j with λ_i = λ_j = 0 contribute 1, so the product
    runs over i ≤ ℓ(λ): O(ℓ·n) exact integer operations, whatever |λ|.
    """
    n = check_int("n", n, minimum=1)
    parts = [p for p in partition if p]
    if any(a < b for a, b in zip(parts, parts[1:], strict=False)):
        raise InvalidParameter(f"partition must be weakly decreasing, got {partition}")
    return _weyl_dimension(parts, n)


def _weyl_dimension(parts: list[int] | tuple[int, ...], n: int) -> int:
    """:func:`schur_module_dimension` of checked input: ``parts`` weakly decreasing and
    positive (the counts below call it millions of times with partitions they built)."""
    length = len(parts)
    if length > n:
        return 0
    padded = [*parts, *([0] * (n - length))]
    numerator = 1
    for i in range(length):
        part = padded[i]
        for j in range(i + 1, n):
            numerator *= part - padded[j] + j - i
    return numerator // _weyl_denominator(length, n)


@functools.cache
def _weyl_denominator(length: int, n: int) -> int:
    """Π_{i < length, i < j < n} (j − i) = Π_{i < length} (n − 1 − i)!."""
    return math.prod(math.factorial(n - 1 - i) for i in range(length))


@functools.lru_cache(maxsize=None, typed=True)
def symmetric_rank_hilbert(degree: int, width: int, rank: int) -> int:
    """h(a): dim of degree-a polynomials on symmetric d×d matrices of rank ≤ q.

    Proof sketch. The coordinate ring of all symmetric d×d matrices is
    Sym(Sym² ℂ^d), whose degree-a part decomposes under GL_d as
    ⊕_{λ ⊢ a, ℓ(λ) ≤ d} S_{2λ}(ℂ^d) (plethysm of Sym^a ∘ Sym²; Macdonald,
    I.8 Ex. 6). The ideal of (q+1)-minors is the sum of the isotypic parts with
    ℓ(λ) > q (de Concini–Procesi 1976; Abeasis 1980), so the rank-≤q quotient
    keeps exactly λ with ℓ(λ) ≤ min(q, d). For q ≥ d this is
    C(d(d+1)/2 + a − 1, a), the number of monomials of degree a in the
    d(d+1)/2 entries (checked against the sum in the tests).

    M_Q = Σ_{j∈Q} x^j x^jᵀ fills (Zariski-densely) the symmetric matrices of
    rank ≤ |Q|: over ℂ every such matrix is X_Qᵀ X_Q.
    """
    degree = check_int("degree", degree, minimum=0)
    width = check_int("width", width, minimum=1)
    rank = check_int("rank", rank, minimum=1)
    if rank >= width:
        return math.comb(width * (width + 1) // 2 + degree - 1, degree)
    if degree == 0:
        return 1
    return sum(_weyl_dimension([2 * part for part in parts], width)
               for parts in bounded_partitions(degree, rank))


def q_side_dimension(degree: int, width: int, q_size: int) -> int:
    """h_Q(a) = :func:`symmetric_rank_hilbert` (a, d, |Q|): the Q side of f at M_Q-degree a."""
    return symmetric_rank_hilbert(degree, width, q_size)


@functools.lru_cache(maxsize=None, typed=True)
def p_side_dimension(degree: int, width: int, p_size: int) -> int:
    """h_P(b) = dim span{ν(M_P)·x^i_c : deg ν = b, c ≤ d} (functions of x_P), |P| = m.

    The count. Σ dim S_μ(ℂ^d) over the partitions μ ⊢ 2b + 1 with exactly one odd
    part and at most min(m, d) parts.

    Proof that it is an upper bound. W_b := the span is the image of the
    GL_d-equivariant map (ν, c) ↦ ν(M_P)·x^i_c from R_b ⊗ ℂ^d, where R_b, the
    degree-b polynomials on symmetric matrices of rank ≤ m, is
    ⊕_{λ ⊢ b, ℓ(λ) ≤ min(m, d)} S_{2λ}(ℂ^d) (:func:`symmetric_rank_hilbert`).
    By Pieri's rule S_{2λ} ⊗ ℂ^d = ⊕_r S_{2λ+e_r}, and μ = 2λ + e_r has exactly
    one odd part (row r), which recovers (λ, r): the source is multiplicity free,
    one copy of S_μ for each μ ⊢ 2b + 1 with one odd part, ℓ(μ) ≤ d. The image of
    an irreducible summand is 0 or a copy of it, and polynomials on
    (ℂ^d)^m = x_P contain only S_μ with ℓ(μ) ≤ m (the GL_d × GL_m Cauchy
    decomposition, Howe 1989, "Remarks on classical invariant theory",
    Trans. AMS 313, §2.1), so only summands with ℓ(μ) ≤ min(m, d) survive.
    [derived]

    Exactness. Equality needs every surviving summand to map injectively. Checked
    by certified GF(p) evaluation ranks of the spanning set
    (``attndepth.rank.p_side.p_side_rank``) for every d ≤ 4, m ≤ d + 1,
    b ≤ 4 (tests); for m = 1 it is all monomials of degree 2b + 1 in x^i,
    C(d + 2b, 2b + 1), and for m ≥ d + 1 it is d·h(b; d, d) (the entries of
    M_P − x^i x^iᵀ and x^i are then algebraically independent), both exact by
    elementary arguments. It never exceeds the earlier spanning counts
    d·h(b; d, m) and C(m·d + 2b, 2b + 1) (tests), and is strictly below them for
    1 < m < d (d = 4, m = 2, b = 4: 1960 instead of 2520).
    """
    degree = check_int("degree", degree, minimum=0)
    width = check_int("width", width, minimum=1)
    p_size = check_int("p_size", p_size, minimum=1)
    rows = min(p_size, width)
    total = 0
    for half in bounded_partitions(degree, rows):  # μ = 2λ + e_r, λ ⊢ b: the count's μ
        padded = half + (0,) * (rows - len(half))
        for r in range(rows):
            if r == 0 or padded[r] < padded[r - 1]:
                odd = [2 * part + (k == r) for k, part in enumerate(padded)]
                total += _weyl_dimension([part for part in odd if part], width)
    return total


# --------------------------------------------------------------------------
# Upper bounds on the separation rank
# --------------------------------------------------------------------------


#: Exact-integer bounds sum K + 1 = (3^L + 1)/2 terms: L ≤ 8 keeps that ≤ 3281.
MAX_EXACT_BOUND_DEPTH = 8
#: Widths and partition sides beyond this make the exact binomials impractically long.
MAX_EXACT_BOUND_SIZE = 4096
#: log_bigraded_bound sums K + 1 floating terms: L ≤ 14 keeps that ≤ ~2.4·10^6.
MAX_LOG_BOUND_DEPTH = 14


@dataclass(frozen=True)
class SeparationRankBounds:
    """Upper bounds on sep_(P,Q)(f), each an exact integer (docs/theory.md §1).

    Attributes
    ----------
    monomials : (a) polynomials of degree ≤ 3^L in the |Q|·d Q-side variables.
    q_side : (b) polynomials of degree ≤ K in M_Q (rank ≤ |Q|).
    p_side : (c) span of ν(M_P)·x^i, deg ν ≤ K.
    bigraded : (d) degree-by-degree minimum of (b) and (c).
    """

    monomials: int
    q_side: int
    p_side: int
    bigraded: int

    @property
    def best(self) -> int:
        """The smallest bound."""
        return min(self.monomials, self.q_side, self.p_side, self.bigraded)

    def as_dict(self) -> dict[str, int]:
        return {"monomials": self.monomials, "q_side": self.q_side, "p_side": self.p_side,
                "bigraded": self.bigraded, "best": self.best}


def _check_exact_sizes(width: object, depth: object, p_size: object,
                       q_size: object) -> tuple[int, int, int, int]:
    """Validate the sizes of an exact integer bound (depth ≤ 8, sizes ≤ 4096)."""
    width = check_int("width", width, minimum=1)
    depth = check_int("depth", depth, minimum=0)
    if depth > MAX_EXACT_BOUND_DEPTH:
        raise InvalidParameter(f"depth must be <= {MAX_EXACT_BOUND_DEPTH} for exact integer bounds "
                               f"(K = (3^L − 1)/2 terms), got {depth}; use log_bigraded_bound")
    p_size = check_int("p_size", p_size, minimum=1)
    q_size = check_int("q_size", q_size, minimum=1)
    for name, value in (("width", width), ("p_size", p_size), ("q_size", q_size)):
        if value > MAX_EXACT_BOUND_SIZE:
            raise InvalidParameter(f"{name} must be <= {MAX_EXACT_BOUND_SIZE} for exact integer "
                                   f"bounds, got {value}; use log_bigraded_bound")
    work = exact_bound_work(width, depth, p_size, q_size)
    if work > MAX_EXACT_BOUND_WORK:
        raise InvalidParameter(
            f"the exact bounds at d = {width}, L = {depth}, |P| = {p_size}, |Q| = {q_size} "
            f"multiply {'more than the limit of' if math.isinf(work) else f'{work:.2g} of'} "
            f"{MAX_EXACT_BOUND_WORK:.0e} factors of Weyl's formula (about two minutes); use "
            f"log_bigraded_bound")
    return width, depth, p_size, q_size


#: Factors of Weyl's formula the exact bounds may multiply (about two minutes here:
#: d = 4, L = 8, |P| = |Q| = 2 takes 6.5·10^7 of them in 33 s).
MAX_EXACT_BOUND_WORK = 2e8


def exact_bound_work(width: int, depth: int, p_size: int, q_size: int) -> float:
    """How many factors of Weyl's formula :func:`separation_rank_bounds` multiplies, up to
    a constant: N_r·r·d on the Q side (N_r partitions of every a ≤ K into at most
    r = |Q| parts, each dimension O(ℓ·d)) and N_r·r²·d on the P side (each with up to
    r odd rows); a side with r ≥ d has a closed form (Q) or is counted with r = d (P).
    ``inf`` once the count passes :data:`MAX_EXACT_BOUND_WORK` (the count stops there).
    """
    degree = structural_degree(depth)
    work = 0.0
    for rows, power, closed in ((min(q_size, width), 1, q_size >= width),
                                (min(p_size, width), 2, False)):
        if closed:
            continue
        # N_r = Σ_{a ≤ K} #partitions of a into ≤ r parts, by p_{≤r}(n) = p_{≤r−1}(n) +
        # p_{≤r}(n − r); stopped as soon as the work passes the limit
        counts = [1] * (degree + 1)  # r = 1: one partition of each a
        for r in range(2, rows + 1):
            for n in range(r, degree + 1):
                counts[n] += counts[n - r]
            if sum(counts) * r**power * width > MAX_EXACT_BOUND_WORK:
                return math.inf
        work += sum(counts) * rows**power * width
    return work


@dataclass(frozen=True)
class DegreeBlockBound:
    """Upper bound of one homogeneous part f_a (ρ = 0): degree a in M_Q, K − a in M_P.

    Attributes
    ----------
    degree : a, the degree of f_a in M_Q (2a in x_Q).
    q_side : h_Q(a) (:func:`q_side_dimension`).
    p_side : h_P(K − a) (:func:`p_side_dimension`).
    """

    degree: int
    q_side: int
    p_side: int

    @property
    def bound(self) -> int:
        """min(h_Q(a), h_P(K − a)), a proved upper bound of sep(f_a)."""
        return min(self.q_side, self.p_side)


def degree_block_bounds(width: int, depth: int, p_size: int,
                        q_size: int) -> tuple[DegreeBlockBound, ...]:
    """The per-degree blocks of f (ρ = 0) and each block's proved upper bound.

    Proof (block diagonal, so ranks add exactly). With ρ = 0, G is homogeneous
    of degree K = (3^L − 1)/2 in M = M_P + M_Q (structural lemma), so
    f = Σ_{a=0}^{K} f_a with f_a homogeneous of degree 2a in x_Q and
    2(K − a) + 1 in x_P. Write f = Σ_{μ,ν} c_{μν} μ(x_P) ν(x_Q) over monomials: the
    coefficient matrix C (rows μ, columns ν) has c_{μν} ≠ 0 only when
    deg ν = 2a and deg μ = 2(K − a) + 1 for the same a, so sorting rows and
    columns by degree makes C block diagonal with blocks C_a = coefficients of
    f_a. sep(f) = rank C = Σ_a rank C_a = Σ_a sep(f_a). Each sep(f_a) is at most
    h_Q(a) (f_a is a combination of degree-a polynomials in M_Q with
    coefficients in x_P) and at most h_P(K − a) (symmetrically), hence the bound.
    Their sum is bound (d) of :func:`separation_rank_bounds`.

    Returns
    -------
    tuple of DegreeBlockBound, one per a = 0 … K.
    """
    width, depth, p_size, q_size = _check_exact_sizes(width, depth, p_size, q_size)
    K = structural_degree(depth)
    return tuple(DegreeBlockBound(a, q_side_dimension(a, width, q_size),
                                  p_side_dimension(K - a, width, p_size))
                 for a in range(K + 1))


def separation_rank_bounds(width: int, depth: int, p_size: int, q_size: int,
                           residual: int = 0) -> SeparationRankBounds:
    """All upper bounds on sep_(P,Q) of f = y^{L,i}_p, i ∈ P.

    Proofs. Let K = (3^L − 1)/2 and f = e_pᵀ G(M_P + M_Q) x^i (structural lemma).

    (a) f has degree ≤ 3^L in x_Q; a polynomial is a sum of (coefficient in
        x_P) × (monomial in x_Q), one term per monomial.
    (b) Expand G(M_P + M_Q) in the entries of M_Q: f = Σ_r g_r(x_P) h_r(M_Q)
        with h_r a basis of polynomials of degree ≤ K restricted to the
        matrices M_Q can be (rank ≤ |Q|): Σ_{a≤K} h_Q(a) terms.
    (c) Symmetrically f = Σ_r g_r(x_Q) ν_r(M_P) x^i_c: Σ_{b≤K} h_P(b) terms.
    (d) ρ = 0: every T_l is homogeneous of degree 1 in M_l and M_l of degree
        3^l in M_0, so G is homogeneous of degree K in M = M_P + M_Q and
        f = Σ_a f_a with f_a of degree a in M_Q and K − a in M_P. Each f_a has
        separation rank ≤ min(h_Q(a), h_P(K − a)) by (b)/(c) restricted to one
        degree, and ranks add: sep(f) ≤ Σ_a min(h_Q(a), h_P(K − a)).
        ρ = 1: G has every degree ≤ K, so f = Σ_{a+b≤K} f_{a,b} (degree 2a in
        x_Q, 2b + 1 in x_P) and the coefficient matrix C has blocks C_{b,a}
        (row group b, column group a), zero unless a + b ≤ K: a staircase.
        Column group a (all of f's degree 2a in x_Q) has rank ≤
        col(a) = min(h_Q(a), Σ_{b≤K−a} h_P(b)); row group b has rank ≤
        row(b) = min(h_P(b), Σ_{a≤K−b} h_Q(a)) (by (b)/(c) restricted to one
        degree). For a threshold t ∈ {0, …, K + 1} write C = C₁ + C₂ with C₁ the
        column groups a < t and C₂ the rest; C₂'s blocks have a ≥ t, so b ≤ K − t,
        and C₂ lies in the row groups b ≤ K − t (each a column subset of a
        whole row group, rank ≤ row(b)). By subadditivity
        sep(f) ≤ Σ_{a<t} col(a) + Σ_{b≤K−t} row(b); bound (d) is the minimum
        over t (t = K + 1 groups by a alone, t = 0 by b alone; a vertex cover of
        the staircase, and with nested neighbourhoods every minimal cover has
        this threshold form). Taking col(a) ≤ h_Q(a) below the t where
        h_P(K − a) becomes the smaller and row(K − a) ≤ h_P(K − a) above it
        shows that it is at most the ρ = 0 bound (d) whenever
        a ↦ [h_Q(a) ≤ h_P(K − a)] switches once (tested over a range of sizes).
        With :func:`attndepth.theory.residual_rank.confirm_residual_top_part`
        (sep with ρ = 1 ≥ sep with ρ = 0)
        this pins the ρ = 1 rank wherever the ρ = 0 rank meets its bound (d).
    """
    width, depth, p_size, q_size = _check_exact_sizes(width, depth, p_size, q_size)
    if residual not in (0, 1) or isinstance(residual, bool):
        raise InvalidParameter(f"residual must be 0 or 1, got {residual!r}")
    K = structural_degree(depth)
    h_q = [q_side_dimension(a, width, q_size) for a in range(K + 1)]
    h_p = [p_side_dimension(b, width, p_size) for b in range(K + 1)]
    if residual == 0:
        bigraded = sum(min(h_q[a], h_p[K - a]) for a in range(K + 1))
    else:
        cumulative_q = list(itertools.accumulate(h_q))
        cumulative_p = list(itertools.accumulate(h_p))
        column = [min(h_q[a], cumulative_p[K - a]) for a in range(K + 1)]
        row = [min(h_p[b], cumulative_q[K - b]) for b in range(K + 1)]
        bigraded = min(sum(column[:t]) + sum(row[:K + 1 - t]) for t in range(K + 2))
    return SeparationRankBounds(
        monomials=math.comb(q_size * width + output_degree(depth), output_degree(depth)),
        q_side=sum(h_q),
        p_side=sum(h_p),
        bigraded=bigraded,
    )


def partition_invariant(p_positions: tuple[int, ...], q_positions: tuple[int, ...]) -> tuple:
    """What the separation rank of f = y^{L,i}_p depends on, of a partition: (|P|, |Q|).

    [derived] By the structural lemma, f = e_pᵀ G(M_P + M_Q) x^i with
    M_P = Σ_{j∈P} x^j x^jᵀ and M_Q likewise (:func:`structural_form`); both
    are symmetric in the positions they sum over. Let σ be a permutation of
    the positions fixing i. Relabelling the inputs by σ maps f to f∘σ, which
    is again the output of the same network (self-attention treats positions
    alike), and maps a decomposition f = Σ_r g_r(x_P) h_r(x_Q) to one of f∘σ
    with respect to (σ(P), σ(Q)) with the same number of terms. So
    sep_(P,Q)(f) = sep_(σP,σQ)(f), and any two partitions with i ∈ P and the
    same sizes are related by such a σ. Checked as ``levine.partition-symmetry``.

    Parameters
    ----------
    p_positions, q_positions : tuple of int
        The two sides (i ∈ P).

    Returns
    -------
    tuple of int
        ``(|P|, |Q|)``.
    """
    return (len(p_positions), len(q_positions))


#: The restated tightness conjecture (``levine.bound-tightness``), in words.
TIGHT_FAMILY_STATEMENT = (
    "conjecture: with H = 1 and ρ = 0 the separation rank equals bound (d) exactly when "
    "d = 1, or L = 1, or |P| = |Q| = 1, or d ≤ 3 and |P| ≥ d and |Q| ≥ 2, or d ≤ 2 and "
    "|P| = 1, or L = 2 and |P| ≥ 2"
)


def in_tight_family(width: int, depth: int, heads: int, residual: int, p_size: int,
                    q_size: int) -> bool:
    """Whether a configuration lies where the rank is conjectured to equal bound (d).

    [conjecture, refuted] The set: d = 1, or L = 1, or |P| = |Q| = 1, or d ≤ 3,
    |P| ≥ d and |Q| ≥ 2, or d ≤ 2 and |P| = 1, or L = 2 and |P| ≥ 2 (H = 1,
    ρ = 0). It was stated from certified ranks at d ≤ 4, L ≤ 3; the atlas
    (``attndepth.atlas()``) refutes two of its cases: d = 6, L = 2, |P| = 2,
    |Q| = 1 has rank 275 < 280, and d = 2, L = 4, |P| = 1, |Q| = 2 has rank
    1,168 < 1,212. It is kept as stated, so that ``levine.bound-tightness``
    reports those refutations reproducibly; its history is in the theory document §1.

    Parameters
    ----------
    width, depth, heads, residual : int
        d, L, H and ρ.
    p_size, q_size : int
        |P| ≥ 1 and |Q| ≥ 1.

    Returns
    -------
    bool
        False whenever H ≠ 1 or ρ ≠ 0 (the conjecture says nothing there).
    """
    width, depth, heads, p_size, q_size = (
        check_int(name, value, minimum=1) for name, value in (
            ("width", width), ("depth", depth), ("heads", heads), ("p_size", p_size),
            ("q_size", q_size)))
    if residual not in (0, 1) or isinstance(residual, bool):
        raise InvalidParameter(f"residual must be 0 or 1, got {residual!r}")
    if heads != 1 or residual != 0:
        return False
    d, L, p, q = width, depth, p_size, q_size
    return (d == 1 or L == 1 or (p == 1 and q == 1) or (d <= 3 and p >= d and q >= 2)
            or (d <= 2 and p == 1) or (L == 2 and p >= 2))


def coefficient_separation_rank(poly: sp.Poly, p_variables: tuple[sp.Symbol, ...],
                                q_variables: tuple[sp.Symbol, ...]) -> int:
    """sep_(P,Q) of a polynomial, exactly: the rank over ℚ of its coefficient matrix.

    Rows are the monomials in the P variables, columns those in the Q
    variables, entries the coefficients; f = Σ rows ⊗ columns, and the minimal
    number of terms g(x_P)h(x_Q) is this rank. An independent oracle for the
    evaluation-matrix ranks of ``attndepth.rank.grids``.
    """
    index = {symbol: k for k, symbol in enumerate(poly.gens)}
    p_index = [index[s] for s in p_variables]
    q_index = [index[s] for s in q_variables]
    if sorted(p_index + q_index) != list(range(len(poly.gens))):
        raise InvalidParameter("p_variables and q_variables must partition the polynomial's "
                               "generators")
    rows: dict[tuple, int] = {}
    cols: dict[tuple, int] = {}
    entries: dict[tuple[int, int], sp.Rational] = {}
    for monomial, coefficient in poly.terms():
        row = rows.setdefault(tuple(monomial[k] for k in p_index), len(rows))
        col = cols.setdefault(tuple(monomial[k] for k in q_index), len(cols))
        entries[(row, col)] = coefficient
    if not entries:
        return 0
    dense = [[sp.QQ(0)] * len(cols) for _ in range(len(rows))]
    for (row, col), coefficient in entries.items():
        dense[row][col] = sp.QQ.from_sympy(coefficient)
    matrix = DomainMatrix(dense, (len(rows), len(cols)), sp.QQ)
    return int(matrix.rank())


# --------------------------------------------------------------------------
# Regimes: threshold, asymptotics, depth efficiency
# --------------------------------------------------------------------------


def threshold_depth(width: float) -> float:
    """Levine et al.'s depth threshold ``L_th = log_3 d`` (Levine et al. 2020, §4)."""
    return math.log(check_positive("width", width), 3)


def regime_bounds(width: int, q_size: int) -> tuple[Callable[[int], int],
                                                   Callable[[int], list[int]]]:
    """(depth ↦ bound (d), depth ↦ per-block bounds) of the regime |P| = |Q| = q, ρ = 0.

    The two callables :func:`attndepth.rank.knee.measure_knee` takes.
    """
    def upper(depth: int) -> int:
        return separation_rank_bounds(width, depth, q_size, q_size).best

    def blocks(depth: int) -> list[int]:
        return [block.bound for block in degree_block_bounds(width, depth, q_size, q_size)]

    return upper, blocks


def q_matrix_dimension(width: int, q_size: int) -> int:
    """D = dim of the symmetric d×d matrices of rank ≤ |Q| (where M_Q lives).

    q·d − q(q − 1)/2 for q = min(|Q|, d): a rank-q symmetric matrix is
    X Xᵀ-like with X in ℂ^{d×q} modulo O(q), d·q − q(q − 1)/2 parameters (the
    determinantal variety's dimension; Harris, "Algebraic Geometry", Ex. 22.26).
    d for one Q position, d(d + 1)/2 for |Q| ≥ d.
    """
    width = check_int("width", width, minimum=1)
    q = min(check_int("q_size", q_size, minimum=1), width)
    return q * width - q * (q - 1) // 2


def corrected_knee(width: int, q_size: int) -> float:
    """[conjecture] The knee of ln sep: log₃(2D + 1), D = :func:`q_matrix_dimension`.

    Heuristic derivation [derived, not a proof]: f = Σ_a f_a with a up to
    K = (3^L − 1)/2, and f_a's Q side is a degree-a polynomial on the
    D-dimensional variety of M_Q. For |Q| ≥ d its count h_Q(a) = C(D + a − 1, a)
    has ln h_Q(a) ≈ a·ln(D/a) while a ≪ D (linear in a, so doubly exponential
    in L) and ≈ (D − 1)·ln a once a ≫ D (linear in L). The growth changes
    character when K ≈ D, i.e. 3^L ≈ 2D + 1. For one Q position D = d and the
    law is log₃ d + 0.63 asymptotically (Levine et al.'s slope); for |Q| ≥ d,
    D = d(d + 1)/2 and it is ≈ 2·log₃ d (twice the paper's slope).

    Evidence (docs/theory.md, ``levine.threshold``): within one layer of every
    knee decided from certified ranks and proved bounds (d ≤ 9 for |Q| = 1,
    d ≤ 4 for every |Q|), and of the knees bound (d) would have up to d = 243
    except d = 81, |Q| ≥ d (1.01 layers). Against it: for one Q position bound
    (d) is C(K + d, d) in closed form, and that curve's knee
    (:func:`attndepth.theory.rank_closed_forms.single_position_knee`) is more
    than a layer before log₃(2d + 1) from d = 41 on, and tends to
    log₃ d − 1.02 (+ at most one layer), not log₃ d + 0.63: the law is a
    finite-size fit.
    """
    return math.log(2 * q_matrix_dimension(width, q_size) + 1, 3)


def _log_comb(n: float, k: float) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _log_sum_exp(logs: list[float]) -> float:
    top = max(logs)
    return top + math.log(math.fsum(math.exp(v - top) for v in logs))


def log_bigraded_bound(width: int, depth: int, side: int | None = None) -> float:
    """ln of bound (d) with ρ = 0 and |P| = |Q| = ``side``, in floating point.

    ``side=None`` means |P| = |Q| = d (any side ≥ d gives the same counts).
    With |Q| ≥ d, h_Q(a) = C(D + a − 1, a), D = d(d+1)/2; with |Q| = 1,
    h_Q(a) = dim S_{(2a)}(ℂ^d) = C(d + 2a − 1, 2a). The P side is
    :func:`p_side_dimension` in the same two cases. Terms use ``lgamma`` and
    the sum a log-sum-exp, so depths far beyond exact reach (K up to ~10^6)
    are fine. Agrees with :func:`separation_rank_bounds` where both apply
    (tested). Other side sizes need partition sums: use the exact function.
    """
    width = check_int("width", width, minimum=1)
    if check_int("depth", depth, minimum=0) > MAX_LOG_BOUND_DEPTH:
        raise InvalidParameter(f"depth must be <= {MAX_LOG_BOUND_DEPTH}, got {depth}")
    K = structural_degree(depth)
    side = width if side is None else check_int("side", side, minimum=1)
    if 1 < side < width:
        raise InvalidParameter(f"side must be 1 or >= width={width} here, got {side}")
    D = width * (width + 1) / 2

    def log_h(a: int) -> float:
        if side >= width:
            return _log_comb(D + a - 1, a)
        return _log_comb(width + 2 * a - 1, 2 * a)

    def log_p(b: int) -> float:
        return min(math.log(width) + log_h(b), _log_comb(side * width + 2 * b, 2 * b + 1))

    # term(a) = min(log_h(a), log_p(K − a)): log_h increases and log_p(K − a)
    # decreases in a, so the terms are unimodal around the crossing a*. Sum
    # outwards from a* and stop where a term is below e^−50 of the largest
    # (relative error of the sum < (K + 1)·e^−50).
    low, high = 0, K
    while low < high:  # first a with log_h(a) >= log_p(K − a)
        middle = (low + high) // 2
        if log_h(middle) >= log_p(K - middle):
            high = middle
        else:
            low = middle + 1

    def term(a: int) -> float:
        return min(log_h(a), log_p(K - a))

    peak = max(range(max(0, low - 1), min(K, low) + 1), key=term)
    top = term(peak)
    terms = [top]
    for direction in (-1, 1):
        a = peak + direction
        while 0 <= a <= K:
            value = term(a)
            if value < top - LOG_SUM_CUTOFF:
                break
            terms.append(value)
            a += direction
    return _log_sum_exp(terms)


#: Terms more than this many nats below the largest are dropped from log sums.
LOG_SUM_CUTOFF = 50.0


L_SYMBOL, D_SYMBOL = sp.symbols("L d", positive=True)


def leading_log_sep() -> sp.Expr:
    """Leading (entropy) form of ln sep for |P|, |Q| ≥ d: ln C(D + K/2, K/2) by Stirling.

    The bigraded sum is dominated by its middle term a ≈ K/2, and
    ln C(n + k, k) = k ln((n+k)/k) + n ln((n+k)/n) + O(ln(nk)).
    With D = d(d+1)/2 and K = (3^L − 1)/2 this is the expression returned
    (in the symbols L, d).
    """
    K = (3**L_SYMBOL - 1) / 2
    D = D_SYMBOL * (D_SYMBOL + 1) / 2
    k = K / 2
    return k * sp.log((D + k) / k) + D * sp.log((D + k) / D)


@dataclass(frozen=True)
class RegimeLimits:
    """SymPy limits of the growth of ln sep in the two regimes.

    Attributes
    ----------
    below_ratio : dict of int to sympy.Expr
        ``below_ratio[L]`` = lim_{d→∞} ln sep(L+1) / ln sep(L) at fixed L (→ 3 as
        L grows: doubly exponential, the regime 3^L ≪ d²).
    above_ratio : sympy.Expr
        lim_{L→∞} ln sep(L+1) / ln sep(L) at fixed d (= 1: exponential).
    below_scale : sympy.Expr
        lim_{d→∞} ln sep / (3^L ln d), a function of L.
    above_scale : sympy.Expr
        lim_{L→∞} ln sep / (L d²), a function of d.
    """

    below_ratio: dict[int, sp.Expr]
    above_ratio: sp.Expr
    below_scale: sp.Expr
    above_scale: sp.Expr


def regime_limits(depths: tuple[int, ...] = (1, 2, 3)) -> RegimeLimits:
    """Compute :class:`RegimeLimits` with ``sympy.limit`` on :func:`leading_log_sep`."""
    log_sep = leading_log_sep()
    shifted = log_sep.subs(L_SYMBOL, L_SYMBOL + 1)
    below = {L: sp.limit(shifted.subs(L_SYMBOL, L) / log_sep.subs(L_SYMBOL, L), D_SYMBOL, sp.oo)
             for L in depths}
    return RegimeLimits(
        below_ratio=below,
        above_ratio=sp.limit(shifted / log_sep, L_SYMBOL, sp.oo),
        below_scale=sp.simplify(sp.limit(log_sep / (3**L_SYMBOL * sp.log(D_SYMBOL)),
                                         D_SYMBOL, sp.oo)),
        above_scale=sp.simplify(sp.limit(log_sep / (L_SYMBOL * D_SYMBOL**2), L_SYMBOL, sp.oo)),
    )


def matching_width(depth: int, width: int, other_depth: int, max_width: int = 10**6) -> int:
    """Smallest width d′ at which depth L′ reaches the log bigraded bound of (L, d).

    Depth efficiency: below the threshold a shallower network needs a far
    wider layer (d′ grows like d^{3^{L−L′}}); above it, d′ grows only
    polynomially. Uses :func:`log_bigraded_bound` (monotone in d) and bisection.
    Raises ``ValueError`` when even ``max_width`` does not suffice.
    """
    target = log_bigraded_bound(width, depth)
    if log_bigraded_bound(max_width, other_depth) < target:
        raise InvalidParameter(f"no width up to max_width={max_width} matches depth {depth} at "
                               f"width {width} with depth {other_depth}")
    low, high = 1, max_width
    while low < high:
        middle = (low + high) // 2
        if log_bigraded_bound(middle, other_depth) >= target:
            high = middle
        else:
            low = middle + 1
    return low


def necessary_width(rank: int, depth: int, q_size: int, max_width: int = 4096) -> int:
    """Smallest width d′ whose proved bound at ``depth`` (|P| = |Q| = q) reaches ``rank``.

    Depth efficiency, proved direction: a network of depth L′ and width
    w < d′ has sep ≤ bound (d)(w, L′) < ``rank``, so it cannot represent a
    function of separation rank ``rank`` — whatever its weights. With
    ``rank`` a certified rank of a depth-L network of width d, d′ is a proved
    lower bound on the width depth L′ needs to match it. Levine et al. 2020
    (§4, depth efficiency): below the threshold d′ grows like d^(3^(L − L′));
    above it only polynomially.

    Raises ``ValueError`` when no width up to ``max_width`` reaches ``rank``.
    """
    rank = check_int("rank", rank, minimum=1)
    depth = check_int("depth", depth, minimum=0)
    q_size = check_int("q_size", q_size, minimum=1)
    max_width = check_int("max_width", max_width, minimum=1)

    def bound(width: int) -> int:
        return separation_rank_bounds(width, depth, q_size, q_size).best

    if bound(max_width) < rank:
        raise InvalidParameter(f"no width up to max_width={max_width} reaches rank {rank} at depth "
                               f"{depth}")
    low, high = 1, max_width
    # bound (d) is non-decreasing in the width: every h_Q(a), h_P(b) is a sum of
    # dim S_μ(ℂ^d), each non-decreasing in d, and min and sum keep that.
    while low < high:
        middle = (low + high) // 2
        if bound(middle) >= rank:
            high = middle
        else:
            low = middle + 1
    return low
