"""The curse of depth at initialisation: variance growth and near-identity blocks.

Sun et al. 2025, "The Curse of Depth in Large Language Models" (arXiv 2502.05795)
[paper]: in a pre-LN transformer, x_{ℓ+1} = x_ℓ + F_ℓ(LN(x_ℓ)), the output variance
grows with depth, Θ(L) ≤ σ²_{x_L} ≤ Θ(exp L) (§3, their Lemma), so that the
derivative of a deep block approaches the identity and the block "barely contributes";
LayerNorm scaling (LNS, §4) reads LN(x_ℓ)/√ℓ instead, which they show slows the
growth. Their statements are about trained models (the weights grow in training); the
part that can be checked at initialisation is how the variance grows and how close a
block's Jacobian is to the identity.

The growth law [derived]. Let D_ℓ = E‖x_ℓ‖²/(nd) and s_ℓ the input scale of block ℓ
(s_ℓ = 1 in pre-LN, 1/√ℓ with LNS). Each branch ends in its own zero-mean output
matrix, independent of x_ℓ, so E⟨x_ℓ, F_ℓ⟩ = 0 and

    D_ℓ − D_{ℓ−1} = s_ℓ² c_ℓ,     c_ℓ = 1 + a_ℓ,   a_ℓ ∈ [0, 1]:

the He-initialised ReLU feed-forward branch adds exactly s_ℓ² (it is positively
homogeneous and LN's rows have mean square 1), the attention branch s_ℓ² a_ℓ with a_ℓ
the mean square of a convex combination of LN rows (≤ 1; it rises as tokens align).
With c_ℓ ≈ c,

    pre-LN: D_L − D_0 = c L,        log₂ (D_{2L} − D_0)/(D_L − D_0) = 1,
    LNS:    D_L − D_0 = c H_L,      log₂ (D_{2L} − D_0)/(D_L − D_0) = log₂ H_{2L}/H_L,

H_L the harmonic number (:func:`growth_exponent`; SymPy: :func:`confirm_growth_laws`):
linear — the paper's lower bound Θ(L) — and logarithmic, not exponential.

Near-identity [derived]. Block ℓ's Jacobian is J_ℓ = I + s_ℓ F_ℓ'(s_ℓ LN x) LN'(x_ℓ),
and LN' scales as 1/σ_ℓ, σ_ℓ = √D_{ℓ−1} the rms of the block's input. With δ_ℓ =
‖(J_ℓ − I)u‖/‖u‖ for a random direction u (the root mean square of J_ℓ − I's
singular values),

    δ_ℓ ≈ k s_ℓ / σ_ℓ                                              (**)

(k constant while the attention's sharpness is). Deep pre-LN blocks approach the
identity as ℓ^(−½) (:func:`jacobian_exponent`), and at the same depth LNS changes δ by

    δ_LNS / δ_pre = s_ℓ √(D^pre_{ℓ−1} / D^LNS_{ℓ−1})   (:func:`lns_jacobian_ratio`):

with c_ℓ ≈ c this is 1/√ℓ · √(ℓ/H_{ℓ−1}) = H_{ℓ−1}^(−½) < 1: the factor 1/√ℓ outweighs
the smaller variance, so at initialisation LNS brings deep blocks *closer* to the
identity, not further from it.

Where it breaks. c_ℓ drifts: a_ℓ rises from about 1/n to 1 as the tokens align, so
the pre-LN exponent exceeds 1 at finite depth (measured +0.02 to +0.2, theory document
§5); without the feed-forward branch (attention only) a_ℓ is all of c_ℓ and the drift
is large (the LNS exponent at L = 32: 0.48 against the law's 0.23). k changes with the
attention's sharpness: LNS divides the logits by ℓ.
"""

from __future__ import annotations

import math

import sympy as sp

from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_choice, check_int, check_real

#: The two block inputs compared: pre-LN, N(x); LayerNorm scaling, N(x)/√ℓ.
SCALINGS: tuple[str, ...] = ("pre-LN", "LNS")


def input_scale(scaling: str, block: int) -> float:
    """s_ℓ: the factor on block ℓ's normalised input (1, or 1/√ℓ with LNS).

    Parameters
    ----------
    scaling : one of :data:`SCALINGS`.
    block : ℓ ≥ 1, the block's position (Sun et al. 2025, arXiv 2502.05795, §4).

    Returns
    -------
    float
    """
    scaling = check_choice("scaling", scaling, SCALINGS)
    block = check_int("block", block, minimum=1)
    return 1.0 if scaling == "pre-LN" else block ** -0.5


def growth_sum(power: float, depth: int) -> float:
    """Σ_{ℓ=1}^{L} ℓ^(−p): the growth D_L − D_0 in units of c when s_ℓ² = ℓ^(−p).

    Parameters
    ----------
    power : p (0 pre-LN, 1 LNS, ½ the rival that scales the variance by 1/√ℓ).
    depth : L ≥ 1.

    Returns
    -------
    float
    """
    depth = check_int("depth", depth, minimum=1)
    return math.fsum(ell ** -power for ell in range(1, depth + 1))


def growth_exponent(scaling: str, depth: int) -> float:
    """log₂ (D_{2L} − D_0)/(D_L − D_0) of the growth law: 1 (pre-LN), log₂ H_{2L}/H_L (LNS).

    Parameters
    ----------
    scaling : one of :data:`SCALINGS`.
    depth : L ≥ 1 (the stacks run to 2L).

    Returns
    -------
    float
    """
    power = 0.0 if check_choice("scaling", scaling, SCALINGS) == "pre-LN" else 1.0
    return power_exponent(power, depth)


