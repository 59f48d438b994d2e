"""Critical attention scaling: where self-attention turns from averaging to the identity.

Chen, Lin, Polyanskiy & Rigollet 2025, "Critical attention scaling in long-context
transformers" (arXiv 2510.05554) [paper] study one attention layer with scores
a_ij = β_n⟨y_i, y_j⟩ on pre-normalised tokens y_i (unit vectors; value matrix the
identity) placed near a simplex, ⟨y_i, y_j⟩ ≈ ρ for i ≠ j. With β_n = γ log n the layer
has a phase transition at γ_c = 1/(1 − ρ): below it the tokens collapse to one
direction, above it attention tends to the identity; the approximation sharpens as the
dimension d grows (their Theorem 2.1). Hence the critical scaling β_n ≍ log n.

The self weight [derived]. Token i's weight on itself is 1/(1 + Σ_{j≠i} e^{−β(1 −
⟨y_i, y_j⟩)}). On an exact simplex the sum is (n − 1)e^{−β(1−ρ)}: the self weight is ½
at β_½ = ln(n − 1)/(1 − ρ) → γ_c ln n (:func:`bare_half_point`). Tokens in dimension d
are only near a simplex: for y_i = normalise(√ρ e + √(1 − ρ) g_i), e a unit vector and
g_i ~ N(0, I_d/d), the overlaps of row i scatter around ρ with variance

    s² = (1 − ρ)(1 − ρ²(3 − ρ)/2) / d + O(d⁻²)                      (:func:`overlap_variance`)

(the term ⟨u_i, g_j⟩ gives (1 − ρ)/d; the normalisation of y_j, correlated with it,
the rest). The sum is then (n − 1)e^{−β(1−ρ)+β²s²/2} (the mean of a log-normal), and the
self weight is ½ where ln(n − 1) − β(1 − ρ) + β²s²/2 = 0:

    β_½ = [(1 − ρ) − √((1 − ρ)² − 2s² ln(n − 1))] / s²                (:func:`half_point`)

which tends to the paper's ln(n − 1)/(1 − ρ) as d → ∞ and lies above it at finite d
(the scatter lets some competitors come closer to the self score). Its growth in n is
logarithmic, with a finite-d excess.

Rivals: the scalings of neighbouring work, each for another distribution of scores —
√(ln n) (Gaussian scores: Giorlandino & Goldt's √(log T); the (log n)^½ law of the
gap-counting framework, arXiv 2605.12697), (ln n)² (that framework's third law) and
n^{2/(d−1)} (one query against n keys uniform on S^{d−1}, arXiv 2605.08505).

Where it breaks. The log-normal mean needs the sum to self-average: no real root once
2s² ln(n − 1) > (1 − ρ)² (then the largest overlaps dominate, as in a random energy
model); the O(1/d) scatter of each row's mean overlap biases the mean over rows of
β_½ by about var(m_i)/(1 − ρ)².
"""

from __future__ import annotations

import math

import sympy as sp

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int, check_real

#: The rival scalings of β_½ with n: name -> (law of n and d, source).
RIVAL_LAWS: dict[str, str] = {
    "sqrt(ln n)": "Gaussian scores: Giorlandino & Goldt's √(log T); the (log n)^½ law of "
                  "the gap-counting framework (arXiv 2605.12697)",
    "(ln n)^2": "the gap-counting framework's (log n)² law (arXiv 2605.12697)",
    "n^(2/(d-1))": "one query against n keys uniform on the sphere (arXiv 2605.08505)",
}


def _check(overlap: float, tokens: int) -> tuple[float, int]:
    overlap = check_real("overlap", overlap, 0.0, 1.0)
    if overlap == 1.0:
        raise InvalidParameter("overlap must be below 1: identical tokens have no transition")
    return overlap, check_int("tokens", tokens, minimum=3)


def critical_gamma(overlap: float) -> float:
    """γ_c = 1/(1 − ρ): the paper's critical scaling constant, β_n = γ log n.

    Parameters
    ----------
    overlap : ρ in [0, 1), the tokens' pairwise overlap (Chen et al. 2025, arXiv
        2510.05554, Theorem 2.1).

    Returns
    -------
    float
    """
    overlap, _ = _check(overlap, 3)
    return 1.0 / (1.0 - overlap)


