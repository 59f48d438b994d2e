"""The APJN by central differences: the identity, a linear stack, and clear refusals."""

import numpy as np
import pytest

from attndepth.simulations.measures.input_output_jacobian import jacobian_profile
from attndepth.simulations.models.stacks import StackConfig, draw_stack


def test_a_stack_of_no_blocks_is_the_identity():
    profile = jacobian_profile(StackConfig(depth=0, tokens=3, width=4), 2, 0)
    np.testing.assert_allclose(profile.apjn, [1.0])


def test_the_apjn_of_one_block_against_its_exact_jacobian():
    # one residual block of uniform attention (temperature → ∞ leaves P = 11ᵀ/n): linear,
    # x ← x + P x W, so J = I + (P ⊗ W) and ‖J‖_F² is exact
    config = StackConfig(variant="residual", depth=1, tokens=3, width=4, temperature=1e12)
    weights, _ = draw_stack(config, 1, 5)
    W = weights.value[0, 0] @ weights.output[0, 0]
    P = np.full((3, 3), 1 / 3)
    J = np.eye(12) + np.kron(P, W.T)  # row-major vec of X (n × d): vec(P X W) = (P ⊗ Wᵀ)
    exact = np.sum(J * J) / 12
    measured = jacobian_profile(config, 1, 5, directions=400).apjn[1]
    assert measured == pytest.approx(exact, rel=0.05)


@pytest.mark.parametrize(("config", "message"), [
    (StackConfig(depth=1, tokens=2, width=2, dtype="float32"), "float64"),
    (StackConfig(depth=1, tokens=2, width=2, sampling="law"), "drawn weights"),
])
def test_what_cannot_be_differenced_is_refused(config, message):
    with pytest.raises(ValueError, match=message):
        jacobian_profile(config, 1, 0)
