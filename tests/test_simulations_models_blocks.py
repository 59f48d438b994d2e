"""Block specifications: presets unchanged, each option by hand, one definition, two backends."""

import json
from pathlib import Path

import numpy as np
import pytest

from attndepth.simulations.models.blocks import PRESETS, BlockSpec, Sublayer
from attndepth.simulations.models.stacks import (
    VARIANTS,
    StackConfig,
    draw_softmax_weights,
    draw_stack,
    layer_norm,
    run_stack,
    softmax_attention,
)

REFERENCE = Path(__file__).parent / "data" / "stack_presets_reference.npz"


def test_the_named_variants_give_the_numbers_they_gave_before_the_block_specification():
    # tests/data/stack_presets_reference.npz: the states of 154 configurations (six variants
    # × heads × FFN × masks × residual scale × dtype) recorded with the code before blocks.py
    data = np.load(REFERENCE)
    configs = json.loads(str(data["configs"]))
    assert {c["variant"] for c in configs} == set(VARIANTS) == set(PRESETS)
    for index, fields in enumerate(configs):
        fields = dict(fields)
        seed = fields.pop("seed")
        states = run_stack(StackConfig(**fields), 2, seed).states
        reference = data[f"c{index}"]
        assert states.dtype == reference.dtype
        # float32 GEMMs sum in the order of the BLAS kernel the CPU selects: the
        # reference was recorded with OpenBLAS's SkylakeX kernel, and its Haswell kernel
        # (AVX2 machines) differs by up to 2.8e-5 relative after three layers. A change of
        # the arithmetic moves the states by far more than 1e-4.
        tolerance = 1e-13 if states.dtype == np.float64 else 1e-4
        np.testing.assert_allclose(states, reference, rtol=tolerance, atol=tolerance,
                                   err_msg=str(fields))


def _one_block(config, seed=3):
    """(X0, attention update A(X0) on the input the config says, states after one block)."""
    weights, X0 = draw_stack(config, 2, seed)
    states = run_stack(config, 2, seed).states
    return weights, X0, states[1]


def _attention_update(X, weights, heads=1, temperature=1.0):
    P = softmax_attention(X, weights.query[:, 0], weights.key[:, 0], heads, temperature)
    return P[:, 0] @ X @ weights.value[:, 0] @ weights.output[:, 0]


def _rms(X):
    return X / np.sqrt((X * X).mean(axis=-1, keepdims=True) + 1e-5)


def test_deepnorm_skip_scale_multiplies_the_skip_path_inside_the_norm():
    config = StackConfig(variant="post-ln", skip_scale=2.0, depth=1, tokens=5, width=8)
    weights, X0, after = _one_block(config)
    np.testing.assert_allclose(after, layer_norm(2.0 * X0 + _attention_update(X0, weights)),
                               atol=1e-12)


def test_skip_and_branch_scales_are_different_placements():
    fields = dict(variant="post-ln", depth=1, tokens=5, width=8)
    weights, X0, skip = _one_block(StackConfig(skip_scale=2.0, **fields))
    _, _, branch = _one_block(StackConfig(residual_scale=0.5, **fields))
    update = _attention_update(X0, weights)
    np.testing.assert_allclose(branch, layer_norm(X0 + 0.5 * update), atol=1e-12)
    # LN is scale invariant: LN(2X + A) = LN(X + A/2) up to its epsilon
    np.testing.assert_allclose(skip, branch, atol=1e-4)


def test_peri_normalises_the_branch_input_and_output_with_the_chosen_kind():
    config = StackConfig(variant="residual", norm="peri", norm_kind="rms", skip_scale=1.5,
                         depth=1, tokens=4, width=8)
    weights, X0, after = _one_block(config)
    expected = 1.5 * X0 + _rms(_attention_update(_rms(X0), weights))
    np.testing.assert_allclose(after, expected, atol=1e-12)


def test_qk_norm_normalises_each_heads_queries_and_keys():
    config = StackConfig(variant="pure", qk_norm=True, heads=2, depth=1, tokens=4, width=8,
                         temperature=0.7)
    weights, X0, after = _one_block(config)
    Q, K = X0 @ weights.query[:, 0], X0 @ weights.key[:, 0]
    expected = np.zeros_like(X0)
    for h in range(2):
        block = slice(4 * h, 4 * h + 4)
        logits = layer_norm(Q[..., block]) @ np.swapaxes(layer_norm(K[..., block]), 1, 2)
        logits /= 2.0 * 0.7
        P = np.exp(logits - logits.max(-1, keepdims=True))
        P /= P.sum(-1, keepdims=True)
        values = X0 @ weights.value[:, 0][..., block]
        expected += P @ values @ weights.output[:, 0][:, block]
    np.testing.assert_allclose(after, expected, atol=1e-12)


