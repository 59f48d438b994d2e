"""The uniform-attention model simulated as derived: the finite-width term by ablation."""

import numpy as np
import pytest

from attndepth.errors import InvalidParameter
from attndepth.simulations.measures.uniform_model import uniform_model_growth
from attndepth.theory.residual_scaling import finite_width_growth, log_odds_growth


def _relative(growth: np.ndarray, predicted: float) -> tuple[float, float]:
    return growth.mean() / predicted - 1, growth.std(ddof=1) / np.sqrt(growth.size) / predicted


@pytest.mark.parametrize("product_weights", [True, False])
def test_the_model_follows_the_finite_width_growth_and_not_the_limit(product_weights):
    # d = 32, α = 1, L = 16: (**) is −4.5 % (product) or −3.4 % (one matrix) off L ln 2
    growth = uniform_model_growth(32, 16, 1.0, 400, 0, product_weights=product_weights)
    error, standard = _relative(growth, finite_width_growth(16, 1.0, 32, product_weights))
    assert abs(error) < 4 * standard + 0.005  # the O(1/d²) remainder
    limit_error, _ = _relative(growth, log_odds_growth(16, 1.0))
    assert limit_error < -0.02 and limit_error < error - 5 * standard


def test_the_two_weight_structures_differ_by_their_fourth_moment():
    product = uniform_model_growth(16, 16, 1.0, 400, 1).mean()
    single = uniform_model_growth(16, 16, 1.0, 400, 2, product_weights=False).mean()
    # (**): the single matrix's term is 3/(4d), the product's 1/d: 16·(1/4)/16 = 0.25 apart
    assert 0.1 < single - product < 0.4


def test_seeded_and_refuses_bad_input():
    first = uniform_model_growth(4, 3, 0.5, 2, 7)
    assert np.array_equal(first, uniform_model_growth(4, 3, 0.5, 2, 7))
    for kwargs in (dict(width=0), dict(scale=0.0), dict(scale=float("nan")), dict(batch=0)):
        arguments = dict(width=4, depth=3, scale=0.5, batch=2, seed=0) | kwargs
        with pytest.raises(InvalidParameter):
            uniform_model_growth(**arguments)
