import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.simulations.measures.similarity import log_odds, token_similarity
from attndepth.simulations.models.stacks import (
    SAMPLINGS,
    StackConfig,
    attention_mask,
    attention_output,
    draw_softmax_weights,
    iterate_stack,
    layer_norm,
    remove_token_mean,
    run_stack,
    softmax_attention,
)
from attndepth.simulations.seeding import WEIGHTS_STREAM, spawn_generators
from attndepth.simulations.testing import stack_configs

configs = stack_configs(max_depth=4, max_tokens=6)


@given(configs, st.integers(1, 3), st.integers(0, 2**32))
def test_stack_shapes_and_stochastic_attention(config, batch, seed):
    trajectory = run_stack(config, batch, seed, keep_attention=True)
    n, d = config.tokens, config.width
    assert trajectory.states.shape == (config.depth + 1, batch, n, d)
    assert np.all(np.isfinite(trajectory.states))
    if config.depth:
        P = trajectory.attention
        assert P.shape == (config.depth, batch, config.heads, n, n)
        np.testing.assert_allclose(P.sum(-1), 1.0, atol=1e-12)
        assert np.all(P >= 0)
        if config.causal:
            assert np.all(P[..., np.triu(np.ones((n, n), bool), 1)] == 0)


@given(configs, st.integers(0, 2**32))
def test_same_seed_identical_different_seed_different(config, seed):
    a = run_stack(config, 2, seed).states
    b = run_stack(config, 2, seed).states
    np.testing.assert_array_equal(a, b)
    c = run_stack(config, 2, seed + 1).states
    assert not np.array_equal(a, c)


def test_iterate_matches_run_and_exposes_every_layer():
    config = StackConfig(depth=3, tokens=4, width=8, heads=2)
    trajectory = run_stack(config, 2, 5, keep_attention=True)
    weights = draw_softmax_weights(config, 2, 5)
    records = list(iterate_stack(config, weights, trajectory.states[0]))
    assert [r.layer for r in records] == [0, 1, 2]
    for record in records:
        np.testing.assert_array_equal(record.outputs, trajectory.states[record.layer + 1])
        np.testing.assert_array_equal(record.attention, trajectory.attention[record.layer])


def test_post_ln_states_are_layer_normalised():
    trajectory = run_stack(StackConfig(variant="post-ln", depth=2, tokens=5, width=8), 2, 0)
    last = trajectory.states[-1]
    np.testing.assert_allclose(last.mean(-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(last.var(-1), 1.0, rtol=1e-4)


def test_pure_variant_single_head_is_P_X_W():
    config = StackConfig(variant="pure", depth=1, tokens=4, width=3, heads=1)
    trajectory = run_stack(config, 1, 2, keep_attention=True)
    weights = draw_softmax_weights(config, 1, 2)
    X, P = trajectory.states[0][0], trajectory.attention[0, 0, 0]
    W = weights.value[0, 0] @ weights.output[0, 0]
    np.testing.assert_allclose(trajectory.states[1][0], P @ X @ W, rtol=1e-12)


def test_deesc_b_with_tau_one_is_LN_of_centred():
    config = StackConfig(variant="post-ln-deesc-b", depth=1, tokens=4, width=6, tau=1.0)
    trajectory = run_stack(config, 1, 3)
    residual_config = StackConfig(variant="residual", depth=1, tokens=4, width=6)
    plain = run_stack(residual_config, 1, 3).states[1]
    np.testing.assert_allclose(trajectory.states[1], layer_norm(remove_token_mean(plain, 1.0)))


def test_remove_token_mean_tau_one_zeroes_mean():
    X = np.random.default_rng(0).standard_normal((2, 5, 3))
    np.testing.assert_allclose(remove_token_mean(X, 1.0).mean(-2), 0.0, atol=1e-15)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(width=0), "width"),
        (dict(width=6, heads=4), "heads"),
        (dict(depth=-1), "depth"),
        (dict(tokens=0), "tokens"),
        (dict(tau=1.5), "tau"),
        (dict(tau=float("nan")), "tau"),
        (dict(temperature=0.0), "temperature"),
        (dict(temperature=float("inf")), "temperature"),
        (dict(variant="deep"), "variant"),
        (dict(causal="yes"), "causal"),
        (dict(dtype="float16"), "dtype"),
        (dict(window=0), "window"),
        (dict(window=2.5), "window"),
        (dict(residual_scale=0.0), "residual_scale"),
        (dict(residual_scale=float("inf")), "residual_scale"),
        (dict(variant="pure", residual_scale=0.5), "residual branch"),
    ],
)
def test_bad_config_rejected_naming_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        StackConfig(**kwargs)


