"""Position bias: SymPy's checks, the mask's rows, its rollout and the collapse rate."""

import math

import pytest

from attndepth.theory.position_bias import (
    collapse_rate,
    confirm_position_bias,
    mask_attention,
    rollout_deficits,
)


def test_sympy_confirms_the_mask_row_the_spectrum_and_the_halving():
    assert confirm_position_bias() is True


@pytest.mark.parametrize("decay", [0.0, 0.5, 2.0])
def test_the_mask_rows_are_causal_distributions_falling_with_distance(decay):
    mask = mask_attention(6, decay)
    for i, row in enumerate(mask):
        assert math.isclose(math.fsum(row), 1.0) and all(v == 0 for v in row[i + 1:])
        assert all(row[j] <= row[j + 1] * (1 + 1e-12) for j in range(i))
    assert mask[3] == pytest.approx([0.25] * 4 + [0, 0]) if decay == 0 else True


def test_without_decay_position_two_loses_half_its_non_first_mass_a_layer():
    # n = 2: the deficit is position 2's alone, 2^(−L) exactly
    assert rollout_deficits(2, 0.0, 10) == pytest.approx([2.0**-k for k in range(11)],
                                                        rel=1e-12)


@pytest.mark.parametrize("decay", [0.0, 0.5, 1.0])
def test_the_deficit_falls_to_zero_at_the_mask_rate_after_its_front(decay):
    deficits = rollout_deficits(8, decay, 200)
    assert deficits[0] == 1.0 and all(b < a for a, b in zip(deficits, deficits[1:], strict=False))
    # far past the front the slowest mode, position 2's λ₂ = 1/(1 + e^(−m)), is left
    assert -math.log(deficits[200] / deficits[199]) == pytest.approx(collapse_rate(decay),
                                                                     rel=1e-3)


def test_position_two_alone_falls_by_lambda_two_exactly():
    # n = 2 at m = 2: (1 + e^(−2))^(−L); for more positions λ₃ = 0.867 lies close to
    # λ₂ = 0.881 and the mean deficit reaches λ₂'s rate only after hundreds of layers
    assert rollout_deficits(2, 2.0, 30)[30] == pytest.approx(math.exp(-30 * collapse_rate(2.0)),
                                                            rel=1e-12)


def test_the_rate_is_ln_2_without_decay_and_e_to_minus_m_for_a_strong_one():
    assert collapse_rate(0.0) == pytest.approx(math.log(2))
    assert collapse_rate(10.0) == pytest.approx(math.exp(-10.0), rel=1e-4)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: mask_attention(0, 0.5), "tokens"),
    (lambda: mask_attention(4, -1.0), "decay"),
    (lambda: rollout_deficits(1, 0.5, 3), "tokens"),
    (lambda: rollout_deficits(4, 0.5, -1), "depth"),
    (lambda: collapse_rate(float("nan")), "decay"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
