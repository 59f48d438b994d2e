import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import ks_2samp

from attndepth.simulations.measures import block_jacobian, escalation, rate_terms
from attndepth.simulations.measures.similarity import log_odds
from attndepth.simulations.models import law, stacks
from attndepth.simulations.models.law import (
    GaussianAction,
    LawWeights,
    draw_law_weights,
    law_draws_per_layer,
    token_factor,
)
from attndepth.simulations.models.stacks import (
    StackConfig,
    draw_run,
    draw_softmax_weights,
    draw_stack,
    draws_per_layer,
    iterate_stack,
    run_stack,
    weights_per_layer,
)
from attndepth.simulations.models.weight_cache import WeightCache
from attndepth.simulations.seeding import LAW_STREAM, spawn_generators
from attndepth.simulations.testing import stack_configs


@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_the_token_factor_reproduces_the_gram_matrix(tokens, fan_in, seed):
    Z = np.random.default_rng(seed).standard_normal((2, tokens, fan_in))
    F = token_factor(Z)
    assert F.shape == (2, tokens, min(tokens, fan_in))
    np.testing.assert_allclose(F @ F.swapaxes(-1, -2), Z @ Z.swapaxes(-1, -2),
                               rtol=1e-12, atol=1e-12)
    if tokens >= fan_in:
        assert F is Z


@pytest.mark.parametrize("spread", [1e-11, 1e-3])
def test_the_token_factor_keeps_tokens_that_nearly_agree_apart(spread):
    # tokens equal to 1e-11 (post-LN log-odds near 50): the differences of F's rows keep
    # those of Z's to 1e-4 (rows of Z known to ε|z|, as Z W knows them), where the
    # Cholesky factor of Z Zᵀ loses them below round-off
    rng = np.random.default_rng(0)
    Z = rng.standard_normal(32) + spread * rng.standard_normal((2, 16, 32))
    F = token_factor(Z)
    centred_F, centred_Z = F - F.mean(axis=-2, keepdims=True), Z - Z.mean(axis=-2,
                                                                         keepdims=True)
    diversity = centred_Z @ centred_Z.swapaxes(-1, -2)
    np.testing.assert_allclose(centred_F @ centred_F.swapaxes(-1, -2), diversity, rtol=1e-4,
                               atol=1e-4 * float(np.abs(diversity).max()))


def test_both_routes_give_the_one_cholesky_factor():
    # the QR route (taken for tokens of lower rank) and the Gram route give the same
    # lower-triangular factor with a positive diagonal, so the route is round-off only
    M = np.random.default_rng(3).standard_normal((4, 5, 9))
    np.testing.assert_allclose(law._qr_factor(M), np.linalg.cholesky(M @ M.swapaxes(-1, -2)),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("tokens", [1, 2, 5, 16])
def test_the_mean_reflection_is_orthogonal_and_takes_the_mean_first(tokens):
    U = law.mean_reflection(tokens)
    np.testing.assert_allclose(U @ U.T, np.eye(tokens), atol=1e-14)
    np.testing.assert_allclose(U[:, 0], np.full(tokens, tokens ** -0.5), atol=1e-15)
    with pytest.raises(ValueError, match="tokens"):
        law.mean_reflection(0)


def test_each_stack_takes_its_own_route(monkeypatch):
    # tokens whose differences span one direction (no Cholesky factor past the second
    # pivot) beside generic ones: the generic stack's factor is the one it has alone
    rng = np.random.default_rng(4)
    generic = rng.standard_normal((5, 9))
    collinear = rng.standard_normal(9) + np.outer(rng.standard_normal(5), rng.standard_normal(9))
    alone = token_factor(generic[None])
    both = token_factor(np.stack([collinear, generic]))
    np.testing.assert_array_equal(both[1], alone[0])
    np.testing.assert_allclose(both[0] @ both[0].T, collinear @ collinear.T, rtol=1e-12)
    routes = []
    monkeypatch.setattr(law, "_qr_factor", lambda M: routes.append(len(M)) or
                        np.zeros((len(M), 5, 5)))
    token_factor(np.stack([collinear, generic]))
    token_factor(rng.standard_normal(9) + 1e-12 * rng.standard_normal((3, 5, 9)))
    assert routes == [1]  # nearly parallel tokens need no QR: their differences are kept


def test_identical_tokens_have_a_factor_too():
    Z = np.tile(np.arange(1.0, 9.0), (4, 1))  # rank 1: Z Zᵀ has no Cholesky factor
    F = token_factor(Z)
    np.testing.assert_allclose(F @ F.T, Z @ Z.T, rtol=1e-12)


@pytest.mark.parametrize("Z", [np.ones(3), np.array([[1.0, np.nan]]), [["a"]]])
def test_the_token_factor_refuses_what_is_not_a_finite_matrix(Z):
    with pytest.raises(ValueError, match="Z"):
        token_factor(Z)


def test_an_action_is_the_factor_times_its_noise_and_the_weight_itself_when_tall():
    rng = np.random.default_rng(1)
    wide, noise = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 3, 5))
    np.testing.assert_array_equal(wide @ GaussianAction(noise, 8), token_factor(wide) @ noise)
    tall, weight = rng.standard_normal((2, 6, 4)), rng.standard_normal((2, 4, 5))
    np.testing.assert_array_equal(tall @ GaussianAction(weight, 4), tall @ weight)
    with pytest.raises(ValueError, match="fan-in"):
        _ = rng.standard_normal((2, 3, 7)) @ GaussianAction(noise, 8)
    np.testing.assert_array_equal(wide[0].tolist() @ GaussianAction(noise[0], 8),
                                  token_factor(wide[0]) @ noise[0])


