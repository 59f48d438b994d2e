"""The repeated-token shift: exact for one block of uniform attention, and clear refusals."""

import numpy as np
import pytest

from attndepth.simulations.measures.repeated_token import repeat_shift
from attndepth.simulations.models.stacks import StackConfig, draw_stack


def test_one_uniform_causal_block_moves_the_last_token_by_its_distance_over_n_plus_one():
    # temperature → ∞: uniform causal attention, y_n = x_n + mean_{j≤n}(x_j) W, and the
    # repeated row averages n + 1 tokens: the shift is (x_n − x̄) W/(n + 1)
    config = StackConfig(variant="residual", depth=1, width=8, temperature=1e12, causal=True)
    weights, X = draw_stack(StackConfig(**{**config.as_dict(), "tokens": 12}), 2, 4)
    W = weights.value[:, 0] @ weights.output[:, 0]
    for index, n in enumerate((3, 12)):
        mean = X[:, :n].mean(axis=1)
        y = X[:, n - 1] + np.einsum("bd,bde->be", mean, W)
        shift = np.einsum("bd,bde->be", X[:, n - 1] - mean, W) / (n + 1)
        expected = np.linalg.norm(shift, axis=-1) / np.linalg.norm(y, axis=-1)
        np.testing.assert_allclose(repeat_shift(config, (3, 12), 2, 4)[index], expected,
                                   rtol=1e-9)


@pytest.mark.parametrize(("config", "lengths", "message"), [
    (StackConfig(depth=1, width=4), (2, 4), "causal"),
    (StackConfig(depth=1, width=4, causal=True), (4, 2), "increasing"),
    (StackConfig(depth=1, width=4, causal=True), (0, 2), "length"),
])
def test_bad_input_is_a_clear_error(config, lengths, message):
    with pytest.raises(ValueError, match=message):
        repeat_shift(config, lengths, 1, 0)
