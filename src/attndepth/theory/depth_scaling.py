"""Depth-scaled residual branches at initialisation: how far the stream moves.

Dey et al. 2025, "Don't be lazy: CompleteP enables compute-efficient deep transformers"
(arXiv 2505.01618, §2) [paper] parametrise a pre-LN transformer's residual update as

    h^{ℓ+1} = h^ℓ + L^{−α} F_ℓ(h^ℓ),

F_ℓ an attention or MLP block, L the depth: α = 0 is the standard parametrisation,
α = ½ depth-µP (Yang et al. 2023, arXiv 2310.02244; Bordelon et al.), α = 1 CompleteP.
Their claims are about training (hyperparameters that transfer across depth, every
layer learning features); the part that can be checked at initialisation is how far the
stream moves from its input.

The displacement law [derived]. Let D(L) = E‖h^L − h^0‖_F² / ‖h^0‖_F² with
h^L − h^0 = L^{−α} Σ_ℓ F_ℓ(h^ℓ). At initialisation every branch ends in its own output
matrix W_O^{(ℓ)}, zero-mean and independent of everything before it, so for ℓ < m
E⟨F_ℓ, F_m⟩ = 0 (condition on all but W_O^{(m)}): the increments are orthogonal in
expectation, and

    D(L) = L^{−2α} Σ_{ℓ<L} c_ℓ,     c_ℓ = E‖F_ℓ(h^ℓ)‖² / ‖h^0‖².

In a pre-LN block F_ℓ reads LN(h^ℓ), whose rows have norm √d whatever the stream's
scale, so c_ℓ depends on the stream only through the tokens' directions. For α ≥ ½ the
stream moves by O(L^{½−α}) ≤ O(1) relative to its start, the directions change little,
and c_ℓ ≈ c; then

    D(L) = c L^{1−2α},      log₂ D(2L)/D(L) = 1 − 2α            (*)

(:func:`displacement_exponent`; SymPy: :func:`confirm_displacement_exponent`).
CompleteP (α = 1): −1, the stream moves by O(1/√L) and D halves when L doubles;
depth-µP (α = ½): 0, the displacement is depth-independent. GPT-2's initialisation
(Radford et al. 2019, §2.3: residual projections scaled by 1/√(2L)) is α = ½ with a
factor ½ in D: the same exponent.

Where it breaks. α = 0 (no scaling) moves the stream by O(√L): tokens align and c_ℓ
grows with ℓ (attention averages less-diverse tokens, the branches' outputs grow), so
the exponent exceeds 1 at finite depth (measured in the theory document, §5). The
rival a trained network suggests — branches that add *coherently*,
‖Σ L^{−α}F_ℓ‖² = c L^{2−2α} (Dey et al.'s argument for α = 1 is about updates that
align) — gives 2 − 2α (:func:`coherent_exponent`); at initialisation the increments
are orthogonal, so (*) and not it.
"""

from __future__ import annotations

import sympy as sp

from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_choice, check_int

#: The schemes of Dey et al. (Table 1) by α.
SCHEMES: dict[str, float] = {"CompleteP": 1.0, "depth-muP": 0.5, "SP": 0.0}


def displacement_exponent(alpha: float) -> float:
    """log₂ D(2L)/D(L) = 1 − 2α: the displacement law (*) of the module docstring.

    Parameters
    ----------
    alpha : the branch scale's exponent, L^(−α) (Dey et al. 2025, arXiv 2505.01618, §2).

    Returns
    -------
    float
    """
    return 1.0 - 2.0 * alpha


def branch_scale(scheme: str, depth: int) -> float:
    """The factor on every residual branch of a stack of ``depth`` blocks.

    Parameters
    ----------
    scheme : a key of :data:`SCHEMES` (L^(−α)) or ``GPT-2`` (1/√(2L): its residual
        projections' initialisation, Radford et al. 2019, §2.3).
    depth : L.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameter
        An unknown scheme or a depth below 1.
    """
    scheme = check_choice("scheme", scheme, (*SCHEMES, "GPT-2"))
    depth = check_int("depth", depth, minimum=1)
    if scheme == "GPT-2":
        return float((2 * depth) ** -0.5)
    return float(depth ** -SCHEMES[scheme])


def coherent_exponent(alpha: float) -> float:
    """log₂ D(2L)/D(L) = 2 − 2α if the branches added coherently (a rival of (*))."""
    return 2.0 - 2.0 * alpha


@proof_cache
def confirm_displacement_exponent() -> bool:
    """SymPy: L^(−2α) Σ_{ℓ=1}^{L} c doubled in L grows by 2^(1−2α), and the coherent sum
    (L^(−α) Σ c^½)² by 2^(2−2α), for every α and c > 0."""
    alpha = sp.Symbol("alpha", real=True)
    c = sp.Symbol("c", positive=True)
    L = sp.Symbol("L", positive=True, integer=True)
    ell = sp.Symbol("ell", positive=True, integer=True)

    def orthogonal(depth: sp.Expr) -> sp.Expr:
        return depth ** (-2 * alpha) * sp.summation(c, (ell, 1, depth))

    def coherent(depth: sp.Expr) -> sp.Expr:
        return (depth ** (-alpha) * sp.summation(sp.sqrt(c), (ell, 1, depth))) ** 2

    checks = ((orthogonal, 1 - 2 * alpha), (coherent, 2 - 2 * alpha))
    return all(sp.simplify(sp.expand_log(sp.log(law(2 * L) / law(L), 2), force=True)
                           - exponent) == 0 for law, exponent in checks)