@pytest.mark.parametrize("noise, fan_in, match", [
    (np.ones(3), 2, "noise"), (np.ones((2, 2), dtype=int), 2, "noise"), ([[1.0]], 1, "noise"),
    (np.ones((2, 2)), 0, "fan_in"), (np.ones((2, 2)), 2.5, "fan_in"),
])
def test_an_action_refuses_what_is_not_noise(noise, fan_in, match):
    with pytest.raises(ValueError, match=match):
        GaussianAction(noise, fan_in)


def test_one_product_has_the_law_of_the_weights():
    # Z W with W ~ N(0, 1/d): column covariance Z Zᵀ/d, columns independent
    rng = np.random.default_rng(2)
    d, samples = 8, 40_000
    Z = rng.standard_normal((3, d))
    noise = rng.standard_normal((samples, 3, 1)) / np.sqrt(d)
    columns = (np.broadcast_to(Z, (samples, 3, d)) @ GaussianAction(noise, d))[..., 0]
    covariance, expected = np.cov(columns.T), Z @ Z.T / d
    scale = np.sqrt((expected ** 2 + np.outer(np.diag(expected), np.diag(expected)))
                    / samples)  # standard error of each sample covariance
    assert np.all(np.abs(covariance - expected) < 5 * scale)


def _final_log_odds(config, seeds=8, batch=48):
    return np.concatenate([log_odds(run_stack(config, batch, seed).states[-1])
                           for seed in range(seeds)])


@pytest.mark.parametrize("block", [
    dict(variant="post-ln", depth=12, heads=2),
    dict(variant="pre-ln", depth=6, ffn=True, causal=True),
    dict(variant="residual", depth=6, temperature=10.0, residual_scale=0.5),
])
def test_a_stack_sampled_in_law_has_the_law_of_its_drawn_weights(block):
    sizes = dict(tokens=6, width=16)
    drawn = _final_log_odds(StackConfig(**block, **sizes))
    in_law = _final_log_odds(StackConfig(**block, **sizes, sampling="law"))
    assert ks_2samp(drawn, in_law).pvalue > 1e-3


def test_the_law_test_sees_a_noise_of_the_wrong_variance(monkeypatch):
    # the comparison above has the power to see a wrong law: value and output noise
    # drawn 1.5× too wide (in a cache of its own: the right noise is not served again)
    monkeypatch.setattr(stacks, "WEIGHTS", WeightCache())
    config = dict(variant="post-ln", depth=12, heads=2, tokens=6, width=16)
    drawn = _final_log_odds(StackConfig(**config))
    monkeypatch.setitem(law.MATRICES, "projections", (1, 3, 2.25))
    monkeypatch.setitem(law.MATRICES, "output", (1, 1, 2.25))
    wrong = _final_log_odds(StackConfig(**config, sampling="law"))
    assert ks_2samp(drawn, wrong).pvalue < 1e-6


@given(stack_configs(max_depth=3, max_tokens=6, samplings=("law",)), st.integers(0, 2**32))
def test_a_stack_in_law_runs_every_block_option(config, seed):
    trajectory = run_stack(config, 2, seed, keep_attention=True)
    assert trajectory.states.shape == (config.depth + 1, 2, config.tokens, config.width)
    assert np.all(np.isfinite(trajectory.states))
    if config.depth:
        np.testing.assert_allclose(trajectory.kept_attention().sum(-1), 1.0, atol=1e-12)


NAMES = ("projections", "output", "ffn_in", "ffn_out")


def test_each_stack_depends_on_its_own_stream_alone():
    config = StackConfig(depth=3, tokens=4, width=8, ffn=True, sampling="law")
    whole = draw_law_weights(3, 4, 8, True, 4, 7)
    part = draw_law_weights(3, 4, 8, True, 2, 7, first=2)
    for name in NAMES:
        np.testing.assert_array_equal(getattr(whole.stacks(2, 4), name), getattr(part, name))
    # block after block, in the order of MATRICES: 4 × 24, 4 × 8, 4 × 32 and 4 × 8 numbers
    numbers = spawn_generators(7, 1, LAW_STREAM, 1)[0].standard_normal((3, 96 + 32 + 128 + 32))
    np.testing.assert_allclose(whole.projections[1],
                               numbers[:, :96].reshape(3, 4, 24) / np.sqrt(8), rtol=1e-15)
    np.testing.assert_allclose(whole.ffn_out[1], numbers[:, 256:].reshape(3, 4, 8)
                               / np.sqrt(32), rtol=1e-15)
    run = run_stack(config, 4, 7).states
    np.testing.assert_array_equal(run[:, :2], run_stack(config, 2, 7).states)