def test_deescalation_placements_combine_with_any_normalisation():
    config = StackConfig(variant="pre-ln", deescalation="branch", tau=0.5, depth=1, tokens=4,
                         width=8)
    weights, X0, after = _one_block(config)
    update = _attention_update(layer_norm(X0), weights)
    np.testing.assert_allclose(after, X0 + update - 0.5 * update.mean(axis=1, keepdims=True),
                               atol=1e-12)


def test_layernorm_scaling_divides_block_ells_normalised_input_by_root_ell():
    config = StackConfig(variant="pre-ln", norm_scaling=True, ffn=True, depth=3, tokens=4,
                         width=8)
    weights, _ = draw_stack(config, 2, 0)
    states = run_stack(config, 2, 0).states
    for index in range(3):
        layer, X = weights.layer(index), states[index]
        read = (index + 1) ** -0.5 * layer_norm(X)
        P = softmax_attention(read, weights.query[:, index], weights.key[:, index], 1)
        Y = X + P[:, 0] @ read @ weights.value[:, index] @ layer["output"]
        hidden = np.maximum((index + 1) ** -0.5 * layer_norm(Y) @ layer["ffn_in"], 0.0)
        np.testing.assert_allclose(states[index + 1], Y + hidden @ layer["ffn_out"],
                                   atol=1e-12, err_msg=f"block {index + 1}")


def _attention_at(X, weights, index):
    P = softmax_attention(X, weights.query[:, index], weights.key[:, index], 1)
    return P[:, 0] @ X @ weights.value[:, index] @ weights.output[:, index]


def test_mix_ln_runs_its_first_blocks_post_ln_and_the_rest_pre_ln():
    # Mix-LN (Li et al. 2024): ⌊ρL⌋ = ⌊0.4 · 5⌋ = 2 post-LN blocks, then 3 pre-LN blocks
    config = StackConfig(variant="post-ln", norm="mix", mix_ratio=0.4, depth=5, tokens=4,
                         width=8)
    assert config.block.mix_post_blocks == 2
    weights, _ = draw_stack(config, 2, 1)
    states = run_stack(config, 2, 1).states
    for index in range(5):
        X = states[index]
        expected = (layer_norm(X + _attention_at(X, weights, index)) if index < 2
                    else X + _attention_at(layer_norm(X), weights, index))
        np.testing.assert_allclose(states[index + 1], expected, atol=1e-12,
                                   err_msg=f"block {index + 1}")
    every = dict(variant="residual", depth=4, tokens=4, width=8)
    np.testing.assert_allclose(run_stack(StackConfig(norm="mix", mix_ratio=1.0, **every), 2, 0)
                               .states, run_stack(StackConfig(norm="post", **every), 2, 0).states)
    np.testing.assert_allclose(run_stack(StackConfig(norm="mix", mix_ratio=0.0, **every), 2, 0)
                               .states, run_stack(StackConfig(norm="pre", **every), 2, 0).states)


def test_ngpt_steps_towards_the_normalised_branch_and_stays_on_the_sphere():
    # nGPT (Loshchilov et al. 2024): h ← Norm(h + a (Norm(ATTN(h)) − h)), h on the sphere
    config = StackConfig(variant="residual", norm="ngpt", norm_kind="rms", ngpt_step=0.3,
                         depth=3, tokens=4, width=8)
    weights, _ = draw_stack(config, 2, 2)
    states = run_stack(config, 2, 2).states
    for index in range(3):
        start = _rms(states[index])
        branch = _rms(_attention_at(start, weights, index))
        np.testing.assert_allclose(states[index + 1], _rms(start + 0.3 * (branch - start)),
                                   atol=1e-12)
    # on the sphere of radius √d up to the ε = 1e-5 added to a mean square of order 1
    np.testing.assert_allclose(np.mean(states[1:] ** 2, axis=-1), 1.0, atol=1e-4)


def test_dyt_replaces_the_normaliser_by_tanh_of_a_times_x():
    # DyT (Zhu et al. 2025): tanh(a₀ x) element-wise, wherever the placement normalises
    config = StackConfig(variant="pre-ln", norm_kind="dyt", dyt_alpha=0.7, depth=1, tokens=4,
                         width=8)
    weights, X0, after = _one_block(config)
    np.testing.assert_allclose(after, X0 + _attention_update(np.tanh(0.7 * X0), weights),
                               atol=1e-12)