def test_iterate_rejects_wrong_input_shape_and_nan():
    config = StackConfig(depth=1, tokens=3, width=4)
    weights = draw_softmax_weights(config, 1, 0)
    with pytest.raises(ValueError, match="shape"):
        list(iterate_stack(config, weights, np.zeros((1, 2, 4))))
    with pytest.raises(ValueError, match="finite"):
        list(iterate_stack(config, weights, np.full((1, 3, 4), np.nan)))


def test_residual_stack_overflow_names_the_depth():
    with pytest.raises(ValueError, match=r"residual states overflowed float64 at depth \d+"):
        run_stack(StackConfig(variant="residual", depth=3000, tokens=4, width=4), 1, 0)


def test_oversized_requests_rejected_before_allocating():
    with pytest.raises(ValueError, match="array elements"):
        run_stack(StackConfig(width=10**5, depth=3), 1, 0)


def test_weights_are_the_per_stack_stream_in_order_q_k_v_o():
    config = StackConfig(depth=3, tokens=4, width=6, ffn=True)
    weights = draw_softmax_weights(config, 2, 11)
    for k, rng in enumerate(spawn_generators(11, 2, WEIGHTS_STREAM)):
        for name in ("query", "key", "value", "output", "ffn_in"):
            drawn = rng.standard_normal(getattr(weights, name)[k].shape)
            expected = drawn * np.sqrt(2.0 / 6) if name == "ffn_in" else drawn / np.sqrt(6)
            np.testing.assert_array_equal(getattr(weights, name)[k], expected)
    assert np.shares_memory(weights.query, weights.projections)


@pytest.mark.parametrize("heads", [1, 3])
def test_fused_projection_layer_equals_the_public_layer_functions(heads):
    config = StackConfig(variant="residual", depth=1, tokens=5, width=6, heads=heads,
                         temperature=0.7)
    weights = draw_softmax_weights(config, 2, 3)
    X = np.random.default_rng(0).standard_normal((2, 5, 6))
    record = next(iterate_stack(config, weights, X))
    P = softmax_attention(X, weights.query[:, 0], weights.key[:, 0], heads, 0.7)
    np.testing.assert_allclose(record.attention, P, rtol=1e-13, atol=1e-15)
    expected = X + attention_output(X, P, weights.value[:, 0], weights.output[:, 0])
    np.testing.assert_allclose(record.outputs, expected, rtol=1e-12, atol=1e-13)


