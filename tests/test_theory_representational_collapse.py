"""Representational collapse: SymPy's row identity and limit, and the exponent."""

import math

import numpy as np

from attndepth.theory.representational_collapse import COLLAPSE_EXPONENT, confirm_collapse_rate


def test_sympy_confirms_the_repeated_row_and_the_limit():
    assert confirm_collapse_rate() is True


def test_one_softmax_row_with_its_own_key_repeated_moves_by_p_times_v_minus_y():
    rng = np.random.default_rng(3)
    for n in (4, 64, 1024):
        scores, values = rng.standard_normal(n), rng.standard_normal((n, 5))
        weights = np.exp(scores)
        y = weights @ values / weights.sum()
        repeated = (weights @ values + weights[-1] * values[-1]) / (weights.sum() + weights[-1])
        share = weights[-1] / (weights.sum() + weights[-1])
        np.testing.assert_allclose(repeated, y + share * (values[-1] - y), atol=1e-12)
    assert COLLAPSE_EXPONENT == -1.0 and math.isfinite(COLLAPSE_EXPONENT)
