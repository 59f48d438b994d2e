import sympy as sp

from attndepth.theory.rank_collapse import (
    confirm_depth_bound,
    depth_bound,
    one_layer_bound,
    required_gamma,
    residual_norm,
)


def test_depth_bound_is_iterated_one_layer_bound():
    assert confirm_depth_bound(4)
    assert depth_bound(1) == one_layer_bound()
    exponent = sp.degree(depth_bound(2).subs({s: 1 for s in depth_bound(2).free_symbols
                                              if s != residual_norm}), residual_norm)
    assert exponent == 9


def test_required_gamma_makes_the_bound_tight():
    gamma = required_gamma(0.1, 1e-4, beta_value=2.0, heads_value=1, head_dim_value=4)
    # 4γβH/√d · e³ = e′
    assert abs(4 * gamma * 2.0 / 2 * 0.1**3 - 1e-4) < 1e-18
