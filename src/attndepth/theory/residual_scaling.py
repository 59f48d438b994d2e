"""Residual scaling and token alignment at initialisation (Noci et al. 2022).

Noci, Anagnostidis, Biggio, Orvieto, Singh & Lucchi 2022, "Signal propagation
in transformers: theoretical perspectives and the role of rank collapse"
(arXiv 2206.03126) [paper]: at initialisation, without a depth-dependent
scaling of the residual branches, the cosine between tokens rises towards 1
with depth; with the branches scaled by 1/√L it stays bounded away from 1.
Their analysis assumes *uniform attention*, A = Π = 11ᵀ/n (attention logits
of small variance, e.g. a large softmax temperature).

The one-layer recursion [derived]. A residual block with branch scale α is
X′ = X + α A X W with W = W_V W_O, the product of two Gaussian matrices of
variance 1/d (E W = 0, E W Wᵀ = I). Write X = 1mᵀ + R with m the mean token
and R = (I − Π)X. With A = Π:

    (I − Π) X′ = R                 (the spread of the tokens is unchanged),
    m′ᵀ = mᵀ (I + α W),   E|m′|² = |m|² (1 + α²).

Both identities are exact algebra (:func:`confirm_uniform_attention_recursion`).
Token similarity t_sim = ‖ΠX‖_F²/‖X‖_F² = n|m|²/(n|m|² + ‖R‖_F²), so its
log-odds ℓ = ln(t_sim/(1 − t_sim)) = ln(n|m|²/‖R‖_F²) grows per layer by
ln Y, Y = |m′|²/|m|², with E Y = 1 + α². In the limit d → ∞ (Y → 1 + α²)
this gives over L layers

    ℓ_L − ℓ_0 = L ln(1 + α²)                                  (*)

(:func:`log_odds_growth`), the infinite-width law.

The finite-width term [derived]. The growth is E ln Y, not ln E Y. With
u = m/|m|, h = uᵀW_V ~ N(0, I/d) and g = hW_O (given h, g ~ N(0, |h|² I/d)):
Y = 1 + 2α u·g + α²|g|², E(u·g)² = E|h|²/d = 1/d, E[(u·g)|g|²] = 0 (odd in
W_O), E|g|⁴ = E|h|⁴ (1 + 2/d) = (1 + 2/d)² (|h|² ~ χ²_d/d). So
Var Y = 4α²/d + α⁴(4/d + 4/d²), and expanding ln Y about E Y (the third
central moment is O(d⁻²))::

    E ln Y = ln(1 + α²) − Var Y/(2(1 + α²)²) + O(d⁻²)
           = ln(1 + α²) − 2α²/(d(1 + α²)) + O(d⁻²),
    ℓ_L − ℓ_0 = L [ln(1 + α²) − 2α²/(d(1 + α²))]              (**)

(:func:`finite_width_growth`; SymPy: :func:`confirm_finite_width_term`). The
term is O(α²/d), not O(α⁴/d): relative to ln(1 + α²) it is −1/(d ln 2) at
α = 1 and tends to −2/d as α → 0, so no scaling of the branch removes it.
With a single Gaussian W in place of the product W_V W_O, E|g|⁴ = 1 + 2/d
and the term is α²(2 + α²)/(d(1 + α²)²) (3/(4d) at α = 1).

Hence [derived, under uniform attention]:
α = 1: ℓ grows like L ln 2 without bound, t_sim → 1, all tokens align;
α = 1/√L: the growth tends to lim L ln(1 + 1/L) = 1, so t_sim stays below
e·odds₀/(1 + e·odds₀); α = 1/L: the growth tends to 0
(:func:`limit_of_growth`, SymPy). The mean pairwise cosine of tokens of
equal norm is (n t_sim − 1)/(n − 1) (:func:`cosine_from_log_odds`).
"""

from __future__ import annotations

import math

import sympy as sp

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int

#: The three scalings compared, as functions of the depth L.
SCALINGS: dict[str, str] = {"1": "1", "1/sqrt(L)": "1/sqrt(L)", "1/L": "1/L"}
_DEPTH = sp.Symbol("L", positive=True)


def scaling_expression(name: str) -> sp.Expr:
    """α(L) for a scaling name of :data:`SCALINGS` (a SymPy expression in L)."""
    if name not in SCALINGS:
        raise InvalidParameter(f"scaling must be one of {', '.join(SCALINGS)}, got {name!r}")
    return sp.sympify(SCALINGS[name], locals={"L": _DEPTH})


def residual_scale(name: str, depth: int) -> float:
    """α for a scaling name at depth L."""
    return float(scaling_expression(name).subs(_DEPTH, check_int("depth", depth, minimum=1)))


def log_odds_growth(depth: int, scale: float) -> float:
    """ℓ_L − ℓ_0 = L ln(1 + α²) under uniform attention [derived], equation (*).

    Parameters
    ----------
    depth : int
        L ≥ 1 residual blocks.
    scale : float
        α > 0.
    """
    scale = _checked_scale(scale)
    return check_int("depth", depth, minimum=1) * math.log1p(scale * scale)


def _checked_scale(scale: float) -> float:
    """α, or InvalidParameter unless it is a finite real number > 0."""
    if not (isinstance(scale, int | float) and not isinstance(scale, bool)
            and math.isfinite(scale) and scale > 0):
        raise InvalidParameter(f"scale must be a finite number > 0, got {scale!r}")
    return float(scale)


