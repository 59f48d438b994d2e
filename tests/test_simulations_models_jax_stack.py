"""The JAX stack equals the NumPy stack in float64, and says how to install JAX without it."""

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.models import jax_stack
from attndepth.simulations.models.blocks import Sublayer
from attndepth.simulations.models.stacks import StackConfig, run_stack
from attndepth.simulations.testing import stack_configs

# JAX is part of the test extra (train): missing, these tests fail, never skip
pytestmark = pytest.mark.jax


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(config=stack_configs(max_depth=4, max_tokens=6, residual_scales=(0.5, 1.0, 1.5),
                            skip_scales=(1.0, 0.5, 2.0)),
       batch=st.integers(1, 3), seed=st.integers(0, 2**31))
def test_jax_states_equal_numpy_states_over_the_block_specifications(config, batch, seed):
    # one block definition (blocks.block_forward) with two backends: every placement,
    # normaliser, scale, de-escalation, QK-norm, mask and FFN the strategy draws
    ours = jax_stack.run_stack(config, batch, seed).states
    reference = run_stack(config, batch, seed).states
    scale = max(1.0, float(np.max(np.abs(reference))))
    assert ours.shape == reference.shape
    assert np.max(np.abs(ours - reference)) <= 1e-12 * scale


GATED = Sublayer("gated", lambda xp, X, w: (X @ w["up"]) / (1 + xp.exp(-(X @ w["gate"]))),
                 lambda d: {"gate": (d, d), "up": (d, d)})


def test_a_user_sublayer_written_with_xp_runs_in_jax_with_the_same_numbers():
    config = StackConfig(variant="pre-ln", depth=3, tokens=4, width=8, sublayer=GATED, ffn=True)
    ours = jax_stack.run_stack(config, 2, 0).states
    np.testing.assert_allclose(ours, run_stack(config, 2, 0).states, rtol=0, atol=1e-12)


def test_float32_configs_run_in_float32():
    config = StackConfig(variant="post-ln", depth=3, tokens=5, width=8, dtype="float32")
    states = jax_stack.run_stack(config, 2, 0).states
    assert states.dtype == np.float32
    assert np.allclose(states, run_stack(config, 2, 0).states, atol=1e-5)


def test_a_missing_device_or_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="no gpu device"):
        jax_stack.device("gpu")
    with pytest.raises(ValueError, match="device"):
        jax_stack.device("tpu")
    config = StackConfig(variant="residual", depth=2, tokens=3, width=4)
    with pytest.raises(ValueError, match="X0 must have shape"):
        jax_stack.stack_states(config, *_weights(config), np.zeros((1, 3, 5)))


def _weights(config):
    from attndepth.simulations.models.stacks import draw_softmax_weights

    return (draw_softmax_weights(config, 1, 0),)


def test_without_jax_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    assert not jax_stack.available()
    with pytest.raises(ModuleNotFoundError, match=r'pip install -e "\.\[train\]"'):
        jax_stack.run_stack(StackConfig(depth=1, tokens=2, width=2), 1, 0)
