import numpy as np

from attndepth.simulations.measures.escalation import (
    contraction_samples,
    diversity_contraction,
    escalation_trace,
    fixed_matrix_decay,
    layer_norm_effects,
    relative_residuals,
)
from attndepth.simulations.models.stacks import StackConfig


def test_fixed_matrix_decay_shapes_and_monotone_diversity():
    decay = fixed_matrix_decay(6, 4, 10, 3, 0)
    assert decay.diversity.shape == (11, 3) and decay.lambda2.shape == (3,)
    assert np.all(decay.lambda2 < 1)
    assert np.all(decay.diversity[-1] < decay.diversity[0])


def test_escalation_trace_shapes():
    trace = escalation_trace(StackConfig(depth=5, tokens=4, width=8, heads=2), 2, 1)
    assert trace.log_odds.shape == (6, 2) and trace.contraction.shape == (5, 2)
    assert np.all((trace.similarity >= 0) & (trace.similarity <= 1))


def test_contraction_samples_shapes():
    sample = contraction_samples(StackConfig(depth=3, tokens=4, width=8, heads=2), 2, 0)
    assert sample.r_in.shape == (6,) and sample.sigma2.shape == (6, 2)
    assert np.all(sample.smallest_singular > 0)


def test_layer_norm_identity_and_centring():
    effects = layer_norm_effects(StackConfig(depth=4, tokens=5, width=8), 2, 0)
    assert effects.centring_commutator < 1e-12
    np.testing.assert_allclose(effects.scaling_commutator, effects.scale_spread, atol=1e-12)


def test_relative_residuals_collapse_for_pure_attention():
    residuals = relative_residuals(StackConfig(variant="pure", depth=8, tokens=8, width=16,
                                               temperature=0.25), 4, 0)
    assert residuals["frobenius"].shape == (9, 4)
    assert np.median(residuals["frobenius"][-1]) < 1e-6


def test_escalation_trace_in_chunks_equals_one_batch(monkeypatch):
    from attndepth.simulations.measures import escalation

    config = StackConfig(variant="post-ln", depth=5, tokens=4, width=8)
    whole = escalation.escalation_trace(config, 7, 3)
    monkeypatch.setattr(escalation, "TRACE_CHUNK", 3)  # chunks of 3, 3 and 1 stacks
    escalation._remembered_trace.cache_clear()  # measure again, in chunks
    chunked = escalation.escalation_trace(config, 7, 3)
    assert chunked is not whole
    for name in ("log_odds", "similarity", "contraction"):
        np.testing.assert_array_equal(getattr(chunked, name), getattr(whole, name))
    escalation._remembered_trace.cache_clear()  # forget what was measured under the patch


def test_the_chunk_shrinks_to_fit_the_size_limit(monkeypatch):
    from attndepth.simulations.measures import escalation

    config = StackConfig(variant="post-ln", depth=5, tokens=4, width=8)
    whole = escalation.escalation_trace(config, 5, 2)
    # a limit that fits the weights of two stacks only: chunks of 2, 2 and 1, same numbers
    per_stack = config.depth * escalation.draws_per_layer(config)
    monkeypatch.setattr(escalation, "MAX_ELEMENTS", 2 * per_stack + 1)
    sizes, chunk = [], escalation._escalation_chunk
    monkeypatch.setattr(escalation, "_escalation_chunk",
                        lambda config, batch, seed, first: sizes.append(batch)
                        or chunk(config, batch, seed, first))
    escalation._remembered_trace.cache_clear()  # measure again, in chunks
    chunked = escalation.escalation_trace(config, 5, 2)
    assert sizes == [2, 2, 1]
    np.testing.assert_array_equal(chunked.log_odds, whole.log_odds)
    escalation._remembered_trace.cache_clear()  # forget what was measured under the patch


def test_a_trace_asked_again_is_remembered_and_read_only():
    from attndepth.simulations.measures import escalation

    config = StackConfig(variant="post-ln", depth=4, tokens=4, width=8)
    first = escalation.escalation_trace(config, 3, 11)
    assert escalation.escalation_trace(config, 3, 11) is first
    assert escalation.escalation_trace(config, 3, 12) is not first
    assert not first.log_odds.flags.writeable and not first.contraction.flags.writeable


def test_diversity_contraction_is_zero_for_uniform_attention_and_one_for_the_identity():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3, 5, 4))
    uniform = np.full((3, 2, 5, 5), 1 / 5)
    identity = np.broadcast_to(np.eye(5), (3, 2, 5, 5))
    np.testing.assert_allclose(diversity_contraction(X, uniform), 0, atol=1e-15)
    np.testing.assert_allclose(diversity_contraction(X, identity), 1, rtol=1e-14)
