"""Representational collapse: repeating the last token moves it by O(1/n).

Barbero, Banino, Kapturowski, Kumaran, Araújo, Vitvitskyi, Pascanu & Veličković 2024,
"Transformers need glasses! Information over-squashing in language tasks" (arXiv
2406.04267, §4) [paper]: in a decoder-only transformer the last token's representation
of x_1 … x_n and of x_1 … x_n x_n (the last token repeated) become arbitrarily close as
n grows — the model cannot tell the two sequences apart (their Theorem 4.2, as the
paper's abstract and summaries state it; the theorem's own text could not be read
here). The rate at initialisation is derived below.

The rate [derived]. Under a causal mask every position up to n has the same states in
both sequences, block after block; only position n + 1 differs from position n, by
what its attention sees in addition: one more key, equal to its own. For softmax
weights with scores s_j = ⟨q_n, k_j⟩ and Z = Σ_{j≤n} e^{s_j}, the repeated row is

    y′ = (Σ_j e^{s_j} v_j + e^{s_n} v_n)/(Z + e^{s_n}) = y + p (v_n − y),
    p = e^{s_n}/(Z + e^{s_n})

exactly (:func:`confirm_collapse_rate`). With Z = e^{s_n} + (n − 1)m (m the mean weight
of the others), p = e^{s_n}/(2e^{s_n} + (n − 1)m) and n·p → e^{s_n}/m: the shift of
one layer falls as 1/n. Through L blocks the difference at position n + 1 is carried
by the skip path and fed, block by block, by new terms of the same order: Δ_L(n) =
O(L/n), so ln Δ_L(n) falls with slope :data:`COLLAPSE_EXPONENT` = −1 in ln n, with a
shift n₀ = 2e^{s_n}/m − 1 that flattens it at small n (measured −0.86 to −0.98 between
n = 32 and 512, one draw's self-score varying the shift).

Where it breaks. Without a skip path (pure attention) the stream itself collapses to
one vector (Dong et al. 2021): the difference and the representation shrink together
and the relative shift flattens (measured slopes −1.05, −0.66, −0.53 between n = 16,
64, 256, 1024 at L = 2). Positional encodings that separate the repeated key from its
original are outside this stack (none here).
"""

from __future__ import annotations

import sympy as sp

from attndepth.theory.proof_cache import proof_cache

#: The exponent of n in the shift Δ_L(n) at initialisation: one more key of n.
COLLAPSE_EXPONENT = -1.0


@proof_cache
def confirm_collapse_rate() -> bool:
    """SymPy: the softmax row with one key repeated is y + p(v_n − y), p = e^{s_n}/(Z +
    e^{s_n}) (checked on four keys with symbolic scores and values), and with Z =
    e^{s_n} + (n − 1)m, n·p → e^{s_n}/m as n → ∞ (exponent −1)."""
    scores = sp.symbols("s1:5", real=True)
    values = sp.symbols("v1:5", real=True)
    weights = [sp.exp(s) for s in scores]
    total = sum(weights)
    y = sum(w * v for w, v in zip(weights, values, strict=True)) / total
    repeated = (sum(w * v for w, v in zip(weights, values, strict=True))
                + weights[-1] * values[-1]) / (total + weights[-1])
    share = weights[-1] / (total + weights[-1])
    row = sp.simplify(repeated - (y + share * (values[-1] - y))) == 0
    n, m, self_weight = sp.symbols("n m w", positive=True)
    limit = sp.limit(n * self_weight / (2 * self_weight + (n - 1) * m), n, sp.oo)
    return bool(row and sp.simplify(limit - self_weight / m) == 0)
