"""The public strategies, and the rigorous bounds of docs/theory.md §3 on every drawn case."""

import numpy as np
import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from attndepth.rank.partitions import make_partition
from attndepth.simulations.measures.similarity import (
    attention_spectra,
    invariant_eigenspace_defects,
)
from attndepth.simulations.models.blocks import NORM_PLACEMENTS
from attndepth.simulations.models.stacks import DTYPES, VARIANTS, remove_token_mean, run_stack
from attndepth.simulations.testing import (
    doubly_stochastic_matrices,
    orthogonal_matrices,
    partition_sizes,
    partition_specs,
    row_stochastic_matrices,
    stack_configs,
    symmetric_stochastic_matrices,
    token_matrices,
)

SLACK = 1e-9


def _ratio(X):
    mean = X.mean(axis=0)
    return np.linalg.norm(X - mean) / (np.sqrt(X.shape[0]) * np.linalg.norm(mean))


@given(row_stochastic_matrices())
def test_row_stochastic(P):
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert max(invariant_eigenspace_defects(P)) < 1e-12


@given(doubly_stochastic_matrices())
def test_doubly_stochastic(P):
    np.testing.assert_allclose(P.sum(axis=0), 1.0, atol=1e-12)
    assert attention_spectra(P)["leakage"] < 1e-12


@given(symmetric_stochastic_matrices())
def test_symmetric_with_prescribed_gap(drawn):
    P, gap = drawn
    np.testing.assert_allclose(P, P.T, atol=1e-15)
    assert P.min() >= -1e-15
    assert abs(attention_spectra(P)["lambda2"] - gap) < 1e-9


@given(orthogonal_matrices())
def test_orthogonal(W):
    np.testing.assert_allclose(W @ W.T, np.eye(W.shape[0]), atol=1e-12)


@given(stack_configs(max_depth=2, max_tokens=3))
def test_stack_configs_respect_their_bounds(config):
    assert config.dtype == "float64"
    assert config.depth <= 2 and config.tokens <= 3


@pytest.mark.parametrize("wanted", [
    *(lambda c, v=v: c.variant == v for v in VARIANTS),
    lambda c: c.causal and c.ffn, lambda c: c.heads == 2, lambda c: c.depth == 0,
    *(lambda c, v=v: c.block.norm == v for v in NORM_PLACEMENTS),
    lambda c: c.block.norm_kind == "rms", lambda c: c.qk_norm, lambda c: c.skip_scale != 1,
    lambda c: c.block.deescalation == "branch" and c.block.norm == "pre",
])
def test_stack_configs_reach_every_variant_and_option(wanted):
    # The strategy must be able to produce each case (a narrowed strategy fails here).
    assert wanted(find(stack_configs(), wanted))


@given(stack_configs(max_depth=3, dtypes=DTYPES))
def test_float32_stack_configs_run_row_stochastic_at_float32_tolerance(config):
    trajectory = run_stack(config, 2, 0, keep_attention=True)
    assert trajectory.states.dtype == np.dtype(config.dtype)
    if config.depth:
        tolerance = 1e-12 if config.dtype == "float64" else 1e-5
        np.testing.assert_allclose(trajectory.attention.sum(-1), 1.0, atol=tolerance)


@given(st.data())
def test_doubly_stochastic_orthogonal_bound(data):
    n = data.draw(st.integers(2, 7))
    P = data.draw(doubly_stochastic_matrices(tokens=n))
    X = data.draw(token_matrices(tokens=n))
    W = data.draw(orthogonal_matrices(size=X.shape[1]))
    sigma2 = attention_spectra(P)["sigma2"]
    assert _ratio(P @ X @ W) <= sigma2 * _ratio(X) * (1 + SLACK) + 64 * n * 2.2e-16


@given(st.data())
def test_row_stochastic_bound_with_leakage_and_condition_number(data):
    n = data.draw(st.integers(2, 7))
    P = data.draw(row_stochastic_matrices(tokens=n))
    X = data.draw(token_matrices(tokens=n))
    d = X.shape[1]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    W = np.eye(d) + 0.3 * rng.standard_normal((d, d))
    singular = np.linalg.svd(W, compute_uv=False)
    spectra = attention_spectra(P)
    r = _ratio(X)
    if spectra["leakage"] * r * singular[0] / singular[-1] < 0.9:
        kappa = singular[0] / singular[-1]
        bound = kappa * spectra["sigma2"] * r / (1 - spectra["leakage"] * r)
        assert _ratio(P @ X @ W) <= bound * (1 + SLACK) + 64 * n * 2.2e-16


@given(token_matrices())
def test_deescalation_with_tau_one_zeroes_the_mean_exactly(X):
    removed = remove_token_mean(X[None], 1.0)[0]
    assert np.abs(removed.mean(axis=0)).max() <= 1e-15 * max(1.0, np.abs(X).max())


@given(stack_configs(variants=("post-ln",), widths=(16,), depths=(3,), tokens=(5,),
                     temperatures=(0.5, 0.5), causal=True, ffn=False))
def test_stack_configs_can_be_pinned(config):
    assert (config.variant, config.width, config.depth, config.tokens) == ("post-ln", 16, 3, 5)
    assert config.temperature == 0.5 and config.causal and not config.ffn


@given(partition_sizes(5))
def test_partition_sizes(sizes):
    p_size, q_size = sizes
    assert p_size >= 1 and q_size >= 1 and p_size + q_size <= 5


@given(partition_specs(6))
def test_partition_specs_parse(case):
    tokens, spec = case
    split = make_partition(spec, tokens)
    assert 0 in split.p_positions and split.q_positions