def test_float32_stack_runs_in_float32_and_tracks_float64_similarity():
    exact = StackConfig(variant="post-ln", depth=24, tokens=12, width=32, heads=2)
    single = StackConfig(variant="post-ln", depth=24, tokens=12, width=32, heads=2,
                         dtype="float32")
    rounded = run_stack(single, 3, 4, keep_attention=True)
    reference = run_stack(exact, 3, 4)
    assert rounded.states.dtype == np.float32 and rounded.attention.dtype == np.float32
    np.testing.assert_allclose(rounded.attention.sum(-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(rounded.states, reference.states, atol=1e-3)
    similarity = token_similarity(rounded.states)
    assert similarity.dtype == np.float64
    np.testing.assert_allclose(similarity, token_similarity(reference.states), atol=1e-5)
    np.testing.assert_allclose(log_odds(rounded.states), log_odds(reference.states), atol=1e-3)


def test_float64_weights_are_rounded_once_for_a_float32_config():
    config = StackConfig(depth=2, tokens=3, width=4, dtype="float32")
    weights = draw_softmax_weights(config, 1, 0)  # drawn in float64
    assert weights.astype("float64").projections is weights.projections
    X0 = np.random.default_rng(0).standard_normal((1, 3, 4))
    record = list(iterate_stack(config, weights, X0))[-1]
    assert record.outputs.dtype == np.float32


def test_weights_are_reused_across_variants_and_read_only():
    pure = draw_softmax_weights(StackConfig(variant="pure", depth=3, tokens=4, width=8), 2, 9)
    post = draw_softmax_weights(StackConfig(variant="post-ln", depth=3, tokens=5, width=8,
                                            heads=2), 2, 9)
    assert post is pure
    with pytest.raises(ValueError, match="read-only"):
        pure.output[0, 0, 0, 0] = 1.0
    assert draw_softmax_weights(StackConfig(depth=3, width=8), 2, 10) is not pure




@given(tokens=st.integers(1, 9), window=st.one_of(st.none(), st.integers(1, 10)),
       causal=st.booleans())
def test_attention_mask_keeps_the_diagonal_and_the_band(tokens, window, causal):
    forbidden = attention_mask(tokens, causal, window)
    if window is None and not causal:
        assert forbidden is None
        return
    i, j = np.indices((tokens, tokens))
    allowed = np.ones((tokens, tokens), dtype=bool)
    if causal:
        allowed &= j <= i
    if window is not None:
        allowed &= np.abs(i - j) < window
    assert np.array_equal(~forbidden, allowed) and not forbidden.diagonal().any()


def test_windowed_attention_is_zero_outside_the_band_and_stochastic():
    config = StackConfig(variant="pure", depth=2, tokens=7, width=4, window=2, causal=True)
    P = run_stack(config, batch=3, seed=1, keep_attention=True).attention
    i, j = np.indices((7, 7))
    assert np.all(P[..., (j > i) | (i - j >= 2)] == 0)
    assert np.allclose(P.sum(axis=-1), 1.0) and np.all(P[..., i == j] > 0)


def test_window_of_one_is_the_identity_attention():
    config = StackConfig(variant="pure", depth=1, tokens=5, width=4, window=1)
    P = run_stack(config, batch=2, seed=0, keep_attention=True).attention
    assert np.array_equal(P[0, :, 0], np.broadcast_to(np.eye(5), (2, 5, 5)))


def test_residual_scale_multiplies_the_branch():
    base = StackConfig(variant="residual", depth=1, tokens=4, width=4)
    plain, half = (run_stack(StackConfig(**{**base.as_dict(), "residual_scale": a}),
                             batch=2, seed=3) for a in (1.0, 0.5))
    X0 = plain.states[0]
    assert np.allclose(half.states[1] - X0, 0.5 * (plain.states[1] - X0), atol=1e-14)


def test_a_config_shows_its_sizes_and_only_what_differs_from_the_defaults():
    from attndepth.simulations.models.stacks import StackConfig

    config = StackConfig(variant="pre-ln", depth=4, tokens=3, width=8, ffn=True,
                         temperature=0.5)
    assert repr(config) == ("StackConfig(variant='pre-ln', depth=4, tokens=3, width=8, "
                            "temperature=0.5, ffn=True)")
    assert eval(repr(config), {"StackConfig": StackConfig}) == config
    assert repr(StackConfig()) == "StackConfig(variant='post-ln', depth=16, tokens=16, width=32)"


def test_a_trajectory_shows_shapes_not_arrays():
    from attndepth.simulations.models.stacks import StackConfig, run_stack

    shown = repr(run_stack(StackConfig(depth=2, tokens=3, width=4), 2, 0,
                           keep_attention=True))
    assert shown == ("Trajectory(2 stacks of StackConfig(variant='post-ln', depth=2, "
                     "tokens=3, width=4), seed 0; states (3, 2, 3, 4) float64, attention "
                     "kept (2, 2, 1, 3, 3))")


def test_a_notebook_shows_a_config_and_a_trajectory_as_tables():
    from attndepth.simulations.models.stacks import StackConfig, run_stack

    config = StackConfig(variant="pre-ln", depth=2, tokens=3, width=4, norm_scaling=True)
    shown = config._repr_html_()
    assert shown.startswith("<table>") and "norm_scaling" in shown and "ffn" not in shown
    assert "LayerNorm scaling" in shown  # each field with its meaning
    trajectory = run_stack(config, 2, 0)._repr_html_()
    assert "(3, 2, 3, 4) float64" in trajectory and "not kept" in trajectory


@given(configs, st.integers(1, 3), st.integers(0, 2**32))
def test_drawn_weights_start_on_a_64_byte_boundary(config, batch, seed):
    """So that JAX's CPU client takes them without a copy (jax_stack.stack_states)."""
    from attndepth.simulations.models.stacks import _draw_softmax_weights

    weights = _draw_softmax_weights(config, batch, seed)
    arrays = [weights.projections, weights.output, weights.ffn_in, weights.ffn_out,
              *weights.extra.values()]
    for array in (a for a in arrays if a is not None and a.size):  # depth 0: nothing to hand
        assert array.ctypes.data % 64 == 0 and array.flags.c_contiguous
        assert array.dtype == np.float64


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_a_block_too_large_for_memory_is_refused_before_it_runs(sampling):
    from attndepth.simulations.models.stacks import draw_run, iterate_stack

    config = StackConfig(variant="post-ln", depth=2, tokens=20_000, width=4,
                         sampling=sampling)
    weights, inputs = draw_run(config, 1, 0)
    with pytest.raises(ValueError, match="one block's attention logits needs"):
        next(iterate_stack(config, weights, inputs))
