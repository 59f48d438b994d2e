"""The bridge measures the same thing: attndepth's post-LN and pre-LN stacks and
``torch.nn.TransformerEncoder`` with the same weights give the same states and attention
to float64 round-off, over drawn configurations."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.models.stacks import StackConfig, draw_stack, run_stack

torch = pytest.importorskip("torch", reason="the torch bridge needs the torch extra")

from attndepth.pytorch.observe import observe  # noqa: E402
from attndepth.pytorch.stack_module import torch_stack  # noqa: E402


@settings(max_examples=12, deadline=None)
@given(variant=st.sampled_from(["post-ln", "pre-ln"]), causal=st.booleans(),
       heads=st.sampled_from([1, 2, 4]), per_head=st.integers(1, 4), tokens=st.integers(1, 8),
       depth=st.integers(1, 6), seed=st.integers(0, 2**32))
def test_a_torch_encoder_with_the_stacks_weights_gives_the_stacks_states(
        variant, causal, heads, per_head, tokens, depth, seed):
    config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=heads * per_head,
                         heads=heads, ffn=True, causal=causal)
    trajectory = run_stack(config, 2, seed, keep_attention=True)
    weights, X0 = draw_stack(config, 2, seed)
    for index in range(2):
        inputs = torch.tensor(X0[index:index + 1])
        if causal:
            mask = torch.nn.Transformer.generate_square_subsequent_mask(tokens,
                                                                        dtype=torch.float64)
            inputs = {"src": inputs, "mask": mask, "is_causal": True}
        seen = observe(torch_stack(config, weights, index), inputs)
        scale = 1 + np.abs(trajectory.states[:, index]).max()
        np.testing.assert_allclose(seen.states[:, 0], trajectory.states[:, index],
                                   rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(seen.attention[:, 0], trajectory.attention[:, index],
                                   rtol=0, atol=1e-12)


def test_what_the_encoder_cannot_express_is_refused_by_name():
    weights, _ = draw_stack(StackConfig(variant="post-ln", depth=2, width=4, ffn=True), 1, 0)
    for config, named in [
            (StackConfig(variant="post-ln", depth=2, width=4), "ffn True"),
            (StackConfig(variant="post-ln", depth=2, width=4, ffn=True, norm_kind="rms"),
             "norm_kind layer"),
            (StackConfig(variant="post-ln-deesc-a", depth=2, width=4, ffn=True),
             "no de-escalation"),
            (StackConfig(variant="residual", depth=2, width=4, ffn=True), "post-LN or pre-LN"),
            (StackConfig(variant="pre-ln", depth=2, width=4, ffn=True, temperature=2.0),
             "temperature 1"),
            (StackConfig(variant="pre-ln", depth=2, width=4, ffn=True, norm_scaling=True),
             "no norm_scaling")]:
        with pytest.raises(ValueError, match=named):
            torch_stack(config, weights)
    with pytest.raises(TypeError, match="SoftmaxWeights"):
        torch_stack(StackConfig(variant="post-ln", depth=2, width=4, ffn=True), "weights")
    with pytest.raises(ValueError, match="drawn for this config"):
        torch_stack(StackConfig(variant="post-ln", depth=3, width=4, ffn=True), weights)
