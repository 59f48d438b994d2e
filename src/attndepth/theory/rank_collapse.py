"""Rank collapse of pure self-attention (Dong, Cordonnier & Loukas 2021; docs/theory.md §4).

res(X) = X − 1xᵀ with x = argmin ‖X − 1xᵀ‖. Theorem (their §2.2): one
attention layer gives ‖res(SA(X))‖_{1,∞} ≤ C·‖res(X)‖³_{1,∞} with
C = 4γβH/√d_qk, ‖X‖_{1,∞} = √(‖X‖₁‖X‖_∞), β ≥ ‖W_QK‖₁‖W_V‖_{1,∞} and γ a
constant depending on the attention entries (not fixed here: the toolkit
reports the γ each measured layer requires instead of assuming one).
"""

from __future__ import annotations

import sympy as sp

from attndepth.theory.proof_cache import proof_cache

residual_norm, gamma, beta, heads, head_dim, depth = sp.symbols(
    "e gamma beta H d_qk L", positive=True)


def one_layer_constant() -> sp.Expr:
    """C = 4γβH/√d_qk."""
    return 4 * gamma * beta * heads / sp.sqrt(head_dim)


def one_layer_bound() -> sp.Expr:
    """‖res(SA(X))‖ ≤ C e³ with e = ‖res(X)‖_{1,∞}."""
    return one_layer_constant() * residual_norm**3


def convergence_order(skip: bool = False) -> int:
    """Order of convergence of the residual norm, read off the one-layer bound.

    Pure attention: e_{k+1} ≤ C·e_k³ (:func:`one_layer_bound`), order 3, the
    doubly exponential collapse of Dong et al. 2021, Thm 2.2. With a skip
    connection X + SA(X) the residual of the sum is at most e_k + C·e_k³
    (triangle inequality; Dong et al. 2021, §3), whose lowest-order term is
    linear: order 1, a geometric rate at best.

    Parameters
    ----------
    skip : bool
        With a skip connection around the attention.

    Returns
    -------
    int
        3 without a skip, 1 with one (lowest degree in e of the bound).
    """
    bound = sp.expand(one_layer_bound() + (residual_norm if skip else 0))
    return min(sp.Poly(bound, residual_norm).monoms())[0]


def depth_bound(layers: int | sp.Symbol = depth) -> sp.Expr:
    """‖res(SAN(X))‖ ≤ C^{(3^L − 1)/2} e^{3^L}.

    Induction: e_L ≤ C e_{L−1}³ ≤ C·(C^{(3^{L−1}−1)/2} e^{3^{L−1}})³
    = C^{1 + 3(3^{L−1}−1)/2} e^{3^L} = C^{(3^L−1)/2} e^{3^L}. The exponent
    (3^L − 1)/2 is the K of Levine et al.'s structural degree.
    """
    three_to_l = sp.Integer(3) ** layers
    return one_layer_constant() ** ((three_to_l - 1) / 2) * residual_norm ** three_to_l


@proof_cache
def confirm_depth_bound(max_layers: int = 5) -> bool:
    """Iterate the one-layer bound symbolically and compare with :func:`depth_bound`."""
    e = residual_norm
    for layers in range(1, max_layers + 1):
        e = one_layer_constant() * e**3
        if sp.simplify(sp.expand_power_base(e / depth_bound(layers), force=True)) != 1:
            return False
    return True


def required_gamma(before: float, after: float, beta_value: float, heads_value: int,
                   head_dim_value: int) -> float:
    """The smallest γ for which the one-layer bound holds on a measured layer."""
    return after * head_dim_value**0.5 / (4 * beta_value * heads_value * before**3)
