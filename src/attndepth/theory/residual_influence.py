"""Residual connections against the first-token collapse: the influence of each input
token on the last, through a pre-LN causal stack at initialisation.

Herasimchyk, Labryga, Prusina & Laue 2026, "A structural theory of position bias in
transformers" (arXiv 2602.16837; v1 "A residual-aware theory of position bias") [paper]:
attention-only rollout predicts that causal attention collapses onto the first token
with depth (Wu et al. 2025; :mod:`attndepth.theory.position_bias`); a residual-aware
rollout shows that residual connections change this — no collapse "under realistic
conditions" at infinite depth, and at finite depth broad, often U-shaped influence
profiles that favour the first and the last tokens (the abstracts' statements; the
theorems could not be read here). What a pre-LN stack at initialisation does is derived
below: it collapses, but as a power of the depth, not exponentially.

The influence Gram recursion [derived]. Let x_k be token k's stream and J_k = ∂x_k/∂x_j⁰
its Jacobian on one input token j. A pre-LN block adds, to every token k,
Σ_m A_km LN(x_m) W with W = W_V W_O Gaussian (gain 1), fresh in every block. Over W,
with near-uniform causal attention A_km = 1/k (m ≤ k: logits of small variance) and
d → ∞, the states' Gram K_km = ⟨x_k, x_m⟩/d and the influence Gram
G_km = tr(J_kᵀ J_m)/d obey one map (the cross terms with the skip have mean zero):

    K ← K + c_K A K̂ Aᵀ,    G ← G + c_G A Ĝ Aᵀ,    X̂_km = X_km/(σ_k σ_m), σ_k² = K_kk,

with K⁰ = s·I (independent inputs of mean square s), G⁰ = e_j e_jᵀ, c_K = 1 − 1/d
(LayerNorm's centring keeps (d − 1)/d of a branch) and c_G = 1 − 2/d (its Jacobian
(I − 11ᵀ/d − x̂x̂ᵀ/d)/σ also drops the token's own direction). The influence of input j on
the last token after L blocks is G_L[n, n] (:func:`influence_profile`); its *non-first
share* is 1 − G^{(1)}[n, n]/Σ_j G^{(j)}[n, n].

Why a power law. The stream grows by one branch a block, σ_k² ≈ s + ℓ r_k (r_k ≤ 1 the
mean square of token k's update), so the branch's weight falls as 1/ℓ and G grows like
exp(ln L · 𝒜) with 𝒜(G) = A G Aᵀ up to the σ's: the map's eigenvalues are the products
λ_pλ_q = 1/(pq) of A's diagonal, the first token alone reaches the eigenvalue 1 (e₁ᵀA =
e₁ᵀ), so the first token's influence grows like L and every other's more slowly: the
non-first share falls as a power L^(−p), 0 < p < 1, with p drifting between ½ (tokens that
stay orthogonal, r_k = 1/k) and ¾ as the tokens align (measured from the recursion: p ≈
0.6 from L = 8 to 32). Attention-only rollout (no skip) falls exponentially instead, at
ln 2 a layer (:func:`attndepth.theory.position_bias.collapse_rate`); a skip of fixed
weight, ½I + ½A (Abnar & Zuidema 2020's rollout), at ln(4/3). The first token collapses
the influence, but only as a power of the depth; the last token keeps its own skip path
(G ≥ 1 on the diagonal), so the profile is U-shaped at every finite depth.

Where it breaks. Logits of variance 1/T² add the Jacobian of the attention weights
themselves (keys and queries), of relative order 1/T² a block, which the recursion
leaves out: at T = 4 the non-first share is 12–26 % above the recursion's (d = 256 to
64, L = 16), at T = 1 about 30 % (:func:`confirm_influence_recursion` checks the
recursion's algebra, not this).
"""

from __future__ import annotations

import math

import sympy as sp

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_choice, check_int, check_real


def _attend(matrix: list[list[float]]) -> list[list[float]]:
    """A X Aᵀ for uniform causal A (A_km = 1/k, m ≤ k, 1-based), by prefix sums: O(n²)."""
    size = len(matrix)
    rows = []
    for row in matrix:
        running, prefix = 0.0, []
        for value in row:
            running += value
            prefix.append(running)
        rows.append(prefix)
    out = [[0.0] * size for _ in range(size)]
    for q in range(size):
        running = 0.0
        for k in range(size):
            running += rows[k][q]
            out[k][q] = running / (k + 1)
    for k in range(size):
        for q in range(size):
            out[k][q] /= q + 1
    return out


def _normalised(matrix: list[list[float]], scales: list[float]) -> list[list[float]]:
    return [[value / (scales[k] * scales[m]) for m, value in enumerate(row)]
            for k, row in enumerate(matrix)]


