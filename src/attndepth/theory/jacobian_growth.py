"""How the input–output Jacobian grows with depth: pre-LN against DyT, at initialisation.

Alekseev 2026 (arXiv 2604.11890) [paper] follows the averaged partial Jacobian norm
(APJN, Doshi et al. 2021) A_L = ‖∂x_L/∂x_0‖_F²/(nd) of deep transformers and states that
it grows as a power law in depth for pre-LN blocks and as a stretched exponential for
DyT, the point-wise tanh(a₀x) that replaces the normaliser (Zhu et al. 2025, arXiv
2503.10622). The paper could not be read here; this module derives both laws for the
stacks of :mod:`attndepth.simulations.models.blocks` at initialisation.

The law [derived]. A pre-norm block is x ← x + β F(N(x)), so J_ℓ = I + β F′ N′(x_ℓ) and,
for a direction v independent of the block's weights,

    E‖J_ℓ v‖² = ‖v‖² + 2β E⟨v, F′N′v⟩ + β² E‖F′N′v‖²,

where the cross term vanishes (F′ is odd in the branch's last matrix). The branch
multiplies squared lengths by a gain κ (its Jacobian's, at its normalised input; ½ for
the He-initialised ReLU feed-forward branch, more with attention), and the normaliser by

* LayerNorm or RMSNorm: N′(x) = (1/σ)(projection), so E‖N′v‖² ∝ ‖v‖²/σ²_ℓ — the weight
  w_ℓ = σ_ℓ^(−p) with p = :data:`NORM_POWER` = 2;
* DyT: N′(x) = diag(a₀ sech²(a₀x_k)), so E‖N′v‖² = ‖v‖² a₀² E sech^q(a₀x), x ~ N(0, σ²_ℓ),
  q = :data:`TANH_POWER` = 4 — the weight w_ℓ of :func:`dyt_weight`, which falls as
  (4/3) a₀ /(√(2π) σ_ℓ) once a₀σ_ℓ ≫ 1 (∫ sech⁴ = 4/3).

Hence ln A_L = Σ_{ℓ<L} ln(1 + c w_ℓ), c = β²κ constant in depth. The stream's mean square
grows linearly at initialisation (σ²_ℓ ≈ s + qℓ, each branch adding a bounded amount,
:mod:`attndepth.theory.curse_of_depth`), so pre-LN gives Σ 1/σ² ≈ (1/q) ln L — a power
law A ∝ L^(c/q) — and DyT Σ 1/σ ∝ √L — a stretched exponential exp(C√L): the two laws
of the paper, each the other's rival. SymPy: :func:`confirm_jacobian_growth`.

What is checked is the law's shape, not c (κ is not derived for attention): c fitted
on the blocks L … 2L must also fit 2L … 4L (:func:`fitted_gain`). A constant factor
in the weights changes nothing there; their power of σ does.

Where it breaks. κ drifts as the tokens align: attention's softmax part of the
Jacobian grows with the similarity (measured +4 to +10 % from the window L … 2L to
2L … 4L at L = 8, with the feed-forward branch); without it, attention is all of κ and
the drift is large.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import sympy as sp
from scipy.integrate import quad
from scipy.optimize import brentq

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_real

#: p of the normaliser's weight σ^(−p): its Jacobian scales as 1/σ and enters squared.
NORM_POWER = 2.0
#: q of DyT's weight a₀² E sech^q(a₀x): tanh′ = sech², squared.
TANH_POWER = 4.0


def _variances(variance: Iterable[float]) -> list[float]:
    values = [check_real("variance", v) for v in variance]
    if any(v <= 0 for v in values):
        raise InvalidParameter("every variance must be > 0")
    return values


def norm_weight(variance: Iterable[float], power: float = NORM_POWER) -> list[float]:
    """w_ℓ = σ_ℓ^(−p) of a LayerNorm or RMSNorm block (up to the constant c).

    Parameters
    ----------
    variance : (k,) σ²_ℓ > 0, the stream's mean square at each block's input.
    power : p > 0.

    Returns
    -------
    list of k floats
    """
    power = check_real("power", power, 0.0, strict_minimum=True)
    return [v ** (-0.5 * power) for v in _variances(variance)]


def dyt_weight(variance: Iterable[float], alpha: float,
               power: float = TANH_POWER) -> list[float]:
    """w_ℓ = a₀² E sech^q(a₀x), x ~ N(0, σ²_ℓ), of a DyT block (up to the constant c).

    Parameters
    ----------
    variance : (k,) σ²_ℓ > 0.
    alpha : a₀ > 0.
    power : q > 0.

    Returns
    -------
    list of k floats, by adaptive quadrature of sech^q(t) φ(t/k)/k, k = a₀σ.
    """
    alpha = check_real("alpha", alpha, 0.0, strict_minimum=True)
    power = check_real("power", power, 0.0, strict_minimum=True)

    def mean(scale: float) -> float:
        def integrand(t: float) -> float:
            return (math.cosh(t) ** -power * math.exp(-0.5 * (t / scale) ** 2)
                    / (scale * math.sqrt(2 * math.pi)))
        reach = min(40.0 / power + 10.0, 12.0 * scale)
        return 2.0 * quad(integrand, 0.0, reach, limit=200)[0]

    return [alpha * alpha * mean(alpha * math.sqrt(v)) for v in _variances(variance)]


def fitted_gain(weights: Iterable[float], rise: float) -> float:
    """c ≥ 0 with Σ ln(1 + c w_ℓ) = ``rise`` (the rise of ln A over the blocks of w).

    Parameters
    ----------
    weights : (k,) w_ℓ > 0.
    rise : ln A at the window's end minus at its start, ≥ 0.

    Returns
    -------
    float
    """
    values = [check_real("weight", w) for w in weights]
    rise = check_real("rise", rise, minimum=0.0)
    if not values or any(w <= 0 for w in values):
        raise InvalidParameter("the window needs weights, all > 0")
    if rise == 0:
        return 0.0

    def excess(c: float) -> float:
        return math.fsum(math.log1p(c * w) for w in values) - rise

    high = 1.0
    while excess(high) < 0:
        high *= 2.0
    return float(brentq(excess, 0.0, high, xtol=1e-12, rtol=1e-12))
@proof_cache
def confirm_jacobian_growth() -> bool:
    """SymPy: ∫ sech⁴ = 4/3 (DyT's weight → (4/3)a₀/(√(2π)σ) as a₀σ → ∞); with
    σ² = s + qℓ, ∫ dℓ/σ² = (1/q) ln σ² (a power law of depth) and ∫ dℓ/σ = (2/q) σ
    (∝ √ℓ: a stretched exponential)."""
    t, ell, s, q = sp.symbols("t ell s q", positive=True)
    area = 2 * sp.integrate(1 / sp.cosh(t) ** 4, (t, 0, sp.oo))  # sech⁴ is even
    variance = s + q * ell
    power = sp.simplify(sp.diff(sp.log(variance) / q, ell) - 1 / variance)
    stretched = sp.simplify(sp.diff(2 * sp.sqrt(variance) / q, ell) - 1 / sp.sqrt(variance))
    return bool(sp.simplify(area - sp.Rational(4, 3)) == 0 and power == 0 and stretched == 0)
