"""Fuzzed public API: each call succeeds or raises ValueError, never anything else.

Run many cases with ``pytest --hypothesis-profile=fuzz tests/test_fuzz_api.py``.
"""

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attndepth.rank.arithmetic.modular import check_prime
from attndepth.rank.grids import SeparationRankConfig, rank_from_grids
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition
from attndepth.simulations.measures.fitting import linear_fit, power_law_fit, transition_depth
from attndepth.simulations.measures.similarity import (
    attention_spectra,
    log_odds,
    mean_pairwise_cosine,
)
from attndepth.simulations.models.stacks import StackConfig, run_stack
from attndepth.theory.depth_width import judge_shape, optimal_depth, plan_for_width
from attndepth.theory.separation_rank import (
    log_bigraded_bound,
    separation_rank_bounds,
    threshold_depth,
)

anything = st.one_of(
    st.integers(-3, 6), st.sampled_from([0, -1, 10**12, 2**63, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
    st.text(max_size=5), st.sampled_from([[], (1,), {"a": 1}, 1.5, 1e308]),
)
sizes = st.one_of(st.integers(-2, 4), st.sampled_from([10**12, 2**63, True, 2.0, 2.5, "3",
                                                       None, math.nan]))


def _value_error_or_success(call):
    try:
        call()
    except ValueError:
        pass


@given(st.fixed_dictionaries({}, optional={
    "variant": st.one_of(anything, st.sampled_from(["pure", "post-ln"])),
    "depth": sizes, "tokens": sizes, "width": sizes, "heads": sizes, "tau": anything,
    "temperature": anything, "causal": anything, "ffn": anything}))
def test_fuzz_stack_config_and_run(kwargs):
    def call():
        config = StackConfig(**kwargs)
        run_stack(config, 1, 0)

    _value_error_or_success(call)


@given(sizes, sizes, sizes, st.one_of(anything, st.sampled_from([0, 1])), sizes)
def test_fuzz_linear_weights(width, depth, heads, residual, batch):
    _value_error_or_success(lambda: draw_linear_attention_weights(width, depth, heads, residual,
                                                                  batch, 0))


@given(st.one_of(st.text(alphabet="0123456789,/ ab-", max_size=10),
                 st.sampled_from(["balanced", "interleaved"]), anything), sizes, sizes)
def test_fuzz_partitions(spec, tokens, position):
    _value_error_or_success(lambda: make_partition(spec, tokens, position))


@given(st.integers(-1, 3), st.integers(-1, 2), st.integers(-1, 3), st.integers(-1, 4),
       st.sampled_from([0, 1, 2]), st.sampled_from(["exact", "numeric", "svd"]),
       st.sampled_from([2147483647, 2147483629, 15, 7, 2**31 + 11]))
def test_fuzz_measure_rank(width, depth, heads, tokens, residual, method, prime):
    def call():
        config = SeparationRankConfig(width=width, depth=depth, heads=heads, tokens=tokens,
                                      residual=residual)
        rank_from_grids(config, 0, method, prime, max_points=64)

    _value_error_or_success(call)


@given(sizes, sizes, sizes, sizes, st.one_of(anything, st.sampled_from([0, 1])))
def test_fuzz_bounds(width, depth, p_size, q_size, residual):
    _value_error_or_success(lambda: separation_rank_bounds(width, depth, p_size, q_size,
                                                           residual))
    _value_error_or_success(lambda: log_bigraded_bound(width, depth))
    _value_error_or_success(lambda: threshold_depth(width))


@given(anything, anything)
def test_fuzz_planner(first, second):
    _value_error_or_success(lambda: optimal_depth(first))
    _value_error_or_success(lambda: plan_for_width(first))
    _value_error_or_success(lambda: judge_shape(first, second))


float_arrays = arrays(np.float64, st.tuples(st.integers(0, 4), st.integers(0, 4)),
                      elements=st.floats(allow_nan=True, allow_infinity=True, width=64))


@given(float_arrays)
def test_fuzz_metrics(X):
    for function in (log_odds, mean_pairwise_cosine, attention_spectra):
        def call(f=function):
            result = f(X)
            values = result.values() if isinstance(result, dict) else [result]
            for value in values:
                assert np.all(np.isfinite(value)), (f.__name__, X, value)

        _value_error_or_success(call)


@given(float_arrays, float_arrays)
def test_fuzz_fits(x, y):
    for function in (linear_fit, power_law_fit):
        def call(f=function):
            fit = f(x.ravel(), y.ravel())
            assert np.all(np.isfinite([fit.slope, fit.intercept, fit.r2, fit.stderr]))

        _value_error_or_success(call)
    def crossing():
        assert np.isfinite(transition_depth(x.ravel(), y.ravel()))

    _value_error_or_success(crossing)


@given(anything)
def test_fuzz_check_prime(value):
    _value_error_or_success(lambda: check_prime(value))