def finite_width_growth(depth: int, scale: float, width: int,
                        product_weights: bool = True) -> float:
    """ℓ_L − ℓ_0 to first order in 1/d under uniform attention [derived], equation (**).

    L [ln(1 + α²) − 2α²/(d(1 + α²))] for value weights W = W_V W_O (the
    stacks'); L [ln(1 + α²) − α²(2 + α²)/(d(1 + α²)²)] for a single Gaussian W
    (``product_weights=False``). The remainder is O(L/d²); see the module
    docstring for the derivation.

    Parameters
    ----------
    depth : int
        L ≥ 1 residual blocks.
    scale : float
        α > 0.
    width : int
        d ≥ 1.
    product_weights : bool
        Whether the branch's value map is the product of two Gaussian matrices.

    Returns
    -------
    float
    """
    growth = log_odds_growth(depth, scale)
    return growth - depth * finite_width_term(scale, width, product_weights)


def finite_width_term(scale: float, width: int, product_weights: bool = True) -> float:
    """The Jensen term of (**): ln E Y − E ln Y per block, to first order in 1/d [derived].

    2α²/(d(1 + α²)) for value weights W = W_V W_O; α²(2 + α²)/(d(1 + α²)²) for
    a single Gaussian W (``product_weights=False``). Under uniform attention
    E Y = 1 + α² exactly, so (**) is L [ln E Y − this term]; the remainder is
    O(1/d²) per block (module docstring).

    Parameters
    ----------
    scale : float
        α > 0.
    width : int
        d ≥ 1.
    product_weights : bool
        Whether the branch's value map is the product of two Gaussian matrices.

    Returns
    -------
    float
    """
    scale = _checked_scale(scale)
    width = check_int("width", width, minimum=1)
    if not isinstance(product_weights, bool):
        raise InvalidType(f"product_weights must be True or False, got {product_weights!r}")
    a2 = scale * scale
    return (2 * a2 / (1 + a2) if product_weights else a2 * (2 + a2) / (1 + a2) ** 2) / width


@proof_cache
def confirm_finite_width_term(product_weights: bool = True) -> bool:
    """SymPy: Var Y/(2(1 + α²)²) from the Gaussian moments equals the term of (**) to O(1/d).

    The fourth moment of |h|² ~ χ²_d/d comes from ``sympy.stats``; the check
    expands the exact Var Y in 1/d and compares its first-order coefficient.
    """
    from sympy.stats import ChiSquared
    from sympy.stats import E as expectation

    alpha, d, eps = sp.symbols("alpha d epsilon", positive=True)
    chi = ChiSquared("chi", d)
    h4 = sp.simplify(expectation(chi**2) / d**2)  # E|h|⁴ = 1 + 2/d
    g4 = h4 * (1 + 2 / d) if product_weights else h4
    variance = 4 * alpha**2 / d + alpha**4 * (g4 - 1)
    term = sp.series((variance / (2 * (1 + alpha**2) ** 2)).subs(d, 1 / eps), eps, 0, 2
                     ).removeO().coeff(eps)
    claimed = (2 * alpha**2 / (1 + alpha**2) if product_weights
               else alpha**2 * (2 + alpha**2) / (1 + alpha**2) ** 2)
    return bool(sp.simplify(term - claimed) == 0 and sp.simplify(h4 - (1 + 2 / d)) == 0)


def limit_of_growth(name: str) -> sp.Expr:
    """lim_{L→∞} L ln(1 + α(L)²): ∞ for α = 1, 1 for 1/√L, 0 for 1/L (SymPy)."""
    return sp.limit(_DEPTH * sp.log(1 + scaling_expression(name) ** 2), _DEPTH, sp.oo)


def cosine_from_log_odds(log_odds: float, tokens: int) -> float:
    """Mean pairwise cosine (n t − 1)/(n − 1) of n tokens of equal norm with log-odds ℓ."""
    tokens = check_int("tokens", tokens, minimum=2)
    similarity = 1.0 / (1.0 + math.exp(-log_odds)) if log_odds > -700 else 0.0
    return (tokens * similarity - 1.0) / (tokens - 1)


@proof_cache
def confirm_uniform_attention_recursion(tokens: int = 3, width: int = 2) -> bool:
    """SymPy: with A = Π, (I − Π)(X + αΠXW) = (I − Π)X and Π(X + αΠXW) = ΠX(I + αW)."""
    if tokens < 2 or width < 1:
        raise InvalidParameter("tokens must be >= 2 and width >= 1")
    x = sp.Matrix(tokens, width, lambda i, j: sp.Symbol(f"x{i}{j}"))
    w = sp.Matrix(width, width, lambda i, j: sp.Symbol(f"w{i}{j}"))
    alpha = sp.Symbol("alpha")
    ones = sp.ones(tokens, 1)
    pi = ones * ones.T / tokens
    out = x + alpha * pi * x * w
    spread = ((sp.eye(tokens) - pi) * (out - x)).applyfunc(sp.expand)
    mean = (pi * out - pi * x * (sp.eye(width) + alpha * w)).applyfunc(sp.expand)
    return spread == sp.zeros(tokens, width) and mean == sp.zeros(tokens, width)


@proof_cache
def confirm_limits() -> bool:
    """SymPy: the three limits of L ln(1 + α²) are ∞, 1 and 0."""
    return (limit_of_growth("1") == sp.oo and limit_of_growth("1/sqrt(L)") == 1
            and limit_of_growth("1/L") == 0)
