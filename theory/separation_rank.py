"""Separation rank of the linear-attention network (Levine et al. 2020, THEORY §1).

The analysed model (softmax, LayerNorm and the FFN removed) with width d,
H heads, depth L and N positions is

    y^{l+1,i} = ρ·y^{l,i} + Σ_h Σ_j ⟨W_Q^h y^{l,i}, W_K^h y^{l,j}⟩ W_O^h W_V^h y^{l,j},

and the studied function is one output coordinate ``f = y^{L,i}_p``.

This module states, symbolically and as exact integers, what the theory says
about f: its degree, the structural lemma, upper bounds on its separation rank
and the depth threshold. Everything here uses SymPy / the standard library.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import sympy as sp
from sympy import ZZ
from sympy.polys.matrices import DomainMatrix


def _check_depth(depth: object) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    return depth


def output_degree(depth: int) -> int:
    """Degree of f in the inputs: ``3^L`` (Levine et al. 2020, §3).

    Each layer multiplies a query, a key and a value, each linear in the
    layer's input, so degrees multiply by 3 per layer. With ρ = 0 f is
    homogeneous of that degree; with ρ = 1 it has terms of every odd degree
    from 1 to ``3^L`` (``y^{l+1} = y^l + cubic``, and f(−x) = −f(x)).
    """
    return 3 ** _check_depth(depth)


def structural_degree(depth: int) -> int:
    """Degree K of ``G_L`` in the entries of ``M = Σ_j x^j x^jᵀ``: ``(3^L − 1)/2``.

    Proof (THEORY §1, structural lemma). ``y^{L,i} = G_L(M_0) x^i`` where
    ``G_{l+1} = T_l G_l``, ``T_l = ρI + Σ_h B_h M_l A_hᵀ`` and
    ``M_{l+1} = T_l M_l T_lᵀ``. Write k_l = deg G_l and m_l = deg M_l in M_0:
    m_0 = 1, deg T_l = m_l, m_{l+1} = 3 m_l, so m_l = 3^l and
    k_{l+1} = k_l + 3^l, k_0 = 0, giving k_L = Σ_{l<L} 3^l = (3^L − 1)/2.
    Consistency: deg f in x = 2K + 1 = 3^L.
    """
    return (3 ** _check_depth(depth) - 1) // 2


def weight_degree(depth: int) -> int:
    """Degree of f in the weights: ``2(3^L − 1)``.

    Proof: w_0 = 0 and a layer multiplies four weight matrices (W_Q, W_K, W_V,
    W_O) with three copies of the previous layer, so w_{l+1} = 4 + 3 w_l, whose
    solution is w_l = 2(3^l − 1). (With ρ = 1 the extra term y^l has lower
    degree, so the bound is unchanged.) Used by the Schwartz–Zippel bound.
    """
    return 2 * (3 ** _check_depth(depth) - 1)


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
    ring: object

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
            raise ValueError("width must be given for a depth-0 network")
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

    Then ``y^{L,i} = G_L(M_0) x^i`` for every position i (THEORY §1).
    M : d × d DomainMatrix over a polynomial ring.
    """
    ring = M.domain
    width = M.shape[0]
    identity = DomainMatrix.eye(width, ring)
    G = identity
    for A_layer, B_layer in zip(bilinear, value_output, strict=True):
        T = identity * ring(residual)
        for A, B in zip(A_layer, B_layer, strict=True):
            T = T + _to_domain(B, ring) * M * _to_domain(A, ring).transpose()
        G = T * G
        M = T * M * T.transpose()
    return G


def check_structural_lemma(width: int = 2, tokens: int = 3, depth: int = 2,
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
