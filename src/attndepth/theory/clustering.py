"""Self-attention as particles on the sphere (Geshkovski, Letrouit, Polyanskiy & Rigollet 2023).

The continuous-time model of arXiv 2312.10794, §2 [paper]: n tokens
x_1, …, x_n on the unit sphere S^{d−1} move by

    ẋ_i = P_{x_i}^⊥ ( (1/Z_i) Σ_j e^{β⟨x_i, x_j⟩} x_j ),   Z_i = Σ_j e^{β⟨x_i, x_j⟩},

with P_x^⊥ = I − x xᵀ the projection onto the tangent space at x and β ≥ 0
the inverse temperature (Q = K = V = I, the softmax-normalised "SA" flow).

Orthogonal start [derived here; it reproduces the ODE the paper reports]:
if the tokens start pairwise orthogonal, the configuration stays symmetric
(every pair has the same inner product γ(t), by uniqueness and the symmetry
of the flow under permutations of the tokens), and γ solves

    γ′ = 2 e^{βγ} (1 − γ) ((n − 1)γ + 1) / (e^β + (n − 1) e^{βγ}),   γ(0) = 0.

Derivation (:func:`derive_orthogonal_start_rate`): d⟨x_i, x_j⟩/dt =
⟨ẋ_i, x_j⟩ + ⟨x_i, ẋ_j⟩ = 2⟨ẋ_i, x_j⟩ by symmetry; with the Gram entries
G_ii = 1, G_ij = γ,

    Z ⟨ẋ_i, x_j⟩ = Σ_k e^{βG_ik} G_kj − (Σ_k e^{βG_ik} G_ik) G_ij
                 = e^{βγ}(1 + (n − 2)γ) + e^β γ − (e^β + (n − 1)γ e^{βγ}) γ
                 = e^{βγ} (1 − γ)(1 + (n − 1)γ).

For β = 0 the equation is γ′ = 2(1 − γ)(1 + (n − 1)γ)/n, solved by
γ(t) = (1 − e^{−2t}) / (1 + (n − 1) e^{−2t}) (n = 2: γ = tanh t), checked
by :func:`confirm_beta_zero_solution`.

One hemisphere [paper]: tokens that start in one open hemisphere converge to
a single point. How often does that happen for random tokens? Wendel (1962):
n independent uniform points on S^{d−1} lie in one open hemisphere with
probability 2^{−(n−1)} Σ_{k=0}^{d−1} C(n−1, k) (:func:`wendel_probability`,
exact rational), which is 1 for n ≤ d.
"""

from __future__ import annotations

import math
from functools import lru_cache

import sympy as sp

from attndepth.theory.proof_cache import proof_cache
from attndepth.validation import check_int

gamma_symbol, beta_symbol, time_symbol = sp.symbols("gamma beta t", real=True)


def orthogonal_start_rate_expression(tokens: int | sp.Symbol) -> sp.Expr:
    """The reported right-hand side of γ′ for n = ``tokens`` (a SymPy expression in γ, β)."""
    n, g, b = tokens, gamma_symbol, beta_symbol
    return 2 * sp.exp(b * g) * (1 - g) * ((n - 1) * g + 1) / (sp.exp(b) + (n - 1) * sp.exp(b * g))


def derive_orthogonal_start_rate(tokens: int) -> sp.Expr:
    """γ′ computed from the particle dynamics with a symmetric Gram matrix (see module doc).

    Parameters
    ----------
    tokens : int
        n ≥ 2.

    Returns
    -------
    sympy.Expr
        2⟨ẋ_1, x_2⟩ for G_ii = 1, G_ij = γ, in γ and β.
    """
    n = check_int("tokens", tokens, minimum=2)
    gram = sp.Matrix(n, n, lambda i, j: 1 if i == j else gamma_symbol)
    weights = [sp.exp(beta_symbol * gram[0, k]) for k in range(n)]
    partition = sum(weights)
    projected = (sum(weights[k] * gram[k, 1] for k in range(n))
                 - sum(weights[k] * gram[0, k] for k in range(n)) * gram[0, 1])
    return 2 * projected / partition


