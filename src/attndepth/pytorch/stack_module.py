"""attndepth's own post-LN and pre-LN stacks as ``torch.nn.TransformerEncoder`` modules.

A block of :mod:`attndepth.simulations.models.blocks` with ``ffn=True`` and LayerNorm is,
weight for weight, PyTorch's ``TransformerEncoderLayer`` with zero biases, unit
LayerNorm gains, ReLU, a 4d feed-forward width and no dropout:

- attention: ``X @ [W_Q | W_K | W_V]`` is ``x Wᵀ`` with ``in_proj_weight = [W_Q | W_K |
  W_V]ᵀ``; heads split the features into contiguous blocks of d/H in both; the logits are
  scaled by 1/√(d/H); the output is ``concat_h(P_h V_h) W_O``, ``out_proj.weight = W_Oᵀ``;
- feed-forward: ``ReLU(X W_in) W_out``, ``linear1.weight = W_inᵀ``, ``linear2.weight =
  W_outᵀ``;
- post-LN: X ← LN(X + F(X)) after each sublayer (``norm_first=False``); pre-LN:
  X ← X + F(LN(X)) (``norm_first=True``); LayerNorm with ε = 10⁻⁵ in both.

:func:`torch_stack` copies one sequence's weights into such a module; a test shows the
two give the same states to float64 round-off, which is what lets a verdict measured on
a torch model be compared with one measured on attndepth's stacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.pytorch.loading import load_torch
from attndepth.simulations.models.blocks import NORM_EPS
from attndepth.simulations.models.stacks import SoftmaxWeights, StackConfig
from attndepth.validation import check_int

#: The block placements a ``TransformerEncoderLayer`` has: ``norm_first`` for each.
NORM_FIRST = {"post": False, "pre": True}


def check_bridgeable(config: StackConfig) -> None:
    """Refuse a stack ``TransformerEncoderLayer`` cannot express, naming the setting.

    It expresses post-LN and pre-LN blocks with LayerNorm and a ReLU FFN at temperature 1,
    with unit skip and branch scales, no de-escalation, no QK-norm or LayerNorm scaling, no
    user sublayer, no local window and no decay mask.
    """
    if not isinstance(config, StackConfig):
        raise InvalidType(f"config must be a StackConfig, got {type(config).__name__}")
    spec = config.block
    differences = {
        "a post-LN or pre-LN block (norm post or pre)": spec.norm in NORM_FIRST and spec.skip,
        "LayerNorm (norm_kind layer)": spec.norm_kind == "layer",
        "the feed-forward sublayer (ffn True)": config.ffn,
        "temperature 1": config.temperature == 1.0,
        "skip_scale and residual_scale 1": spec.skip_scale == spec.residual_scale == 1.0,
        "no de-escalation": spec.deescalation == "none",
        "no qk_norm": not spec.qk_norm,
        "no norm_scaling": not spec.norm_scaling,
        "no user sublayer": config.sublayer is None,
        "no local window": config.window is None,
        "no decay mask (decay 0)": spec.decay == 0.0,
    }
    missing = [needed for needed, holds in differences.items() if not holds]
    if missing:
        raise InvalidParameter(f"torch.nn.TransformerEncoderLayer expresses this stack only "
                               f"with {', '.join(missing)}")


def torch_stack(config: StackConfig, weights: SoftmaxWeights, index: int = 0) -> Any:
    """Sequence ``index``'s stack as a float64 ``torch.nn.TransformerEncoder``.

    Parameters
    ----------
    config : StackConfig
        Accepted by :func:`check_bridgeable`.
    weights : SoftmaxWeights
        Of ``config`` (:func:`~attndepth.simulations.models.stacks.draw_softmax_weights`).
    index : which sequence of the batch.

    Returns
    -------
    torch.nn.TransformerEncoder
        In eval mode; with ``config.causal`` run it with ``mask`` =
        ``torch.nn.Transformer.generate_square_subsequent_mask(n)`` and ``is_causal=True``.
    """
    check_bridgeable(config)
    if not isinstance(weights, SoftmaxWeights):
        raise InvalidType(f"weights must be SoftmaxWeights, got {type(weights).__name__}")
    index = check_int("index", index, minimum=0, maximum=weights.batch - 1)
    if weights.projections.shape[1] != config.depth or weights.width != config.width:
        raise InvalidParameter("weights must be drawn for this config (depth and width)")
    torch = load_torch()
    d = config.width
    layer = torch.nn.TransformerEncoderLayer(
        d, config.heads, 4 * d, dropout=0.0, batch_first=True, layer_norm_eps=NORM_EPS,
        norm_first=NORM_FIRST[config.block.norm], dtype=torch.float64)
    stack = torch.nn.TransformerEncoder(layer, config.depth, enable_nested_tensor=False)

    def tensor(array: np.ndarray) -> Any:
        return torch.tensor(array, dtype=torch.float64)  # a copy: drawn weights are read-only

    ffn_in, ffn_out = weights.ffn_in, weights.ffn_out
    if ffn_in is None or ffn_out is None:
        raise InvalidParameter("weights must be drawn for this config (with its feed-forward "
                               "sublayer)")
    with torch.no_grad():
        for depth, block in enumerate(stack.layers):
            block.self_attn.in_proj_weight.copy_(tensor(weights.projections[index, depth].T))
            block.self_attn.out_proj.weight.copy_(tensor(weights.output[index, depth].T))
            block.linear1.weight.copy_(tensor(ffn_in[index, depth].T))
            block.linear2.weight.copy_(tensor(ffn_out[index, depth].T))
            for bias in (block.self_attn.in_proj_bias, block.self_attn.out_proj.bias,
                         block.linear1.bias, block.linear2.bias):
                bias.zero_()
    return stack.eval()