def overlap_variance(overlap: float, width: int) -> float:
    """s² = (1 − ρ)(1 − ρ²(3 − ρ)/2)/d: the scatter of one row's overlaps (module docstring).

    Parameters
    ----------
    overlap : ρ in [0, 1).
    width : d ≥ 1.

    Returns
    -------
    float
    """
    overlap, _ = _check(overlap, 3)
    width = check_int("width", width, minimum=1)
    return (1.0 - overlap) * (1.0 - overlap**2 * (3.0 - overlap) / 2.0) / width


def bare_half_point(overlap: float, tokens: int) -> float:
    """β_½ = ln(n − 1)/(1 − ρ) on an exact simplex (d → ∞): the paper's law at finite n.

    Parameters
    ----------
    overlap : ρ in [0, 1).
    tokens : n ≥ 3.

    Returns
    -------
    float
    """
    overlap, tokens = _check(overlap, tokens)
    return math.log(tokens - 1) / (1.0 - overlap)


def half_point(overlap: float, tokens: int, width: int) -> float:
    """β_½ at finite d: the smaller root of ln(n − 1) − β(1 − ρ) + β²s²/2 = 0.

    Parameters
    ----------
    overlap : ρ in [0, 1).
    tokens : n ≥ 3.
    width : d ≥ 1.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameter
        2s² ln(n − 1) > (1 − ρ)²: the sum does not self-average there and the
        log-normal mean has no root (module docstring, where it breaks).
    """
    overlap, tokens = _check(overlap, tokens)
    variance = overlap_variance(overlap, width)
    gap = 1.0 - overlap
    discriminant = gap * gap - 2.0 * variance * math.log(tokens - 1)
    if discriminant < 0:
        raise InvalidParameter(f"no self-averaging crossing at rho={overlap:g}, n={tokens}, "
                               f"d={width}: 2 s^2 ln(n - 1) exceeds (1 - rho)^2")
    # (gap − √disc)/s² written without the cancellation: 2 ln(n − 1)/(gap + √disc)
    return 2.0 * math.log(tokens - 1) / (gap + math.sqrt(discriminant))


def rival_ratio(law: str, smallest: int, largest: int, width: int) -> float:
    """β_½(n_max)/β_½(n_min) if β_½ grew by a rival's law (:data:`RIVAL_LAWS`).

    Parameters
    ----------
    law : a key of :data:`RIVAL_LAWS`.
    smallest, largest : n_min < n_max.
    width : d (for n^{2/(d−1)}).

    Returns
    -------
    float
    """
    smallest = check_int("smallest", smallest, minimum=3)
    largest = check_int("largest", largest, minimum=smallest + 1)
    width = check_int("width", width, minimum=2)
    a, b = math.log(smallest - 1), math.log(largest - 1)
    if law == "sqrt(ln n)":
        return math.sqrt(b / a)
    if law == "(ln n)^2":
        return (b / a) ** 2
    if law == "n^(2/(d-1))":
        return (largest / smallest) ** (2.0 / (width - 1))
    raise InvalidParameter(f"law must be one of {', '.join(RIVAL_LAWS)}, got {law!r}")


@proof_cache
def confirm_half_point() -> bool:
    """SymPy: the root of ln(n − 1) − β(1 − ρ) + β²s²/2 tends to ln(n − 1)/(1 − ρ) as
    s → 0, lies above it for s > 0 (to second order: + s² ln²(n − 1)/(2(1 − ρ)³)), and
    the variance is 1/d at ρ = 0 and 0 at ρ = 1."""
    rho = sp.Symbol("rho", positive=True)
    gap, s2, ell, width = sp.symbols("g s2 ell d", positive=True)  # g = 1 − ρ, ell = ln(n − 1)
    root = 2 * ell / (gap + sp.sqrt(gap**2 - 2 * s2 * ell))
    equation = sp.simplify(ell - root * gap + root**2 * s2 / 2)
    series = sp.series(root, s2, 0, 2).removeO()
    variance = (1 - rho) * (1 - rho**2 * (3 - rho) / 2) / width
    return bool(equation == 0
                and sp.simplify(series - ell / gap - s2 * ell**2 / (2 * gap**3)) == 0
                and sp.simplify(variance.subs(rho, 0) - 1 / width) == 0
                and variance.subs(rho, 1) == 0)
