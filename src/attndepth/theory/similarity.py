"""Token similarity under self-attention (Yu & Zhang 2023, docs/theory.md §3).

Notation: n tokens as the rows of X (n × d); P row-stochastic (P1 = 1);
Π = 11ᵀ/n; t_sim(X) = ‖ΠX‖_F²/‖X‖_F², t_div = 1 − t_sim.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import sympy as sp

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int, check_positive, check_real


def mean_projector(tokens: int) -> sp.Matrix:
    """Π = 11ᵀ/n (n × n): orthogonal projector onto span{1}."""
    n = check_int("tokens", tokens, minimum=1)
    return sp.ones(n, n) / n


def leading_basis(tokens: int) -> sp.Matrix:
    """Orthonormal Q = [1/√n, U] (n × n): the Helmert basis.

    Column 0 is 1/√n; column k ≥ 1 is (1, …, 1, −k, 0, …)/√(k(k+1)) with k
    ones, orthogonal to 1 and to each other.
    """
    n = check_int("tokens", tokens, minimum=1)
    columns = [sp.ones(n, 1) / sp.sqrt(n)]
    for k in range(1, n):
        column = sp.zeros(n, 1)
        for row in range(k):
            column[row] = 1
        column[k] = -k
        columns.append(column / sp.sqrt(k * (k + 1)))
    return sp.Matrix.hstack(*columns)


def generic_row_stochastic(tokens: int, name: str = "p") -> sp.Matrix:
    """A row-stochastic n × n matrix with generic symbolic entries.

    Entry (i, j) for j < n−1 is a free symbol p_ij; the last entry of each row
    is 1 − (the others), so P1 = 1 holds identically.
    """
    n = check_int("tokens", tokens, minimum=1)
    P = sp.zeros(n, n)
    for i in range(n):
        free = sp.symbols(f"{name}_{i}_0:{n - 1}") if n > 1 else ()
        for j, symbol in enumerate(free):
            P[i, j] = symbol
        P[i, n - 1] = 1 - sum(free)
    return P


def invariant_eigenspace_form(P: sp.Matrix) -> sp.Matrix:
    """QᵀPQ in the basis Q = [1/√n, U], simplified.

    Lemma (Yu & Zhang 2023; docs/theory.md §3). If P1 = 1 then PQe₁ = Qe₁, so the
    first column of QᵀPQ is e₁: QᵀPQ = [[1, ⋆], [0, UᵀPU]] is block upper
    triangular, and (I − Π)PX = (I − Π)P(I − Π)X (the diversity part evolves
    by the compressed matrix UᵀPU alone).
    """
    Q = leading_basis(P.shape[0])
    return (Q.T * P * Q).applyfunc(sp.simplify)


@proof_cache
def confirm_invariant_eigenspace(tokens: int) -> bool:
    """Prove the lemma for generic row-stochastic P of size n, symbolically.

    Returns True when the first column of QᵀPQ is exactly e₁ and
    (I−Π)P − (I−Π)P(I−Π) vanishes identically.
    """
    P = generic_row_stochastic(tokens)
    n = P.shape[0]
    form = invariant_eigenspace_form(P)
    first_column_is_e1 = all(sp.simplify(form[i, 0] - (1 if i == 0 else 0)) == 0 for i in range(n))
    centre = sp.eye(n) - mean_projector(n)
    compressed = (centre * P - centre * P * centre).applyfunc(sp.simplify)
    return first_column_is_e1 and compressed == sp.zeros(n, n)


# --------------------------------------------------------------------------
# One-step contraction bounds (docs/theory.md §3) for r = ‖(I−Π)X‖_F / ‖ΠX‖_F
# --------------------------------------------------------------------------

r_in, sigma2, leakage, kappa = sp.symbols("r sigma_2 ell kappa", nonnegative=True)


def contraction_bound_expression(kind: str) -> sp.Expr:
    """r′ ≤ bound(r) for one attention map X′ = P X W (single head).

    ``doubly-stochastic`` (Pᵀ1 = 1, W orthogonal): ΠX′ = ΠXW keeps its norm
    and (I−Π)X′ = (I−Π)P(I−Π)XW by the invariant-eigenspace lemma, so
    r′ ≤ σ₂ r with σ₂ = ‖(I−Π)P(I−Π)‖₂.

    ``row-stochastic`` (W orthogonal): ΠX′ = (ΠX + ΠP(I−Π)X)W and
    ΠP(I−Π) = (1/n)·1(Pᵀ1 − 1)ᵀ(I−Π), whose norm on (I−Π)X is at most
    ℓ = ‖Pᵀ1 − 1‖/√n. So ‖ΠX′‖ ≥ ‖ΠX‖(1 − ℓr) and r′ ≤ σ₂r/(1 − ℓr) when ℓr < 1.

    ``general`` (any invertible W): norms change by at most ‖W‖₂ and at least
    σ_min(W), so r′ ≤ κ(W) σ₂ r/(1 − ℓr).
    """
    forms = {
        "doubly-stochastic": sigma2 * r_in,
        "row-stochastic": sigma2 * r_in / (1 - leakage * r_in),
        "general": kappa * sigma2 * r_in / (1 - leakage * r_in),
    }
    if kind not in forms:
        raise InvalidParameter(f"kind must be one of {', '.join(forms)}; got {kind!r}")
    return forms[kind]


def multihead_contraction_bound(r: float, sigma2_heads: list[float], leakage_heads: list[float],
                                norm_heads: list[float], smallest_singular_sum: float) -> float:
    """r′ bound for X′ = Σ_h P_h X W_h (any heads; returns inf when vacuous).

    (I−Π)X′ = Σ_h (I−Π)P_h(I−Π)X W_h, so ‖(I−Π)X′‖ ≤ Σ_h σ₂,h‖W_h‖₂ ‖(I−Π)X‖;
    ΠX′ = ΠX·ΣW_h + Σ_h ΠP_h(I−Π)X W_h, so
    ‖ΠX′‖ ≥ σ_min(Σ_h W_h)‖ΠX‖ − Σ_h ℓ_h‖W_h‖₂‖(I−Π)X‖. Dividing:

        r′ ≤ r·Σ_h σ₂,h‖W_h‖₂ / (σ_min(Σ_h W_h) − r·Σ_h ℓ_h‖W_h‖₂).

    With one head it reads κσ₂r/(1 − κℓr): the single-head 'general' bound of
    :func:`contraction_bound_expression`, κσ₂r/(1 − ℓr), is tighter (it factors
    W out of ΠX′ before bounding the leakage); they agree when κ = 1.
    """
    numerator = r * sum(s * w for s, w in zip(sigma2_heads, norm_heads, strict=True))
    denominator = smallest_singular_sum - r * sum(
        ell * w for ell, w in zip(leakage_heads, norm_heads, strict=True))
    return numerator / denominator if denominator > 0 else float("inf")


@proof_cache
def confirm_contraction_identity(tokens: int = 3) -> bool:
    """Symbolic check of ΠP(I−Π) = (1/n)·1(Pᵀ1 − 1)ᵀ(I−Π) for generic row-stochastic P."""
    P = generic_row_stochastic(tokens)
    n = P.shape[0]
    Pi, ones = mean_projector(n), sp.ones(n, 1)
    centre = sp.eye(n) - Pi
    left = Pi * P * centre
    right = ones * (P.T * ones - ones).T * centre / n
    return (left - right).applyfunc(sp.simplify) == sp.zeros(n, n)


# --------------------------------------------------------------------------
# Rates of escalation
# --------------------------------------------------------------------------

lambda2 = sp.Symbol("lambda_2", positive=True)
s_realised, width_symbol, tau_symbol = sp.symbols("s d tau", positive=True)


def fixed_matrix_rate() -> sp.Expr:
    """Slope of log t_div per layer when one P is applied repeatedly: 2·log|λ₂|.

    X_l = P^l X: (I−Π)X_l = C^l (I−Π)X with C the compressed matrix, whose
    spectral radius is |λ₂(P)| (lemma: spectrum of P = {1} ∪ spectrum of C),
    so ‖(I−Π)X_l‖ ~ |λ₂|^l, while ΠX_l → Π·1πᵀX stays bounded away from 0
    for an ergodic P. Hence log t_div ≈ 2l·log|λ₂| + const. (σ₂ ≥ |λ₂| gives
    only the inequality slope ≥ 2 log σ₂.)
    """
    return 2 * sp.log(lambda2)


def fixed_matrix_slope(lambda2_value: float) -> float:
    """:func:`fixed_matrix_rate` as a number: ``2·log|λ₂|`` per layer.

    Parameters
    ----------
    lambda2_value : float
        |λ₂(P)|, in (0, 1].

    Returns
    -------
    float
        The predicted slope of ``log t_div`` against depth (Yu & Zhang 2023, §3;
        derivation in :func:`fixed_matrix_rate`).
    """
    if isinstance(lambda2_value, bool) or not isinstance(lambda2_value, (int, float)) \
            or not 0 < lambda2_value <= 1:
        raise InvalidParameter(f"lambda2_value must be in (0, 1], got {lambda2_value!r}")
    return float(_fixed_rate_function()(float(lambda2_value)))


@lru_cache(maxsize=1)
def _fixed_rate_function() -> Callable[[float], float]:
    return sp.lambdify(lambda2, fixed_matrix_rate(), modules="math")


alpha_symbol, beta_symbol = sp.symbols("alpha beta", positive=True)

#: Placements with a derived rate (the post-normalised blocks).
RATE_PLACEMENTS: tuple[str, ...] = ("post-ln", "deesc-a", "deesc-b")
#: Normalisers the derivation covers: LayerNorm (centres, so keeps 1 − 1/d of m̄W) and RMSNorm.
RATE_NORM_KINDS: tuple[str, ...] = ("layer", "rms")


def _mean_factor(placement: str, tau, alpha=1, beta=1, norm_kind: str = "layer"
                 ) -> tuple[sp.Expr, sp.Expr]:
    """(E factor, variance) of ‖ΠX‖² for one post-normalised block.

    See :func:`postln_rate_expression`.
    """
    d = width_symbol
    # LN's feature centring removes the 1_d-component of m̄W; RMSNorm does not centre
    keep = 1 - 1 / d if norm_kind == "layer" else 1
    # Var‖m̄W‖²/‖m̄‖² = 4/d for the product W_V W_O (2/d would be one Gaussian matrix)
    if placement == "post-ln":
        return alpha**2 + beta**2 * keep, (4 * alpha**2 * beta**2 + 4 * beta**4) / d
    if placement == "deesc-a":
        c2 = (1 - tau) ** 2
        return (alpha**2 + c2 * beta**2 * keep,
                (4 * alpha**2 * beta**2 * c2 + 4 * beta**4 * c2**2) / d)
    if placement == "deesc-b":
        c2 = (1 - tau) ** 2
        return c2 * (alpha**2 + beta**2 * keep), c2**2 * (4 * alpha**2 * beta**2 + 4 * beta**4) / d
    raise InvalidParameter(f"placement must be one of {', '.join(RATE_PLACEMENTS)}; got "
                           f"{placement!r} (no rate is derived for pre-, peri- or unnormalised "
                           f"blocks)")


def _scaling_share(placement: str, tau, alpha, beta) -> sp.Expr:
    """q: the share of the diversity that the normaliser's per-token scaling removes.

    See :func:`postln_rate_expression`: the radial part of each token's deviation
    along the new mean direction m̄(αI + β′W), with β′ = (1 − τ)β in placement (a)
    and β′ = β otherwise (placement (b) scales the mean, not its direction).
    """
    d = width_symbol
    mean_beta2 = (1 - tau) ** 2 * beta**2 if placement == "deesc-a" else beta**2
    spread = alpha**2 + beta**2 * s_realised**2
    radial = alpha**2 * mean_beta2 + beta**2 * s_realised**2 * (alpha**2 + 2 * mean_beta2)
    return radial / (d * (alpha**2 + mean_beta2) * spread)


def postln_rate_expression(placement: str = "post-ln", tau=tau_symbol, skip_scale=1,
                           residual_scale=1, norm_kind: str = "layer") -> sp.Expr:
    """Expected log-odds slope per layer of a post-LN block with Gaussian W (variance 1/d).

    Derivation (docs/theory.md §3 [derived], one head, W = W_V W_O with entries of
    variance 1/d, P row-stochastic with negligible leakage; X post-LN so
    each token, hence the mean token m̄, has zero feature mean). Split
    X = ΠX + D. Then PX = ΠX + PD (P fixes 1) and, with the skip scale α and
    the branch scale β (α = β = 1: the plain block; α > 1: DeepNorm),

      post-ln:  Π(αX + βPXW) = ΠX(αI + βW) + βΠPDW,   (I−Π)(αX + βPXW) = αD + β(I−Π)PDW.

    E‖m̄W‖² = ‖m̄‖² and E⟨m̄, m̄W⟩ = 0, so E‖ΠX(αI+βW)‖² = (α² + β²)‖ΠX‖²; likewise
    E‖αD + β(I−Π)PDW‖² = ‖D‖²(α² + β²s²) with s = ‖(I−Π)PD‖/‖D‖ ≤ σ₂. LN's
    centring C = I − 11ᵀ/d acts on the right and removes the 1_d-component of
    m̄W (expected share 1/d): factors α² + β²(1 − 1/d) and α² + β²s²(1 − 1/d);
    RMSNorm does not centre (factor 1 in place of 1 − 1/d).

    The mean factor is random. The log of a random factor with mean μ and
    variance v has mean ≈ ln μ − v/(2μ²) (second-order Jensen). With u = m̄/‖m̄‖,
    h = uW_V ~ N(0, I/d) and g = hW_O: Var ⟨u, g⟩ = 1/d and Var ‖g‖² =
    E‖h‖⁴(1 + 2/d) − 1 = 4/d + O(d⁻²) (the product of two Gaussian matrices;
    one matrix would give 2/d), uncorrelated, so v = (4α²β² + 4β⁴)/d.

    The normaliser's per-token scaling is first order in 1/d too (both LayerNorm
    and RMSNorm rescale every token to one norm). The tokens before it are
    y_i = c + e_i with the common part c = m̄(αI + βW) and deviations
    e_i = αd_i + β((I−Π)PDW)_i; rescaling maps y_i to ĉ + (e_i − ⟨e_i, ĉ⟩ĉ)/‖c‖,
    so it removes the deviations' radial parts. The previous block left d_i ⊥ m̄,
    so ⟨d_i, c⟩ = β⟨d_i, m̄W⟩ has variance β²‖d_i‖²‖m̄‖²/d, and ⟨(QD)_iW, c⟩
    (Q = (I−Π)P) has variance (α² + 2β²)‖(QD)_i‖²‖m̄‖²/d (E(aWWᵀbᵀ)² = 2/d for
    a ⊥ b with the product W). With ‖c‖² ≈ (α² + β²)‖m̄‖² the removed share of
    the diversity is

        q = [α²β² + β²s²(α² + 2β²)] / (d (α² + β²)(α² + β²s²))

    (1/(2d) at α = β = 1, s = 0), and it raises the log-odds by −ln(1 − q) ≈ q.
    The slope is

        ln(α² + β²(1 − 1/d)) − ln(α² + β²s²(1 − 1/d)) − v/(2μ²) + q,

    with an O(d⁻²) remainder (measured term by term by
    :func:`attndepth.simulations.measures.rate_terms.postln_rate_terms`). It
    at α = β = 1 tends to ln 2 (d → ∞, s → 0), the statement "tends to
    ln 2" (a limit, not the finite-width rate). It depends on β/α only (the
    normaliser is scale invariant) and falls like β²(1 − s²)/α² as α grows.
    De-escalation multiplies the update's mean by c = 1 − τ: placement (a)
    N(αX + (I−τΠ)βPXW) gives mean factor α² + c²β²(1 − 1/d); placement (b)
    N((I−τΠ)(αX + βPXW)) scales the whole mean, factor c²(α² + β²(1 − 1/d)).
    The diversity factor is unchanged, and so is q except that in placement (a)
    the mean's direction is m̄(αI + (1 − τ)βW) (β² → (1 − τ)²β² in q's mean part).
    Valid while the leakage term ΠPDW is small against ΠX, i.e. once tokens
    align.
    """
    if norm_kind not in RATE_NORM_KINDS:
        raise InvalidParameter(f"norm_kind must be one of {', '.join(RATE_NORM_KINDS)}; "
                               f"got {norm_kind!r}")
    alpha, beta = skip_scale, residual_scale
    mean, variance = _mean_factor(placement, tau, alpha, beta, norm_kind)
    keep = 1 - 1 / width_symbol if norm_kind == "layer" else 1
    diversity = alpha**2 + beta**2 * s_realised**2 * keep
    return (sp.log(mean) - sp.log(diversity) - variance / (2 * mean**2)
            + _scaling_share(placement, tau, alpha, beta))


def postln_rate(s: float, width: int, placement: str = "post-ln", tau: float = 1.0,
                skip_scale: float = 1.0, residual_scale: float = 1.0,
                norm_kind: str = "layer") -> float:
    """:func:`postln_rate_expression` as a number: the expected log-odds slope per layer.

    The one numeric form of the derived rate; claims, figures and tests all
    call it (it lambdifies the SymPy expression once per placement, τ and kind).

    Parameters
    ----------
    s : float
        Realised diversity contraction ‖(I−Π)PD‖/‖D‖ ≥ 0 of the layer.
    width : int
        d ≥ 2.
    placement : {"post-ln", "deesc-a", "deesc-b"}
        Plain post-normalised block, or de-escalation inside (a) / around (b)
        the residual. Pre-, peri- and unnormalised blocks have no derived rate
        (an error says so).
    tau : float
        De-escalation strength in [0, 1] (ignored for ``"post-ln"``).
    skip_scale, residual_scale : float
        α and β > 0 of X ← N(αX + βF(X)) (``StackConfig.skip_scale`` and
        ``residual_scale``; DeepNorm: α > 1).
    norm_kind : {"layer", "rms"}
        LayerNorm or RMSNorm.

    Returns
    -------
    float
        ``ln μ − ln(α² + β²s²k) − v/(2μ²)`` with k = 1 − 1/d (LayerNorm) or 1
        (RMSNorm) (derivation: :func:`postln_rate_expression`); ``-inf`` when
        the mean factor μ vanishes (τ = 1 in placement b: the mean token is
        removed entirely).
    """
    width = check_int("width", width, minimum=2)
    check_real("s", s, minimum=0)
    check_real("tau", tau, minimum=0, maximum=1)
    check_positive("skip_scale", skip_scale)
    check_positive("residual_scale", residual_scale)
    if norm_kind not in RATE_NORM_KINDS:
        raise InvalidParameter(f"norm_kind must be one of {', '.join(RATE_NORM_KINDS)}; "
                               f"got {norm_kind!r}")
    tau = 1.0 if placement == "post-ln" else float(tau)
    mean, _ = _mean_factor(placement, tau, float(skip_scale), float(residual_scale), norm_kind)
    if float(sp.sympify(mean).subs(width_symbol, width)) == 0:
        return -math.inf
    function = _postln_rate_function(placement, tau, norm_kind)
    return float(function(float(s), width, float(skip_scale), float(residual_scale)))


def scaling_share(s: float, width: int, placement: str = "post-ln", tau: float = 1.0,
                  skip_scale: float = 1.0, residual_scale: float = 1.0) -> float:
    """q, the log-odds the normaliser's per-token scaling adds per layer [derived].

    The last term of :func:`postln_rate_expression`:
    q = [α²β′² + β²s²(α² + 2β′²)] / (d (α² + β′²)(α² + β²s²)), β′ = (1 − τ)β in
    placement (a), β otherwise; 1/(2d) for the plain block at s = 0. The same
    for LayerNorm and RMSNorm (both rescale every token).

    Parameters
    ----------
    s, width, placement, tau, skip_scale, residual_scale
        As for :func:`postln_rate`.

    Returns
    -------
    float
    """
    postln_rate(s, width, placement, tau, skip_scale, residual_scale)  # checks the arguments
    tau = 1.0 if placement == "post-ln" else float(tau)
    function = _scaling_share_function(placement, tau)
    return float(function(float(s), width, float(skip_scale), float(residual_scale)))


@lru_cache(maxsize=64)
def _scaling_share_function(placement: str, tau: float
                            ) -> Callable[[float, int, float, float], float]:
    expression = _scaling_share(placement, sp.Float(tau), alpha_symbol, beta_symbol)
    return sp.lambdify((s_realised, width_symbol, alpha_symbol, beta_symbol), expression,
                       modules="math")


@lru_cache(maxsize=64)
def _postln_rate_function(placement: str, tau: float, norm_kind: str
                          ) -> Callable[[float, int, float, float], float]:
    expression = postln_rate_expression(placement, sp.Float(tau), alpha_symbol, beta_symbol,
                                        norm_kind)
    return sp.lambdify((s_realised, width_symbol, alpha_symbol, beta_symbol), expression,
                       modules="math")


def rate_arguments(config) -> dict:
    """The :func:`postln_rate` arguments of a stack's block, or an error where none is derived.

    Parameters
    ----------
    config : :class:`~attndepth.simulations.models.stacks.StackConfig`

    Returns
    -------
    dict with ``placement``, ``tau``, ``skip_scale``, ``residual_scale``, ``norm_kind``.

    Raises
    ------
    InvalidParameter
        For blocks outside the derivation: no skip path, a normalisation
        placement other than post, or a feed-forward or user sublayer (the
        derivation has one attention branch per block).
    """
    block = config.block
    missing = [reason for reason, present in (
        ("no skip path", not block.skip),
        (f"normalisation placement {block.norm!r} (derived for 'post' only)",
         block.norm != "post"),
        ("a feed-forward sublayer", config.ffn),
        ("a user sublayer", config.sublayer is not None)) if present]
    if missing:
        raise InvalidParameter(f"no derived rate for this block: {'; '.join(missing)} "
                               f"(attndepth.theory.similarity.postln_rate_expression)")
    placement = {"none": "post-ln", "branch": "deesc-a", "sum": "deesc-b"}[block.deescalation]
    return {"placement": placement, "tau": block.tau, "skip_scale": block.skip_scale,
            "residual_scale": block.residual_scale, "norm_kind": block.norm_kind}


@proof_cache
def confirm_rate_limit() -> bool:
    """The post-LN rate tends to ln 2 as d → ∞ and s → 0 (SymPy limit)."""
    rate = postln_rate_expression("post-ln")
    limit = sp.limit(sp.limit(rate, width_symbol, sp.oo), s_realised, 0)
    return sp.simplify(limit - sp.log(2)) == 0


# --------------------------------------------------------------------------
# De-escalation algebra and LayerNorm
# --------------------------------------------------------------------------


@proof_cache
def confirm_deescalation_algebra(tokens: int = 3) -> bool:
    """Π(I − τΠ) = (1 − τ)Π and (I−Π)(I − τΠ) = I − Π, symbolically in τ.

    So (I − τΠ) scales the mean part by 1 − τ and leaves the diversity part
    unchanged; τ = 1 removes ΠX exactly: Π(I − Π)X = 0.
    """
    n = check_int("tokens", tokens, minimum=1)
    Pi, I = mean_projector(n), sp.eye(n)
    remove = I - tau_symbol * Pi
    first = (Pi * remove - (1 - tau_symbol) * Pi).applyfunc(sp.simplify)
    second = ((I - Pi) * remove - (I - Pi)).applyfunc(sp.simplify)
    return first == sp.zeros(n, n) and second == sp.zeros(n, n)


@proof_cache
def confirm_centring_commutes(tokens: int = 3, width: int = 3) -> bool:
    """LN's centring acts on the right: Π(XC) = (ΠX)C for symbolic X (n × d)."""
    X = sp.Matrix(tokens, width, sp.symbols(f"x_0:{tokens * width}"))
    C = sp.eye(width) - sp.ones(width, width) / width
    Pi = mean_projector(tokens)
    return ((Pi * (X * C)) - (Pi * X) * C).applyfunc(sp.expand) == sp.zeros(tokens, width)


