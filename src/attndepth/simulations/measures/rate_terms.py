"""One post-LN block's log-odds change, split into the parts its derivation names.

For X′ = LN(Y), Y = X + A(X), with Π the mean-token projector and C the
feature centring, the change of the log-odds ℓ = ln(‖ΠX‖²/‖(I−Π)X‖²) is
exactly

    ℓ′ − ℓ = ln(‖ΠYC‖²/‖ΠX‖²)  −  ln(‖(I−Π)YC‖²/‖(I−Π)X‖²)  +  [ℓ(LN(Y)) − ℓ(YC)]
              (mean factor)          (diversity factor)           (per-token scaling)

(centring commutes with Π: ``yuzhang.layernorm``). Each part has its own term
in the derived rate (:func:`attndepth.theory.similarity.postln_rate_terms`), so
measuring them apart tests the terms one by one. An ablation replaces the
output matrix by the identity, W = W_V: a single Gaussian value map instead
of the product W_V W_O. Nothing here knows a prediction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.simulations.measures.similarity import log_odds
from attndepth.simulations.models.blocks import NORM_EPS, mix_heads
from attndepth.simulations.models.law import LawWeights
from attndepth.simulations.models.stacks import (
    SoftmaxWeights,
    StackConfig,
    draw_run,
    draw_stack,
    iterate_stack,
)


@dataclass(frozen=True)
class RateTerms:
    """The parts of every block's log-odds change, per block and stack.

    Attributes
    ----------
    mean, diversity, scaling, total : (depth, batch)
        ln(‖ΠYC‖²/‖ΠX‖²), ln(‖(I−Π)YC‖²/‖(I−Π)X‖²), ℓ(LN(Y)) − ℓ(YC) and
        ℓ(X′) − ℓ(X) = mean − diversity + scaling.
    log_odds : (depth + 1, batch)
        ℓ before every block and after the last.
    """

    mean: np.ndarray
    diversity: np.ndarray
    scaling: np.ndarray
    total: np.ndarray
    log_odds: np.ndarray


def _squared_parts(Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = Y.mean(axis=-2, keepdims=True)
    tokens = Y.shape[-2]
    return (tokens * (mean * mean).sum(axis=(-2, -1)),
            ((Y - mean) ** 2).sum(axis=(-2, -1)))


def postln_rate_terms(config: StackConfig, batch: int, seed: int,
                      single_value_matrix: bool = False) -> RateTerms:
    """Run plain post-LN stacks and split each block's log-odds change in three.

    Parameters
    ----------
    config : StackConfig
        The plain post-LN block (variant ``"post-ln"``, LayerNorm, skip and branch
        scales 1, no FFN, no sublayer): the block the parts are written for. With
        ``sampling="law"`` Y is the block's own sum again: each matrix is applied to
        the states it met in the block, which gives the same product.
    batch, seed : int
        Stacks drawn as by :func:`~attndepth.simulations.models.stacks.draw_run`.
    single_value_matrix : bool
        Replace every output matrix W_O by the identity (an ablation: W = W_V; drawn
        weights only).

    Returns
    -------
    RateTerms
    """
    if not isinstance(config, StackConfig):
        raise InvalidType(f"config must be a StackConfig, got {type(config).__name__}")
    block = config.block
    if not (block.skip and block.norm == "post" and block.norm_kind == "layer"
            and block.skip_scale == 1 and block.residual_scale == 1
            and block.deescalation == "none" and not block.qk_norm
            and not config.ffn and config.sublayer is None):
        raise InvalidParameter("postln_rate_terms measures the plain post-LN block "
                               "(StackConfig(variant='post-ln') without FFN or other options)")
    weights: SoftmaxWeights | LawWeights
    if single_value_matrix:
        weights, X0 = draw_stack(config, batch, seed)  # refuses sampling="law"
        identity = np.broadcast_to(np.eye(config.width), weights.output.shape)
        weights = replace(weights, output=np.array(identity, dtype=weights.output.dtype))
    else:
        weights, X0 = draw_run(config, batch, seed)
    d = config.width
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("mean", "diversity", "scaling",
                                                          "total")}
    odds = [log_odds(X0)]
    for record in iterate_stack(config, weights, X0):
        X, layer = record.inputs, weights.layer(record.layer)
        values = (X @ layer["projections"])[..., 2 * d:]  # the block's own V
        Y = X + mix_heads(record.attention, values, layer["output"])
        centred = Y - Y.mean(axis=-1, keepdims=True)
        scaled = centred / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + NORM_EPS)
        before_mean, before_diversity = _squared_parts(X)
        after_mean, after_diversity = _squared_parts(centred)
        parts["mean"].append(np.log(after_mean / before_mean))
        parts["diversity"].append(np.log(after_diversity / before_diversity))
        parts["scaling"].append(log_odds(scaled) - log_odds(centred))
        odds.append(log_odds(record.outputs))
        parts["total"].append(odds[-1] - odds[-2])
    return RateTerms(mean=np.array(parts["mean"]), diversity=np.array(parts["diversity"]),
                     scaling=np.array(parts["scaling"]), total=np.array(parts["total"]),
                     log_odds=np.array(odds))
