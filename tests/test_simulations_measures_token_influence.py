"""The influence of each input token on the last: right where it is exact, and refusals."""

import numpy as np
import pytest

from attndepth.simulations.measures.token_influence import last_token_influence
from attndepth.simulations.models.stacks import StackConfig, draw_stack


def test_one_uniform_residual_block_gives_the_identity_plus_w_over_n():
    # temperature → ∞: uniform causal attention, x_n' = x_n + mean_j(x_j) W, so
    # ∂x_n'/∂x_j = δ_nj I + W/n; the estimate pools E‖J u‖² over 256 directions
    n, d = 4, 8
    config = StackConfig(variant="residual", causal=True, depth=1, tokens=n, width=d,
                         temperature=1e12)
    weights, _ = draw_stack(config, 2, 3)
    W = weights.value[:, 0] @ weights.output[:, 0]
    expected = [np.mean([np.sum(((j == n - 1) * np.eye(d) + w / n) ** 2) / d for w in W])
                for j in range(n)]
    measured = last_token_influence(config, 2, 3, directions=256)
    np.testing.assert_allclose(measured[1], expected, rtol=0.15)
    np.testing.assert_allclose(measured[0], [0, 0, 0, 1], atol=1e-6)


@pytest.mark.parametrize(("config", "message"), [
    (StackConfig(depth=1, width=4, dtype="float32"), "float64"),
    (StackConfig(depth=1, width=4, sampling="law"), "sampling='weights'"),
])
def test_bad_input_is_a_clear_error(config, message):
    with pytest.raises(ValueError, match=message):
        last_token_influence(config, 1, 0)