def scaling_commutator_norm(tokens: int = 3) -> bool:
    """‖[Π, diag(c)]‖₂ = std(c) (population), checked symbolically for size n.

    [Π, diag(c)] = (1/n)(1cᵀ − c1ᵀ) = (1/n)(1vᵀ − v1ᵀ) with v = c − c̄1 ⊥ 1, a
    rank-2 antisymmetric matrix with singular values ‖1‖‖v‖/n = ‖v‖/√n
    (twice). So LN's per-token scaling D⁻¹ = diag(1/σ_i) fails to commute
    with Π by exactly the spread of the inverse token scales.
    Returns True when the largest eigenvalue of KᵀK equals ‖v‖²/n.
    """
    n = check_int("tokens", tokens, minimum=1)
    c = sp.Matrix(sp.symbols(f"c_0:{n}", real=True))
    Pi = mean_projector(n)
    K = Pi * sp.diag(*c) - sp.diag(*c) * Pi
    v = c - sp.ones(n, 1) * (sum(c) / n)
    gram = (K.T * K).applyfunc(sp.expand)
    # K v̂ and K 1̂ span the range; KᵀK acts on span{1, v} as (‖v‖²/n)·I.
    target = (v.T * v)[0, 0] / n
    image_v = (gram * v - target * v).applyfunc(sp.simplify)
    image_1 = (gram * sp.ones(n, 1) - target * sp.ones(n, 1)).applyfunc(sp.simplify)
    trace_ok = sp.simplify(gram.trace() - 2 * target) == 0  # rank 2, both values equal
    return image_v == sp.zeros(n, 1) and image_1 == sp.zeros(n, 1) and trace_ok
