"""The depth profile: mean squares per block and the Jacobian's distance from I."""

import numpy as np
import pytest

from attndepth.simulations.measures.block_jacobian import depth_profile
from attndepth.simulations.models.stacks import StackConfig, draw_stack, run_stack
from attndepth.simulations.seeding import PROBE_STREAM, spawn_generators


def test_the_variance_rows_are_the_trajectorys_mean_squares():
    config = StackConfig(variant="pre-ln", depth=3, tokens=4, width=8, ffn=True)
    profile = depth_profile(config, 3, 5, probes=(2,))
    states = run_stack(config, 3, 5).states
    np.testing.assert_allclose(profile.variance, np.mean(states**2, axis=(-2, -1)))
    assert set(profile.deviation) == {2} and profile.deviation[2].shape == (3,)


def test_a_linear_block_has_the_deviation_of_its_matrix():
    # a residual block without normalisation at temperature → ∞ is X + Π X W_V W_O with
    # Π = 11ᵀ/n: (J − I)u = Π u W, whose norm the difference must reproduce
    config = StackConfig(variant="residual", depth=1, tokens=3, width=4, temperature=1e12)
    profile = depth_profile(config, 2, 0, probes=(1,))
    weights, X0 = draw_stack(config, 2, 0)
    U = np.stack([g.standard_normal((3, 4)) for g in spawn_generators(0, 2, PROBE_STREAM)])
    mean = np.broadcast_to(U.mean(axis=1, keepdims=True), U.shape)  # Π u
    moved = mean @ weights.value[:, 0] @ weights.output[:, 0]
    expected = np.linalg.norm(moved, axis=(1, 2)) / np.linalg.norm(U, axis=(1, 2))
    np.testing.assert_allclose(profile.deviation[1], expected, rtol=1e-6)


def test_a_bad_probe_or_dtype_is_a_clear_error():
    config = StackConfig(variant="pre-ln", depth=2, tokens=3, width=4)
    with pytest.raises(ValueError, match="probe"):
        depth_profile(config, 1, 0, probes=(3,))
    with pytest.raises(ValueError, match="float64"):
        depth_profile(StackConfig(variant="pre-ln", depth=2, tokens=3, width=4,
                                  dtype="float32"), 1, 0)


def test_a_batch_in_chunks_gives_the_same_numbers(monkeypatch):
    from attndepth.simulations.measures import block_jacobian

    config = StackConfig(variant="pre-ln", depth=3, tokens=4, width=8, ffn=True,
                         norm_scaling=True)
    whole = depth_profile(config, 5, 2, probes=(1, 3))
    monkeypatch.setattr(block_jacobian, "CHUNK_WEIGHTS", 2 * 3 * 12 * 64)  # two stacks
    chunked = depth_profile(config, 5, 2, probes=(1, 3))
    np.testing.assert_allclose(chunked.variance, whole.variance, rtol=1e-12)
    for block in (1, 3):
        np.testing.assert_allclose(chunked.deviation[block], whole.deviation[block],
                                   rtol=1e-9)
