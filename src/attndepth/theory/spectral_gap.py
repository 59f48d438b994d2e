"""The spectral gap of attention at initialisation (Naderi, Nait Saada & Tanner 2024).

"Mind the Gap", arXiv 2410.07799 [paper]: at initialisation a softmax
attention matrix A (T × T, row-stochastic) is modelled by a *random Markov
matrix*: A_ij = E_ij / Σ_k E_ik with i.i.d. positive E_ij of mean μ and
standard deviation σ. Then A has the outlier singular value s₁ ≈ 1 (A1 = 1,
so s₁ ≥ 1) and a bulk that shrinks like 1/√T: the singular values of
√T·(A − 11ᵀ/T) follow the quarter-circle law on [0, 2σ/μ] (Bordenave,
Caputo & Chafaï 2011 for the circular law of √T·A; Chafaï 2010 for the
quarter circle of the Dirichlet case). Hence

    s₂(A) ≈ 2κ/√T,   κ = σ/μ,   log s₂ against log T has slope −1/2,

and the "spectral gap" s₁ − s₂ → 1. For softmax logits i.i.d. N(0, s²) the
E_ij are log-normal: μ = e^{s²/2}, σ² = e^{2s²} − e^{s²}, so
κ² = e^{s²} − 1 (:func:`markov_ratio_squared`).

What this project adds [derived]:

* Second moment. ‖A − 11ᵀ/T‖_F² → κ²: Σ_ij Var(A_ij) with
  Var(A_ij) = κ²/T² (1 + O(1/T)) (the row sum concentrates at Tμ), i.e. the
  mean square of the bulk of √T·(A − Π) is κ², the second moment of the
  quarter circle of radius 2κ. It converges much faster than the edge s₂
  for heavy-tailed E (s = 1), and is checked beside it.
* Rank collapse in width. For X with i.i.d. N(0, 1) entries (T × d),
  AX = 1x̄ᵀ + (A − Π)X with ‖1x̄ᵀ‖_F² = T|x̄|² ≈ d and
  ‖(A − Π)X‖_F² ≈ d κ², the first also being (nearly) the top singular
  direction; the stable rank ‖AX‖_F²/‖AX‖₂² therefore stays near 1 + κ²
  whatever T, while that of X grows to ≈ d (:func:`collapsed_stable_rank`,
  a heuristic: it ignores the fluctuation of T|x̄|² ~ χ²_d).
* Outlier removal against de-escalation. With Π = 11ᵀ/T,

      (A − Π)X − (I − Π)AX = Π(A − I)X = (1/T) 1 (Aᵀ1 − 1)ᵀ X,

  so the two coincide for a given X exactly when Xᵀ(Aᵀ1 − 1) = 0, and for
  every X exactly when A is doubly stochastic (Aᵀ1 = 1); in general they
  differ by a rank-one matrix (:func:`confirm_outlier_removal_identity`).
  Also (I − Π)A = (I − Π)(A − Π) because (I − Π)Π = 0, so
  ‖(I − Π)A‖₂ ≤ ‖A − Π‖₂: Yu & Zhang's de-escalation removes at least as
  much as the outlier removal. For a random Markov matrix the column sums
  have Var ≈ κ²/T, so ‖Aᵀ1 − 1‖² ≈ κ²: as operators the two fixes differ
  by a rank-one matrix of norm ≈ κ/√T, the size of the bulk itself. On
  Gaussian tokens, though, the difference acts through one direction only:
  ‖Π(A − I)X‖_F² = |Xᵀ(Aᵀ1 − 1)|²/T ≈ dκ²/T against ‖(A − Π)X‖_F² ≈ dκ²,
  a relative difference ≈ 1/√T (:func:`fix_difference`).
"""

from __future__ import annotations

import math

import sympy as sp

from attndepth.errors import InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int, check_positive

#: The predicted slope of log s₂(A) against log T [paper].
SPECTRAL_EXPONENT = -0.5


def markov_ratio_squared(scale: float) -> float:
    """κ² = (σ/μ)² = e^{s²} − 1 of log-normal weights E = e^{s·g}, g ~ N(0, 1).

    Parameters
    ----------
    scale : float
        s > 0, the standard deviation of the logits.
    """
    s = check_positive("logit scale", scale)
    return math.expm1(s * s)


def bulk_edge(tokens: int, scale: float) -> float:
    """The predicted s₂(A) = 2κ/√T: the quarter-circle edge of √T·(A − Π), divided by √T.

    Parameters
    ----------
    tokens : int
        T ≥ 2.
    scale : float
        Logit standard deviation s > 0.
    """
    tokens = check_int("tokens", tokens, minimum=2)
    return 2.0 * math.sqrt(markov_ratio_squared(scale)) / math.sqrt(tokens)


def bulk_second_moment(scale: float) -> float:
    """The predicted ‖A − 11ᵀ/T‖_F² → κ² (large T) [derived]."""
    return markov_ratio_squared(scale)


def collapsed_stable_rank(scale: float) -> float:
    """The predicted stable rank of AX for Gaussian X, large T: about 1 + κ² [derived]."""
    return 1.0 + markov_ratio_squared(scale)


def fix_difference(tokens: int) -> float:
    """‖(A − Π)X − (I − Π)AX‖_F / ‖(A − Π)X‖_F ≈ 1/√T for Gaussian X [derived]."""
    tokens = check_int("tokens", tokens, minimum=2)
    return 1.0 / math.sqrt(tokens)


@proof_cache
def confirm_markov_moments() -> bool:
    """SymPy: the log-normal mean and variance give κ² = e^{s²} − 1 exactly."""
    s, g = sp.symbols("s g", positive=True)
    density = sp.exp(-g**2 / 2) / sp.sqrt(2 * sp.pi)
    mean = sp.integrate(sp.exp(s * g) * density, (g, -sp.oo, sp.oo))
    second = sp.integrate(sp.exp(2 * s * g) * density, (g, -sp.oo, sp.oo))
    ratio = sp.simplify((second - mean**2) / mean**2)
    return sp.simplify(ratio - (sp.exp(s**2) - 1)) == 0


@proof_cache
def confirm_outlier_removal_identity(tokens: int = 3, width: int = 2) -> bool:
    """SymPy, for symbolic row-stochastic A (T × T) and X (T × d):

    (A − Π)X − (I − Π)AX = (1/T) 1 (Aᵀ1 − 1)ᵀ X  and  (I − Π)A = (I − Π)(A − Π).
    """
    if tokens < 2 or width < 1:
        raise InvalidParameter("tokens must be >= 2 and width >= 1")
    T = tokens
    a = sp.Matrix(T, T, lambda i, j: sp.Symbol(f"a{i}{j}"))
    # impose row sums 1 through the last column
    a = sp.Matrix(T, T, lambda i, j: a[i, j] if j < T - 1
                  else 1 - sum(a[i, k] for k in range(T - 1)))
    x = sp.Matrix(T, width, lambda i, j: sp.Symbol(f"x{i}{j}"))
    ones = sp.ones(T, 1)
    pi = ones * ones.T / T
    eye = sp.eye(T)
    difference = (a - pi) * x - (eye - pi) * a * x
    rank_one = ones * (a.T * ones - ones).T * x / T
    first = (difference - rank_one).applyfunc(sp.expand) == sp.zeros(T, width)
    second = ((eye - pi) * a - (eye - pi) * (a - pi)).applyfunc(sp.expand) == sp.zeros(T, T)
    return bool(first and second)
