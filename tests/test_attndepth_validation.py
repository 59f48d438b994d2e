"""The input checks every layer shares: canonical values or one clear error."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.validation import (
    check_bool,
    check_choice,
    check_finite_array,
    check_int,
    check_optional_int,
    check_positive,
    check_real,
    check_seconds,
    check_seed,
)


def test_check_int_accepts_integral_values():
    assert check_int("width", 3, minimum=1) == 3
    assert check_int("width", np.int64(4)) == 4
    assert check_int("width", 5.0) == 5


@pytest.mark.parametrize("bad", [True, 2.5, "3", None, math.nan, math.inf])
def test_check_int_rejects_non_integers_naming_the_parameter(bad):
    with pytest.raises(ValueError, match="width"):
        check_int("width", bad)


def test_check_int_bounds_in_message():
    with pytest.raises(ValueError, match=r"width must be an integer >= 1, got 0"):
        check_int("width", 0, minimum=1)
    with pytest.raises(ValueError, match=r"<= 3"):
        check_int("width", 4, maximum=3)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "x", True])
def test_check_real_rejects_non_finite(bad):
    with pytest.raises(ValueError, match="tau"):
        check_real("tau", bad)


def test_check_real_strict_minimum():
    with pytest.raises(ValueError, match="> 0"):
        check_real("temperature", 0.0, 0.0, strict_minimum=True)
    assert check_real("temperature", 0.5, 0.0, strict_minimum=True) == 0.5


def test_check_choice_lists_allowed():
    with pytest.raises(ValueError, match="one of a, b"):
        check_choice("variant", "c", ("a", "b"))


def test_check_finite_array():
    with pytest.raises(ValueError, match="finite"):
        check_finite_array("X", [1.0, np.nan])
    with pytest.raises(ValueError, match="dimensions"):
        check_finite_array("X", [1.0], ndim=2)
    with pytest.raises(ValueError, match="numeric"):
        check_finite_array("X", ["a"])


def test_check_seed_rejects_negative():
    with pytest.raises(ValueError, match="seed"):
        check_seed("seed", -1)


@given(st.one_of(st.text(max_size=3), st.just(float("nan")), st.floats(max_value=0.0),
                 st.just(float("inf")), st.booleans(), st.lists(st.integers(), max_size=2)))
def test_measure_rank_refuses_every_bad_tolerance(tolerance):
    from attndepth.rank.grids import SeparationRankConfig, rank_from_grids

    with pytest.raises((ValueError, TypeError), match="tolerance"):
        rank_from_grids(SeparationRankConfig(width=2, depth=1), 0, "numeric", tolerance=tolerance)


@given(st.one_of(st.text(max_size=3), st.integers(), st.dictionaries(st.text(), st.integers(),
                                                                     max_size=1)))
def test_measure_rank_refuses_weights_of_another_type(weights):
    from attndepth.rank.grids import SeparationRankConfig, rank_from_grids

    with pytest.raises(TypeError, match="weights"):
        rank_from_grids(SeparationRankConfig(width=2, depth=1), 0, weights=weights)


@given(st.sampled_from([np.complex128, np.object_, np.str_, np.bool_]))
def test_run_stack_refuses_non_real_inputs(dtype):
    from attndepth.simulations.models.stacks import StackConfig, run_stack

    X0 = np.ones((1, 2, 2)).astype(dtype)
    with pytest.raises(TypeError, match="X0"):
        run_stack(StackConfig(depth=1, tokens=2, width=2), 1, 0, X0=X0)


@pytest.mark.parametrize("margin", [2**64, 1025, 0, -1])
def test_a_margin_that_only_grows_the_grids_is_refused(margin):
    from attndepth.validation import check_margin

    with pytest.raises(ValueError, match="margin must be"):
        check_margin(margin)
    assert check_margin(8) == 8


def test_a_size_refusal_states_its_own_limit_however_large_the_request():
    from attndepth.validation import check_size

    with pytest.raises(ValueError, match=r"about 10\^400 array elements, more than the 4\.03e\+08 "
                                         r"allowed \(3 GiB of float64\)"):
        check_size("the block", 10**400, limit=3 * 16_384**2 // 2)


@given(st.integers(-10, 10), st.one_of(st.none(), st.integers(-5, 5)),
       st.one_of(st.none(), st.integers(-5, 5)))
def test_an_integer_is_accepted_exactly_inside_its_stated_range(value, low, high):
    inside = (low is None or value >= low) and (high is None or value <= high)
    if inside:
        assert check_int("n", value, low, high) == value
        return
    with pytest.raises(ValueError) as raised:
        check_int("n", value, low, high)
    message = str(raised.value)
    assert message.startswith("n must be an integer") and message.endswith(f"got {value}")
    assert all(str(bound) in message for bound in (low, high) if bound is not None)


def test_an_optional_integer_says_none_is_allowed():
    assert check_optional_int("window", None) is None
    assert check_optional_int("window", 3, minimum=1) == 3
    with pytest.raises(ValueError, match="window must be None or an integer >= 1, got 0"):
        check_optional_int("window", 0, minimum=1)


@pytest.mark.parametrize("value", [0, 1, "yes", None, np.bool_(True)])
def test_a_flag_is_true_or_false_only(value):
    with pytest.raises(ValueError, match="causal must be True or False"):
        check_bool("causal", value)
    assert check_bool("causal", True) is True


@pytest.mark.parametrize("value", [0, -1.0, math.nan, math.inf, True, "1"])
def test_a_positive_number_is_finite_and_above_zero(value):
    with pytest.raises(ValueError, match="scale"):
        check_positive("scale", value)
    assert check_positive("scale", 2) == 2.0


@pytest.mark.parametrize("value", [0, -1, math.nan, True, "60"])
def test_a_time_limit_is_positive_and_may_be_infinite(value):
    with pytest.raises(ValueError, match="max_seconds must be a number of seconds > 0"):
        check_seconds("max_seconds", value)
    assert check_seconds("max_seconds", math.inf) == math.inf
