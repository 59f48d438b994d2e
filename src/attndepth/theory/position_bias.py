"""Position bias of causal attention: the cumulative attention collapses onto the first token.

Wu, Wang, Jegelka & Jadbabaie 2025, "On the emergence of position bias in transformers"
(arXiv 2502.01951, ICML 2025) [paper]: modelling attention masks as directed graphs,
causal masking biases attention toward earlier positions — in an attention-only stack
the cumulative attention P_L = A_L ⋯ A_1 concentrates on the first token as depth grows,
whatever the positional encoding — and a relative decay mask (ALiBi-style, logits less
m(i − j)) trades a distance-based decay inside each map against that cumulative
importance of early positions (the abstract's statement, and Herasimchyk et al. 2026's
summary of it; the theorems' own text could not be read here). The rates at
initialisation are derived below.

The mask's own rollout [derived]. In a stack without skip connections the tokens
collapse onto one vector (Dong et al. 2021) doubly exponentially fast; once they have,
every query sees equal scores, and each attention matrix is the mask's own softmax,

    M_ij = e^{−m(i−j)} / Σ_{k=0}^{i−1} e^{−mk}   (j ≤ i; 1-based, M_ij = 0 for j > i),

so P_L ≈ M^L (:func:`mask_attention`, :func:`rollout_deficits`). M is lower triangular
and stochastic: its eigenvalues are its diagonal, λ_i = 1/Σ_{k<i} e^{−mk}, decreasing
in i from λ_1 = 1; the first column is the only fixed direction, so every row of M^L
tends to e₁ (the first token takes all the mass). The slowest other mode is position 2,
λ₂ = 1/(1 + e^{−m}): the non-first mass of position 2 is exactly Π_ℓ A_ℓ[2, 2] (row 2
of a lower-triangular product), and once the tokens have collapsed it falls by
:func:`collapse_rate` = ln(1 + e^{−m}) a layer — ln 2 without decay, e^{−m} for large m.
For the other positions the decay mask first carries the mass toward the start at
e^{−m}/(1 − e^{−m}) positions a layer (the mean distance of one row), so the deficit of
a position i stays near 1 until that front has reached it: the decay slows the collapse
(by the rate and by the front) but does not stop it (:func:`confirm_position_bias`).

Where it breaks. Before the tokens collapse the attention is random, not the mask's:
sharper logits (temperature below 1) let early layers deviate (the measured deficit
falls 10–15 % below M^L's at T = ½); with skip connections the tokens do not collapse,
and the influence of an input token is no longer a product of attention matrices
(:mod:`attndepth.theory.residual_influence`).
"""

from __future__ import annotations

import math

import sympy as sp

from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int, check_real


def mask_attention(tokens: int, decay: float) -> list[list[float]]:
    """The decay mask's causal softmax M (module docstring): (tokens, tokens), rows sum to 1.

    Parameters
    ----------
    tokens : n ≥ 1.
    decay : m ≥ 0 (0: uniform causal attention, M_ij = 1/i).
    """
    tokens = check_int("tokens", tokens, minimum=1)
    decay = check_real("decay", decay, 0.0)
    rows = []
    for i in range(tokens):
        weights = [math.exp(-decay * (i - j)) for j in range(i + 1)]
        total = math.fsum(weights)
        rows.append([w / total for w in weights] + [0.0] * (tokens - i - 1))
    return rows


def rollout_deficits(tokens: int, decay: float, depth: int) -> list[float]:
    """The mass M^ℓ leaves off the first token, mean over positions 2 … n, for ℓ = 0 … L.

    Parameters
    ----------
    tokens : n ≥ 2.
    decay : m ≥ 0.
    depth : L ≥ 0.

    Returns
    -------
    list of L + 1 floats: (1/(n − 1)) Σ_{i ≥ 2} Σ_{j ≥ 2} (M^ℓ)_ij (ℓ = 0: 1).
    """
    tokens = check_int("tokens", tokens, minimum=2)
    depth = check_int("depth", depth, minimum=0)
    mask = mask_attention(tokens, decay)
    power = [[float(i == j) for j in range(tokens)] for i in range(tokens)]
    deficits = []
    for layer in range(depth + 1):
        if layer:
            power = [[math.fsum(mask[i][k] * power[k][j] for k in range(j, i + 1))
                      for j in range(tokens)] for i in range(tokens)]
        deficits.append(math.fsum(math.fsum(row[1:]) for row in power[1:]) / (tokens - 1))
    return deficits


def collapse_rate(decay: float) -> float:
    """ln(1 + e^{−m}) = −ln λ₂: the slowest per-layer rate at which the cumulative
    attention leaves the non-first positions (module docstring)."""
    decay = check_real("decay", decay, 0.0)
    return math.log1p(math.exp(-decay))


@proof_cache
def confirm_position_bias() -> bool:
    """SymPy: with equal scores a masked softmax row is the decay mask's row; M's diagonal
    λ_i = 1/Σ_{k<i} e^{−mk} falls with i (λ₂ = 1/(1 + e^{−m}) the largest below 1); the
    first column of M is its only fixed direction (e₁ᵀM = e₁ᵀ); and for m = 0 the non-first
    mass of position 2 after L layers is 2^{−L} (checked for L ≤ 6 in exact arithmetic)."""
    m, s = sp.symbols("m s", positive=True)
    # three keys with one common score s and the decay bias −m(i − j)
    logits = [s - m * 2, s - m, s]
    row = [sp.exp(v) for v in logits]
    mask_row = [sp.exp(-m * 2), sp.exp(-m), sp.Integer(1)]
    same = all(sp.simplify(a / sum(row) - b / sum(mask_row)) == 0
               for a, b in zip(row, mask_row, strict=True))
    diagonal = [1 / sum(sp.exp(-m * k) for k in range(i)) for i in range(1, 6)]
    falling = all(sp.simplify(diagonal[i] - diagonal[i + 1]).is_positive
                  for i in range(len(diagonal) - 1))
    second = sp.simplify(diagonal[1] - 1 / (1 + sp.exp(-m))) == 0
    size = 5
    uniform = sp.Matrix(size, size, lambda i, j: sp.Rational(1, i + 1) if j <= i else 0)
    fixed = (sp.eye(size)[0, :] * uniform) == sp.eye(size)[0, :]
    power, halving = sp.eye(size), True
    for depth in range(1, 7):
        power = uniform * power
        halving &= sum(power[1, 1:]) == sp.Rational(1, 2**depth)
    return bool(same and falling and second and fixed and halving)