@pytest.mark.parametrize("causal", [True, False])
def test_a_decay_mask_lowers_each_scaled_logit_by_m_times_the_distance(causal):
    # the decay mask (ALiBi; Wu et al. 2025): softmax(QKᵀ/√d_k − m|i − j|), masked
    config = StackConfig(variant="pure", decay=0.8, causal=causal, depth=1, tokens=5,
                         width=8, temperature=0.5)
    weights, X0 = draw_stack(config, 2, 4)
    P = run_stack(config, 2, 4, keep_attention=True).attention[0, :, 0]
    index = np.arange(5)
    logits = (X0 @ weights.query[:, 0] @ (X0 @ weights.key[:, 0]).swapaxes(1, 2)
              / (np.sqrt(8) * 0.5) - 0.8 * np.abs(index[:, None] - index[None, :]))
    if causal:
        logits[:, index[:, None] < index[None, :]] = -np.inf
    expected = np.exp(logits - logits.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(P, expected / expected.sum(axis=-1, keepdims=True), atol=1e-12)


GATED = Sublayer("gated", lambda xp, X, w: (X @ w["up"]) / (1 + xp.exp(-(X @ w["gate"]))),
                 lambda d: {"gate": (d, d), "up": (d, d)})


def test_a_user_sublayer_is_drawn_after_the_stacks_own_weights_and_joined_like_a_branch():
    fields = dict(variant="post-ln", depth=2, tokens=4, width=8)
    plain = draw_softmax_weights(StackConfig(**fields), 2, 1)
    config = StackConfig(sublayer=GATED, **fields)
    weights = draw_softmax_weights(config, 2, 1)
    np.testing.assert_array_equal(weights.projections, plain.projections)
    assert weights.extra["gate"].shape == (2, 2, 8, 8)
    assert abs(np.var(weights.extra["up"]) * 8 - 1) < 0.3  # variance 1/fan_in
    _, X0, after = _one_block(config, seed=1)
    middle = layer_norm(X0 + _attention_update(X0, weights))
    up, gate = weights.extra["up"][:, 0], weights.extra["gate"][:, 0]
    gated = (middle @ up) / (1 + np.exp(-(middle @ gate)))
    np.testing.assert_allclose(after, layer_norm(middle + gated), atol=1e-12)
    assert config.as_dict()["sublayer"] == "gated"


@pytest.mark.parametrize(("fields", "message"), [
    (dict(variant="pure", skip_scale=2.0), "skip_scale needs a residual branch"),
    (dict(variant="pure", deescalation="branch"), "needs a skip path"),
    (dict(norm="side"), "norm must be one of"),
    (dict(norm_kind="batch"), "norm_kind must be one of"),
    (dict(deescalation="both"), "deescalation must be one of"),
    (dict(skip_scale=0.0), "skip_scale"),
    (dict(qk_norm=1), "qk_norm must be True or False"),
    (dict(variant="post-ln", norm_scaling=True), "norm_scaling .* defined for pre-LN"),
    (dict(variant="pre-ln", norm_scaling="yes"), "norm_scaling must be True or False"),
    (dict(sublayer=lambda xp, X, w: X), "sublayer must be a Sublayer"),
    (dict(variant="pure", norm="mix"), "defined by its skip path"),
    (dict(variant="pure", norm="ngpt"), "defined by its skip path"),
    (dict(norm="ngpt", norm_kind="dyt"), "sphere"),
    (dict(norm="ngpt", residual_scale=0.5), "only scale"),
    (dict(variant="post-ln-deesc-a", norm="ngpt"), "only scale"),
    (dict(norm="mix", mix_ratio=1.5), "mix_ratio"),
    (dict(norm="ngpt", ngpt_step=0.0), "ngpt_step"),
    (dict(norm_kind="dyt", dyt_alpha=-1.0), "dyt_alpha"),
    (dict(decay=-0.5), "decay"),
    (dict(decay=float("nan")), "decay"),
])
def test_a_bad_block_option_is_a_clear_error(fields, message):
    with pytest.raises((ValueError, TypeError), match=message):
        StackConfig(**fields)


def test_a_sublayer_that_misbehaves_is_named_in_the_error():
    wrong_shape = Sublayer("halves", lambda xp, X, w: X[..., :2], lambda d: {})
    with pytest.raises(ValueError, match="sublayer 'halves' returned shape"):
        run_stack(StackConfig(depth=1, tokens=3, width=4, sublayer=wrong_shape), 1, 0)
    taken = Sublayer("clash", lambda xp, X, w: X, lambda d: {"output": (d, d)})
    with pytest.raises(ValueError, match="'output' is taken"):
        run_stack(StackConfig(depth=1, tokens=3, width=4, sublayer=taken), 1, 0)
    with pytest.raises(TypeError, match="apply must be callable"):
        Sublayer("none", None, lambda d: {})


def test_the_presets_resolve_to_their_specifications_and_records_stay_as_they_were():
    assert StackConfig(variant="post-ln-deesc-b").block == BlockSpec(norm="post",
                                                                     deescalation="sum")
    assert StackConfig(variant="post-ln", norm="peri").block.norm == "peri"
    assert "skip_scale" not in StackConfig().as_dict()
    assert StackConfig(skip_scale=2.0).as_dict()["skip_scale"] == 2.0