def influence_profile(tokens: int, width: int, depths: tuple[int, ...],
                      input_scale: float = 1.0, placement: str = "pre"
                      ) -> dict[int, list[float]]:
    """G_L^{(j)}[n, n] for every input token j, at each depth L of ``depths`` (module
    docstring): the expected squared influence ‖∂x_n^L/∂x_j^0‖²_F/d of input j on the last
    token.

    Parameters
    ----------
    tokens : n ≥ 1.
    width : d ≥ 3 (the centring factors 1 − 1/d and 1 − 2/d).
    depths : depths L ≥ 0 to report.
    input_scale : s > 0, the inputs' mean square.
    placement : ``pre`` (the stream grows, module docstring) or ``post``: each block's
        sum is normalised, X ← LN(X + F(X)), so K's diagonal returns to 1 and G is divided
        by the new σ_kσ_m (the branch's weight stays constant in depth).

    Returns
    -------
    dict L → list of n floats (j = 1 … n).
    """
    tokens = check_int("tokens", tokens, minimum=1)
    width = check_int("width", width, minimum=3)
    input_scale = check_real("input_scale", input_scale, 0.0, strict_minimum=True)
    check_choice("placement", placement, ("pre", "post"))
    if not depths:
        raise InvalidParameter("depths must name at least one depth")
    depths = tuple(check_int("depth", depth, minimum=0) for depth in depths)
    keep, carry = 1.0 - 1.0 / width, 1.0 - 2.0 / width
    states = [[input_scale * float(k == m) for m in range(tokens)] for k in range(tokens)]
    grams = [[[float(k == m == j) for m in range(tokens)] for k in range(tokens)]
             for j in range(tokens)]
    profile = {}
    for depth in range(max(depths) + 1):
        if depth in depths:
            profile[depth] = [gram[-1][-1] for gram in grams]
        scales = [math.sqrt(states[k][k]) for k in range(tokens)]
        added = _attend(_normalised(states, scales))
        states = [[s + keep * a for s, a in zip(row, more, strict=True)]
                  for row, more in zip(states, added, strict=True)]
        for j, gram in enumerate(grams):
            added = _attend(_normalised(gram, scales))
            grams[j] = [[g + carry * a for g, a in zip(row, more, strict=True)]
                        for row, more in zip(gram, added, strict=True)]
        if placement == "post":
            scales = [math.sqrt(states[k][k]) for k in range(tokens)]
            states = _normalised(states, scales)
            grams = [_normalised(gram, scales) for gram in grams]
    return profile


def non_first_share(influence: list[float]) -> float:
    """1 − influence₁/Σ_j influence_j: the share of the last token's influence that the
    inputs after the first hold."""
    total = math.fsum(influence)
    if not total > 0:
        raise InvalidParameter(f"influences must sum to a positive number, got {total}")
    return math.fsum(influence[1:]) / total


def _gaussian_mean(expression: sp.Expr, entries: list[sp.Symbol], width: int) -> sp.Expr:
    """E over W with i.i.d. entries of mean 0 and variance 1/d, of a polynomial of degree
    ≤ 2 in them."""
    polynomial = sp.Poly(sp.expand(expression), *entries)
    mean = sp.Integer(0)
    for powers, coefficient in polynomial.terms():
        if sum(powers) == 0:
            mean += coefficient
        elif sorted(powers)[-1] == 2 and sum(powers) == 2:
            mean += coefficient / width
    return mean


@proof_cache
def confirm_influence_recursion() -> bool:
    """SymPy: for the block δx_k ← δx_k + Σ_m A_km δx_m W with W's entries i.i.d. of mean 0
    and variance 1/d (E[W Wᵀ] = I), the Gram G_kq = tr(B_k B_qᵀ) of the perturbations
    δx_k = u B_k moves on average by exactly A G Aᵀ (three tokens, d = 2, every B_k
    symbolic: the terms linear in W vanish); the uniform causal A fixes e₁ᵀ (e₁ᵀA = e₁ᵀ) and
    its other eigenvalues are 1/k < 1, so only the first token's influence reaches the
    map's eigenvalue 1."""
    size, width = 3, 2
    blocks = [sp.Matrix(width, width, lambda a, b, k=k: sp.Symbol(f"b{k}{a}{b}"))
              for k in range(size)]
    weights = sp.Matrix(width, width, lambda a, b: sp.Symbol(f"w{a}{b}"))
    attention = sp.Matrix(size, size,
                          lambda k, m: sp.Rational(1, k + 1) if m <= k else 0)
    moved = [blocks[k] + sum((attention[k, m] * blocks[m] * weights for m in range(size)),
                             sp.zeros(width, width)) for k in range(size)]
    gram = sp.Matrix(size, size, lambda k, q: (blocks[k] * blocks[q].T).trace())
    expected = sp.Matrix(size, size, lambda k, q: _gaussian_mean(
        (moved[k] * moved[q].T).trace(), list(weights), width))
    recursion = sp.simplify(expected - (gram + attention * gram * attention.T)).is_zero_matrix
    fixed = sp.eye(size)[0, :] * attention == sp.eye(size)[0, :]
    spectrum = sorted(attention.eigenvals()) == [sp.Rational(1, 3), sp.Rational(1, 2), 1]
    return bool(recursion and fixed and spectrum)