@proof_cache
def confirm_orthogonal_start_ode(tokens: int) -> bool:
    """The derived γ′ equals the reported one, identically in γ and β (SymPy)."""
    difference = derive_orthogonal_start_rate(tokens) - orthogonal_start_rate_expression(tokens)
    return sp.simplify(difference) == 0


def beta_zero_solution(tokens: int | sp.Symbol) -> sp.Expr:
    """γ(t) = (1 − e^{−2t}) / (1 + (n − 1) e^{−2t}): the solution for β = 0."""
    decay = sp.exp(-2 * time_symbol)
    return (1 - decay) / (1 + (tokens - 1) * decay)


@proof_cache
def confirm_beta_zero_solution(tokens: int | None = None) -> bool:
    """The β = 0 solution satisfies γ′ = rate(γ) and γ(0) = 0 (symbolic n if ``tokens`` is None)."""
    n = sp.Symbol("n", positive=True) if tokens is None else check_int("tokens", tokens, minimum=2)
    gamma = beta_zero_solution(n)
    rate = orthogonal_start_rate_expression(n).subs(beta_symbol, 0).subs(gamma_symbol, gamma)
    residual = sp.simplify(sp.diff(gamma, time_symbol) - rate)
    return residual == 0 and sp.simplify(gamma.subs(time_symbol, 0)) == 0


def orthogonal_start_rate(gamma: float, tokens: int, beta: float) -> float:
    """The reported γ′ as a number (the right-hand side the claims integrate).

    Parameters
    ----------
    gamma : float
        Current pairwise inner product, in [−1/(n−1), 1].
    tokens : int
        n ≥ 2.
    beta : float
        Inverse temperature ≥ 0.
    """
    return _rate_function(check_int("tokens", tokens, minimum=2))(float(gamma), float(beta))


@lru_cache(maxsize=32)
def _rate_function(tokens: int):
    expression = orthogonal_start_rate_expression(tokens)
    function = sp.lambdify((gamma_symbol, beta_symbol), expression, modules="math")
    return lambda gamma, beta: float(function(gamma, beta))


def wendel_probability(tokens: int, dimension: int) -> sp.Rational:
    """P(n uniform points on S^{d−1} lie in one open hemisphere) (Wendel 1962), exactly.

    Parameters
    ----------
    tokens : int
        n ≥ 1.
    dimension : int
        d ≥ 1 (the sphere S^{d−1} ⊂ R^d).

    Returns
    -------
    sympy.Rational
        2^{−(n−1)} Σ_{k=0}^{d−1} C(n−1, k).
    """
    tokens = check_int("tokens", tokens, minimum=1)
    dimension = check_int("dimension", dimension, minimum=1)
    return sp.Rational(sum(math.comb(tokens - 1, k) for k in range(dimension)),
                       2 ** (tokens - 1))


@proof_cache
def confirm_wendel_identities(max_tokens: int = 12) -> bool:
    """Exact checks of :func:`wendel_probability`: 1 for n ≤ d, ½ for n = 2d (symmetry of
    the binomial sum), and the recursion P(n+1, d) = (P(n, d) + P(n, d−1))/2."""
    for n in range(1, max_tokens + 1):
        for d in range(1, max_tokens + 1):
            p = wendel_probability(n, d)
            if n <= d and p != 1:
                return False
            if n == 2 * d and p != sp.Rational(1, 2):
                return False
            if d > 1 and wendel_probability(n + 1, d) != (p + wendel_probability(n, d - 1)) / 2:
                return False
    return True


def beta_zero_gamma(time: float, tokens: int) -> float:
    """γ(t) for β = 0 as a number."""
    decay = math.exp(-2 * time)
    return (1 - decay) / (1 + (check_int("tokens", tokens, minimum=2) - 1) * decay)
