"""Escalation laws derived from an architecture's own configuration (theory document §3,
"The architectures people build: the rate from the configuration").

The unit-scale rate of :func:`~attndepth.theory.similarity.postln_rate_expression` is
derived for one attention branch whose product W = W_V W_O has entries of variance 1/d.
A real architecture differs in three numbers a block's configuration fixes, all for a
token x of squared norm d (what a LayerNorm or RMSNorm hands on):

- the **attention gain** β² = E‖xW_V W_O‖²/‖x‖² = (d σ_V²)(d σ_O²), the fan-ins times the
  weight variances (BERT at σ = 0.02: (d · 0.02²)²; 1 for the unit-scale block);
- the **mean gain** γ_m of the feed-forward branch f(x) = φ(xW₁ + b₁)W₂ + b₂ (hidden
  width h): the share of a token's squared norm it adds along the token itself,
  γ_m = ω K(1) + σ_{b₂}² with ω = h σ₂² and K(ρ) = E φ(a)φ(b) for (a, b) Gaussian of
  variance v = d σ₁² + σ_{b₁}² and covariance ρ d σ₁² + σ_{b₁}²;
- the **deviation gain** γ_d = ω K′(1) = ω d σ₁² E φ′(a)² (Price's theorem): what it adds
  to a small difference between two tokens.

(SwiGLU, f(x) = (silu(xW_g) ⊙ xW_u)W_d: K(ρ) = K_silu(ρ) · ρ d σ_u².) The numbers come
from the configuration (:func:`attndepth.pytorch.initialisations.block_gains`); the
kernel integrals from :mod:`attndepth.simulations.models.gram_recursion`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import sympy as sp

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.theory.similarity import (
    beta_symbol,
    postln_rate_expression,
    s_realised,
    width_symbol,
)
from attndepth.validation import check_int, check_real

#: Symbols: the FFN's mean and deviation gains (γ_m, γ_d).
mean_gain_symbol, deviation_gain_symbol = sp.symbols("gamma_m gamma_d", nonnegative=True)
#: Symbols of the pre-LN law: depth ℓ, the stream's squared norm per coordinate σ(ℓ) and
#: its start σ₀, the log-odds' start ℓ₀, and the gains per block A (along the mean) and
#: B (along the deviations).
depth_symbol, stream_start, odds_start = sp.symbols("ell sigma_0 lambda_0", positive=True)
mean_rise_symbol, deviation_rise_symbol = sp.symbols("A B", positive=True)


def _keep(norm_kind: str) -> sp.Expr:
    """The share of a random branch a normaliser keeps: 1 − 1/d for LayerNorm (its
    centring removes the 1_d-component), 1 for RMSNorm."""
    return 1 - 1 / width_symbol if norm_kind == "layer" else sp.Integer(1)


def aligned_rate_expression(norm_kind: str = "layer") -> sp.Expr:
    """The log-odds slope per block of a post-norm block of attention and FFN, once the
    tokens align, with the architecture's own gains [derived].

    The attention sublayer is the unit-scale derivation with the branch scaled by β
    (:func:`~attndepth.theory.similarity.postln_rate_expression` with ``residual_scale``
    β, so its Jensen and per-token scaling terms come with it). The FFN sublayer acts on
    each token alone: with x_i = m̄ + d_i, d_i small and orthogonal to m̄,
    f(x_i) = f(m̄) + d_i J + O(‖d_i‖²), J = W₁ diag φ′(z) W₂; over its independent
    weights E‖f(m̄)‖² = γ_m ‖m̄‖², E‖d_i J‖² = γ_d ‖d_i‖², and every cross term with the
    skip has mean zero (W₂ is independent of x). The norm after it keeps k = 1 − 1/d
    (LayerNorm) or 1 (RMSNorm) of each added branch, so the FFN multiplies the odds
    ‖ΠX‖²/‖(I − Π)X‖² by (1 + kγ_m)/(1 + kγ_d):

        rate = postln_rate(s, d; β) + ln(1 + kγ_m) − ln(1 + kγ_d).

    At β = 1 and no FFN (γ_m = γ_d = 0) this is the unit-scale rate
    (:func:`confirm_unit_scale_special_case`). A positively homogeneous activation
    without biases (ReLU) has γ_m = γ_d: its FFN leaves the aligned log-odds where they
    were (:func:`confirm_homogeneous_ffn_neutral`).

    Assumptions (each breaks somewhere, theory document): every block draws its own
    weights (``torch.nn.TransformerEncoder`` copies one layer L times: it does not); the
    tokens are aligned (the log-odds' window); the FFN's fluctuations and its
    per-token scaling are left out (order γ/d).

    Parameters
    ----------
    norm_kind : {"layer", "rms"}

    Returns
    -------
    sympy.Expr
        In s, d, β, γ_m and γ_d.
    """
    keep = _keep(norm_kind)
    attention = postln_rate_expression("post-ln", skip_scale=1, residual_scale=beta_symbol,
                                       norm_kind=norm_kind)
    return (attention + sp.log(1 + keep * mean_gain_symbol)
            - sp.log(1 + keep * deviation_gain_symbol))


@lru_cache(maxsize=4)
def _aligned_rate_function(norm_kind: str) -> Callable[..., float]:
    return sp.lambdify((s_realised, width_symbol, beta_symbol, mean_gain_symbol,
                        deviation_gain_symbol), aligned_rate_expression(norm_kind),
                       modules="math")


def aligned_rate(s: float, width: int, attention_gain: float, mean_gain: float = 0.0,
                 deviation_gain: float = 0.0, norm_kind: str = "layer") -> float:
    """:func:`aligned_rate_expression` as a number: the post-norm log-odds slope per block.

    Parameters
    ----------
    s : float >= 0
        The realised diversity contraction of the block's attention.
    width : int >= 2
    attention_gain : float > 0
        β² (1 for the unit-scale block).
    mean_gain, deviation_gain : float >= 0
        γ_m and γ_d of the FFN (0 without one).
    norm_kind : {"layer", "rms"}

    Returns
    -------
    float
    """
    width = check_int("width", width, minimum=2)
    check_real("s", s, minimum=0)
    check_real("attention_gain", attention_gain, minimum=0, strict_minimum=True)
    check_real("mean_gain", mean_gain, minimum=0)
    check_real("deviation_gain", deviation_gain, minimum=0)
    return float(_aligned_rate_function(norm_kind)(float(s), width,
                                                   math.sqrt(attention_gain),
                                                   float(mean_gain), float(deviation_gain)))


@proof_cache
def confirm_unit_scale_special_case() -> bool:
    """SymPy: at β = 1 without an FFN (γ_m = γ_d = 0) the configuration's rate is the
    unit-scale rate of ``yuzhang.escalation``, for LayerNorm and RMSNorm."""
    return all(sp.simplify(aligned_rate_expression(kind).subs(
        {beta_symbol: 1, mean_gain_symbol: 0, deviation_gain_symbol: 0})
        - postln_rate_expression("post-ln", norm_kind=kind)) == 0
        for kind in ("layer", "rms"))


@proof_cache
def confirm_homogeneous_ffn_neutral() -> bool:
    """SymPy: for ReLU without biases, E φ(z)² = v E φ′(z)² (z ~ N(0, v)), so γ_m = γ_d
    and a ReLU FFN adds nothing to the aligned rate; for GELU (z Φ(z)) the two differ
    at order v² (their difference's Taylor coefficient is computed, not assumed)."""
    z = sp.Symbol("z", real=True)
    v = sp.Symbol("v", positive=True)
    density = sp.exp(-z**2 / (2 * v)) / sp.sqrt(2 * sp.pi * v)
    relu_mean = sp.integrate(z**2 * density, (z, 0, sp.oo))
    relu_deviation = v * sp.integrate(density, (z, 0, sp.oo))
    neutral = sp.simplify(relu_mean - relu_deviation) == 0
    # GELU to second order in z: φ(z) = z/2 + z²/√(2π) + O(z⁴), φ′(z) = 1/2 + 2z/√(2π) + …
    phi = z / 2 + z**2 / sp.sqrt(2 * sp.pi)
    phi_prime = sp.diff(phi, z)
    gaussian = sp.integrate  # E over N(0, v) of a polynomial
    mean = gaussian(phi**2 * density, (z, -sp.oo, sp.oo))
    deviation = v * gaussian(phi_prime**2 * density, (z, -sp.oo, sp.oo))
    # E φ² − v E φ′² = 3v²/(2π) − 4v²/(2π) = −v²/(2π): the deviations gain more
    gelu_below = sp.simplify(mean - deviation + v**2 / (2 * sp.pi)) == 0
    return bool(neutral and gelu_below)


def preln_law_expression() -> sp.Expr:
    """The log-odds of an aligned pre-norm stack against depth [derived].

    A pre-norm block adds its branches to the stream without normalising it: each
    branch reads the normalised tokens (squared norm d), so per block the mean token's
    squared norm per coordinate grows by A = k(β² + γ_m) (the attention, near-uniform,
    adds a common vector; the FFN its mean part) and the deviations' by B times their
    share, B = k(β² s² + γ_d). With σ the stream's squared norm per coordinate and λ
    the log-odds ln(‖ΠX‖²/‖(I − Π)X‖²), once aligned (t_sim → 1, σ ≈ ‖ΠX‖²/(nd)),

        dσ/dℓ = A,     dλ/dℓ = (A − B)/σ,

    so σ(ℓ) = σ₀ + Aℓ and λ(ℓ) = λ₀ + (1 − B/A) ln(1 + Aℓ/σ₀): the log-odds grow like
    the logarithm of the stream's norm, with coefficient κ = 1 − B/A, and the slope
    falls like 1/(σ₀ + Aℓ) (:func:`confirm_preln_law` solves the system). GPT-2's
    projections at σ/√(2L) divide A and B by 2L: the stream then grows by a total
    independent of L, and so does the log-odds' rise. A depth-scaled residual (α = 1,
    branch β/√L: CompleteP, depth-µP) does the same. Before alignment, the Gram
    recursion of :mod:`~attndepth.simulations.models.gram_recursion` gives the law.

    Returns
    -------
    sympy.Expr
        λ(ℓ) in ℓ, σ₀, λ₀, A and B.
    """
    A, B = mean_rise_symbol, deviation_rise_symbol
    return odds_start + (1 - B / A) * sp.log(1 + A * depth_symbol / stream_start)


@proof_cache
def confirm_preln_law() -> bool:
    """SymPy: λ(ℓ) of :func:`preln_law_expression` solves dλ/dℓ = (A − B)/(σ₀ + Aℓ) with
    λ(0) = λ₀, and its late/early slope ratio over [0, ℓ₁] and [ℓ₂, ℓ₃] is that of
    1/(σ₀ + Aℓ) (no longer 1, as for linear escalation)."""
    A, B, ell = mean_rise_symbol, deviation_rise_symbol, depth_symbol
    law = preln_law_expression()
    solves = sp.simplify(sp.diff(law, ell) - (A - B) / (stream_start + A * ell)) == 0
    starts = sp.simplify(law.subs(ell, 0) - odds_start) == 0
    function = sp.Function("lam")
    solved = sp.dsolve(sp.Eq(function(ell).diff(ell), (A - B) / (stream_start + A * ell)),
                       function(ell), ics={function(0): odds_start})
    same = sp.simplify(sp.expand_log(solved.rhs - law, force=True)) == 0
    return bool(solves and starts and same)


def preln_law_coefficient(attention_gain: float, mean_gain: float, deviation_gain: float,
                          s: float = 0.0) -> float:
    """κ = 1 − B/A of :func:`preln_law_expression`: the log-odds' growth per unit of
    ln(stream norm²) once aligned.

    Parameters
    ----------
    attention_gain, mean_gain, deviation_gain : float >= 0
        β², γ_m and γ_d (the normaliser's k cancels in B/A).
    s : float >= 0
        The attention's diversity contraction (0: uniform attention).

    Returns
    -------
    float
    """
    for name, value in (("attention_gain", attention_gain), ("mean_gain", mean_gain),
                        ("deviation_gain", deviation_gain), ("s", s)):
        check_real(name, value, minimum=0)
    rise = attention_gain + mean_gain
    if rise <= 0:
        raise InvalidParameter("a pre-norm block with no branch gain has no law "
                               "(attention_gain + mean_gain must be > 0)")
    return 1 - (attention_gain * s * s + deviation_gain) / rise
