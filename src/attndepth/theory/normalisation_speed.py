"""Normalisation as speed regulation, at initialisation.

Karagodin, Ge, Polyanskiy & Rigollet 2025, "Normalization in attention dynamics"
(arXiv 2510.22026, NeurIPS 2025) [paper] model tokens as particles on the sphere and
read each normalisation scheme (post-LN, pre-LN, Mix-LN, Peri-LN, nGPT) as a *speed*
on one dynamics: the direction θ of a token x = rθ moves as the post-LN dynamics
divided by a scheme-dependent factor (for pre-LN and Peri-LN the radius r, which in
their regime of aligned updates grows linearly, so that the speed falls as 1/t). Only
the paper's abstract and summaries could be read here; its theorems could not, and
this module states and checks the mechanism as derived below for the stacks of
:mod:`attndepth.simulations.models.blocks` at initialisation.

One trajectory, a scheme's clock [derived]. Let a block add to each token x_i a branch
u_i whose last matrix W_O is Gaussian, zero-mean and independent of the states. Then
E⟨x_i, u_j⟩ = 0 (W_O → −W_O flips u and keeps x), so the tokens' Gram matrix moves by

    E G' = G + β² E U,        G = (⟨x_i, x_j⟩),  U = (⟨u_i, u_j⟩),

and in cosines c' = (1 − h) c + h g with h = β²‖u‖²/(r² + β²‖u‖²) and g the cosines
of the branch. A scheme whose branch reads the normalised tokens N(X) (pre-LN,
Peri-LN, nGPT) has the same g for the same directions: every such scheme runs *one*
trajectory, and the scheme sets only its step h — the speed. Counting time by the
memory a block keeps of its input, T = Σ −ln(1 − h):

* Peri-LN normalises the branch, ‖u‖² = d, so r²_ℓ = d(s + ℓβ²) in expectation
  (:func:`peri_radius`; s = r²_0/d) and 1 − h_ℓ = r²_ℓ/r²_{ℓ+1}: the product
  telescopes,

      T_peri(ℓ) = ln(r²_ℓ/r²_0) = ln(1 + ℓβ²/s)                   (:func:`peri_time`),

  logarithmic in depth — each doubling of a deep stack advances the tokens by ln 2;
* nGPT steps x ← N(x + a(N(F) − x)) from the sphere of radius √d: h = a²/((1 − a)² +
  a²), a constant speed, T_ngpt(ℓ) = ℓ ln(1 + a²/(1 − a)²)         (:func:`ngpt_time`);
* pre-LN's ‖u‖² = ‖(P N(X))_i‖² lies between d/n and d and rises as the tokens align:
  its clock is the measured ln(r²_ℓ/r²_0) (self-regulated); post-LN's step h =
  β²‖u‖²/(d + β²‖u‖²) does not fall with depth.

So a Peri-LN stack at depth ℓ has the token similarity of an nGPT stack at depth
T_peri(ℓ)/ln(1 + a²/(1 − a)²). The paper's aligned regime (speed ∝ 1/r, r ∝ ℓ) gives
the clock 2 ln(1 + ℓβ/√s) instead (:func:`aligned_time`): twice the advance per
doubling. At initialisation the updates are not aligned (E⟨x, u⟩ = 0): the radius
grows as √ℓ, and the clock is the one above.

nGPT's turn [derived]. A token x = √d x̂ steps to x' = (1 − a)x + a u with u uniform
on the sphere of radius √d; with z = ⟨x̂, u⟩ (mean 0, variance 1), sin²θ =
a²(d − z²)/(dK + 2a(1 − a)√d z), K = (1 − a)² + a², and to second order in d^(−½)

    E sin²θ = (a²/K) (1 − (1 − 4a²(1 − a)²/K²)/d)                  (:func:`ngpt_turn`)

(LayerNorm confines u and x̂ to the d − 1 centred coordinates: d − 1 for d).
SymPy: :func:`confirm_speed_regulation`.

Where it breaks. The clock is first order in 1/d: the cosines of normalised tokens
are not the cosines of the expected Gram matrix, and tokens' radii scatter by
O(d^(−½)) (measured: +7 % [+2, +12] on the Peri-LN clock's slope at d = 32, LayerNorm,
β = 2; +2 % at d = 128). Trained value matrices align the updates with the tokens,
E⟨x, u⟩ > 0, which is the paper's regime.
"""

from __future__ import annotations

import math

import sympy as sp

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int, check_real


def _depth_scale_start(depth: float, beta: float, start: float) -> tuple[float, float, float]:
    return (check_real("depth", depth, minimum=0), check_real("beta", beta, 0.0,
                                                                strict_minimum=True),
            check_real("start", start, 0.0, strict_minimum=True))