def test_a_shallower_stack_runs_the_first_blocks_of_a_deeper_one():
    deep, shallow = draw_law_weights(5, 4, 8, True, 2, 1), draw_law_weights(2, 4, 8, True, 2, 1)
    for name in NAMES:
        np.testing.assert_array_equal(getattr(deep.blocks(2), name), getattr(shallow, name))
    sizes = dict(variant="pre-ln", tokens=4, width=8, ffn=True, sampling="law")
    deeper = run_stack(StackConfig(depth=5, **sizes), 2, 1).states
    np.testing.assert_array_equal(run_stack(StackConfig(depth=2, **sizes), 2, 1).states,
                                  deeper[:3])


def test_a_stack_in_law_draws_what_it_says():
    assert law_draws_per_layer(tokens=16, width=64, ffn=False) == 16 * 4 * 64
    assert law_draws_per_layer(tokens=16, width=8, ffn=True) == 8 * 24 + 8 * 8 + 8 * 32 + 16 * 8
    config = StackConfig(tokens=16, width=64, sampling="law")
    assert draws_per_layer(config) == 4 * 16 * 64 < weights_per_layer(config) == 4 * 64 * 64
    weights = draw_law_weights(2, 16, 64, False, 3, 0)
    assert (weights.batch, weights.depth, weights.width) == (3, 2, 64)
    assert weights.projections.shape == (3, 2, 16, 192) and weights.ffn_in is None


@pytest.mark.parametrize("tokens, width, ffn", [(0, 8, False), (4, 2.5, False), (4, 8, 1)])
def test_the_count_of_draws_refuses_bad_sizes(tokens, width, ffn):
    with pytest.raises(ValueError, match="tokens|width|ffn"):
        law_draws_per_layer(tokens, width, ffn)


def test_a_float32_stack_in_law_runs_in_float32():
    config = StackConfig(depth=4, tokens=5, width=16, dtype="float32", sampling="law")
    states = run_stack(config, 2, 3).states
    assert states.dtype == np.float32
    reference = run_stack(StackConfig(depth=4, tokens=5, width=16, sampling="law"), 2, 3)
    np.testing.assert_allclose(states, reference.states, atol=1e-4)


def test_a_config_records_its_sampling_only_when_it_is_law():
    assert "sampling" not in StackConfig().as_dict()
    assert StackConfig(sampling="law").as_dict()["sampling"] == "law"
    assert "sampling='law'" in repr(StackConfig(sampling="law"))


@pytest.mark.parametrize("sampling", ["exact", "Law", 1, None])
def test_a_bad_sampling_is_refused(sampling):
    with pytest.raises(ValueError, match="sampling"):
        StackConfig(sampling=sampling)


def test_a_sublayer_cannot_be_sampled_in_law():
    from attndepth.simulations.models.blocks import Sublayer

    sublayer = Sublayer("double", lambda xp, X, weights: 2 * X, lambda width: {})
    with pytest.raises(ValueError, match="sublayer"):
        StackConfig(sampling="law", sublayer=sublayer)


LAW = StackConfig(variant="post-ln", depth=2, tokens=4, width=8, sampling="law")


@pytest.mark.parametrize("reads_weights", [
    lambda: draw_softmax_weights(LAW, 1, 0),
    lambda: draw_stack(LAW, 1, 0),
    lambda: rate_terms.postln_rate_terms(LAW, 1, 0, single_value_matrix=True),
    lambda: block_jacobian.depth_profile(LAW, 1, 0),
    lambda: escalation.contraction_samples(LAW, 1, 0),
], ids=["draw_softmax_weights", "draw_stack", "postln_rate_terms", "depth_profile",
        "contraction_samples"])
def test_every_measurement_that_reads_weights_refuses_a_stack_in_law(reads_weights):
    with pytest.raises(ValueError, match="sampling='law' never draws"):
        reads_weights()


def test_iterate_refuses_weights_of_the_other_sampling():
    weights, X0 = draw_run(LAW, 1, 0)
    assert isinstance(weights, LawWeights)
    drawn = StackConfig(variant="post-ln", depth=2, tokens=4, width=8)
    with pytest.raises(ValueError, match="draw_run"):
        list(iterate_stack(drawn, weights, X0))
    with pytest.raises(ValueError, match="draw_run"):
        list(iterate_stack(LAW, draw_softmax_weights(drawn, 1, 0), X0))


def test_the_rate_terms_of_a_stack_in_law_split_its_own_blocks():
    # Y is the block's own pre-norm sum (each matrix met the same states again): LN(Y) is
    # the block's output, so the three parts add up to the measured change exactly
    config = StackConfig(variant="post-ln", depth=6, tokens=5, width=16, sampling="law")
    terms = rate_terms.postln_rate_terms(config, 3, 2)
    np.testing.assert_allclose(terms.mean - terms.diversity + terms.scaling, terms.total,
                               atol=1e-9)
    np.testing.assert_array_equal(terms.log_odds, log_odds(run_stack(config, 3, 2).states))
