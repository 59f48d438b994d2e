"""The attention rollout: the product of the stack's own matrices, exact for the mask."""

import numpy as np
import pytest

from attndepth.simulations.measures.attention_rollout import (
    attention_rollout,
    first_token_deficit,
)
from attndepth.simulations.models.stacks import StackConfig, run_stack
from attndepth.theory.position_bias import mask_attention


def test_the_rollout_multiplies_the_stacks_attention_in_order():
    config = StackConfig(variant="pure", causal=True, decay=0.5, depth=3, tokens=5, width=8)
    attention = run_stack(config, 2, 7, keep_attention=True).attention[:, :, 0]
    rollout = attention_rollout(config, 2, 7)
    np.testing.assert_allclose(rollout[3], attention[2] @ attention[1] @ attention[0],
                               atol=1e-14)
    np.testing.assert_allclose(rollout.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(first_token_deficit(rollout), 1 - rollout[..., 1:, 0],
                               atol=1e-12)


def test_at_infinite_temperature_the_rollout_is_the_masks_power():
    # logits ×1/T → 0: every attention matrix is the decay mask's own softmax M
    config = StackConfig(variant="pure", causal=True, decay=1.0, depth=4, tokens=6,
                         width=8, temperature=1e12)
    mask = np.asarray(mask_attention(6, 1.0))
    np.testing.assert_allclose(attention_rollout(config, 2, 0)[4],
                               np.broadcast_to(np.linalg.matrix_power(mask, 4), (2, 6, 6)),
                               atol=1e-10)


def test_several_heads_are_refused():
    with pytest.raises(ValueError, match="heads=1"):
        attention_rollout(StackConfig(variant="pure", heads=2, depth=1, width=4), 1, 0)