def power_exponent(power: float, depth: int) -> float:
    """log₂ Σ_{ℓ≤2L} ℓ^(−p) / Σ_{ℓ≤L} ℓ^(−p): the growth exponent when s_ℓ² = ℓ^(−p)."""
    power = check_real("power", power)
    return math.log2(growth_sum(power, 2 * depth) / growth_sum(power, depth))


def exponential_exponent(relative_variance: float) -> float:
    """The rival Θ(exp L) (the paper's upper bound) at the rate the first L blocks show.

    D_ℓ = D_0 e^{κℓ} gives (D_{2L} − D_0)/(D_L − D_0) = e^{κL} + 1 = D_L/D_0 + 1.

    Parameters
    ----------
    relative_variance : D_L / D_0 measured.

    Returns
    -------
    float
        log₂(D_L/D_0 + 1).
    """
    return math.log2(check_real("relative_variance", relative_variance, 0.0,
                                strict_minimum=True) + 1.0)


def jacobian_exponent(scaling: str, depth: int, variance_ratio: float) -> float:
    """log₂ δ_{2L}/δ_L by (**): log₂ (s_{2L}/s_L) − ½ log₂ (σ²_{2L}/σ²_L).

    Parameters
    ----------
    scaling : one of :data:`SCALINGS`.
    depth : L ≥ 1.
    variance_ratio : D_{2L−1}/D_{L−1}, the mean squares of the two blocks' inputs.

    Returns
    -------
    float
    """
    scale = input_scale(scaling, 2 * depth) / input_scale(scaling, depth)
    variance_ratio = check_real("variance_ratio", variance_ratio, 0.0, strict_minimum=True)
    return math.log2(scale) - 0.5 * math.log2(variance_ratio)


def lns_jacobian_ratio(block: int, pre_variance: float, lns_variance: float) -> float:
    """δ_LNS/δ_pre at block ℓ by (**): s_ℓ √(D^pre_{ℓ−1}/D^LNS_{ℓ−1}).

    Parameters
    ----------
    block : ℓ ≥ 1.
    pre_variance, lns_variance : the mean square of block ℓ's input in each stack.

    Returns
    -------
    float
    """
    pre_variance, lns_variance = (check_real(name, value, 0.0, strict_minimum=True)
                                  for name, value in (("pre_variance", pre_variance),
                                                      ("lns_variance", lns_variance)))
    return input_scale("LNS", block) * math.sqrt(pre_variance / lns_variance)


@proof_cache
def confirm_growth_laws() -> bool:
    """SymPy: Σ_{ℓ≤L} c = cL doubles with L, Σ_{ℓ≤L} c/ℓ = c H_L; H_{2L} − H_L → ln 2, so
    the LNS exponent log₂ H_{2L}/H_L → 0 (logarithmic growth); and the exponential rival
    c e^{κℓ} gives (D_{2L} − D_0)/(D_L − D_0) = D_L/D_0 + 1."""
    c, kappa = sp.symbols("c kappa", positive=True)
    L = sp.Symbol("L", positive=True, integer=True)
    ell = sp.Symbol("ell", positive=True, integer=True)
    linear = sp.simplify(sp.summation(c, (ell, 1, 2 * L)) / sp.summation(c, (ell, 1, L))) == 2
    harmonic = sp.simplify(sp.summation(c / ell, (ell, 1, L)) - c * sp.harmonic(L)) == 0
    gap = sp.limit(sp.harmonic(2 * L) - sp.harmonic(L), L, sp.oo) == sp.log(2)
    vanishing = sp.limit(sp.log(sp.harmonic(2 * L) / sp.harmonic(L)), L, sp.oo) == 0
    D = sp.exp(kappa * L)  # D_L/D_0 of the exponential rival
    exponential = sp.simplify((sp.exp(2 * kappa * L) - 1) / (D - 1) - (D + 1)) == 0
    return bool(linear and harmonic and gap and vanishing and exponential)


@proof_cache
def confirm_jacobian_law() -> bool:
    """SymPy: (**)'s two steps. LayerNorm's Jacobian is homogeneous of degree −1
    (J(t x) = J(x)/t for t > 0; checked on a symbolic 3-vector), so a block reading
    s LN(x) departs from the identity by s/σ; and with D^pre = cℓ, D^LNS = cH the LNS ratio
    s_ℓ √(D^pre/D^LNS) is H^(−½)."""
    t = sp.Symbol("t", positive=True)
    x = sp.Matrix(sp.symbols("x0:3", real=True))

    def layer_norm(v: sp.Matrix) -> sp.Matrix:
        centred = v - sp.ones(3, 1) * (sum(v) / 3)
        return centred / sp.sqrt(sum(c**2 for c in centred) / 3)

    jacobian = layer_norm(x).jacobian(x)
    scaled = jacobian.subs({xi: t * xi for xi in x}, simultaneous=True)
    # cancel: a rational normal form in x, t and the radical (0 only for an identity
    # that holds); a quarter of simplify's time
    homogeneous = (scaled - jacobian / t).applyfunc(sp.cancel) == sp.zeros(3, 3)
    c, ell, harmonic = sp.symbols("c ell H", positive=True)
    ratio = sp.simplify(ell ** sp.Rational(-1, 2) * sp.sqrt(c * ell / (c * harmonic))
                        - harmonic ** sp.Rational(-1, 2)) == 0
    return bool(homogeneous and ratio)