def peri_radius(depth: float, beta: float, start: float) -> float:
    """E r²_ℓ/d = s + ℓβ² of a Peri-LN stream (module docstring).

    Parameters
    ----------
    depth : ℓ ≥ 0, blocks run.
    beta : β > 0, the branch scale.
    start : s = r²_0/d > 0, the input's squared radius per coordinate.

    Returns
    -------
    float
    """
    depth, beta, start = _depth_scale_start(depth, beta, start)
    return start + depth * beta * beta


def peri_time(depth: float, beta: float, start: float) -> float:
    """T_peri(ℓ) = ln(1 + ℓβ²/s): the clock of a Peri-LN stack at initialisation.

    Parameters
    ----------
    depth, beta, start : as :func:`peri_radius`.

    Returns
    -------
    float
    """
    depth, beta, start = _depth_scale_start(depth, beta, start)
    return math.log1p(depth * beta * beta / start)


def aligned_time(depth: float, beta: float, start: float) -> float:
    """2 ln(1 + ℓβ/√s): the Peri-LN clock if the updates were aligned with the tokens
    (r_ℓ = r_0 + ℓβ√d, speed ∝ 1/r: the paper's regime), a rival at initialisation.

    Parameters
    ----------
    depth, beta, start : as :func:`peri_radius`.

    Returns
    -------
    float
    """
    depth, beta, start = _depth_scale_start(depth, beta, start)
    return 2.0 * math.log1p(depth * beta / math.sqrt(start))


def ngpt_time(depth: float, step: float) -> float:
    """T_ngpt(ℓ) = ℓ ln(1 + a²/(1 − a)²): nGPT's clock (a < 1; a = 1 has no memory).

    Parameters
    ----------
    depth : ℓ ≥ 0.
    step : a in (0, 1).

    Returns
    -------
    float
    """
    depth = check_real("depth", depth, minimum=0)
    step = check_real("step", step, 0.0, 1.0, strict_minimum=True)
    if step == 1.0:
        raise InvalidParameter("step a = 1 replaces the tokens by the branch: no memory, no "
                               "clock (a must be below 1)")
    return depth * math.log1p(step * step / (1.0 - step) ** 2)


def ngpt_turn(step: float, width: int) -> float:
    """E sin²θ of one nGPT block: (a²/K)(1 − (1 − 4a²(1 − a)²/K²)/d), K = (1 − a)² + a².

    Parameters
    ----------
    step : a in (0, 1].
    width : the dimension the step moves in: d (RMSNorm) or d − 1 (LayerNorm), ≥ 2.

    Returns
    -------
    float
    """
    step = check_real("step", step, 0.0, 1.0, strict_minimum=True)
    width = check_int("width", width, minimum=2)
    k = (1.0 - step) ** 2 + step * step
    return step * step / k * (1.0 - (1.0 - 4.0 * step**2 * (1.0 - step) ** 2 / k**2) / width)


@proof_cache
def confirm_speed_regulation() -> bool:
    """SymPy: (i) Peri-LN's memory telescopes, Π_{k<ℓ} r²_k/r²_{k+1} = s/(s + ℓβ²), so
    its clock is ln(1 + ℓβ²/s); (ii) nGPT keeps (1 − a)²/K of the Gram matrix a block,
    −ln of it is ln(1 + a²/(1 − a)²); (iii) the second-order expansion of E sin²θ in
    d^(−½) (E z = E z³ = 0, E z² = 1) is :func:`ngpt_turn`."""
    s, beta, a = sp.symbols("s beta a", positive=True)
    k, depth = sp.symbols("k ell", integer=True, nonnegative=True)
    memory = sp.product((s + k * beta**2) / (s + (k + 1) * beta**2), (k, 0, depth - 1))
    telescopes = sp.simplify(memory - s / (s + depth * beta**2)) == 0
    big_k = (1 - a) ** 2 + a**2
    # e^(−T) a block: the kept share (1 − a)²/K is 1/(1 + a²/(1 − a)²)
    step_time = sp.simplify((1 - a) ** 2 / big_k * (1 + a**2 / (1 - a) ** 2)) == 1
    z, eps = sp.symbols("z epsilon", real=True)  # ε = d^(−½)
    sine2 = a**2 * (1 - z**2 * eps**2) / (big_k + 2 * a * (1 - a) * z * eps)
    series = sp.Poly(sp.expand(sp.series(sine2, eps, 0, 3).removeO()), z)
    moments = (1, 0, 1, 0, 3)  # E z^m of a standard normal
    expected = sum(coefficient * moments[power]
                   for (power,), coefficient in series.as_dict().items())
    target = a**2 / big_k * (1 - eps**2 * (1 - 4 * a**2 * (1 - a) ** 2 / big_k**2))
    return bool(telescopes and step_time and sp.simplify(expected - target) == 0)
