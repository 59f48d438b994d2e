"""Cosines, radii, turns and a reference's clock, each against a hand computation."""

import math

import numpy as np
import pytest

from attndepth.simulations.measures.token_speed import (
    clock_time,
    mean_cosine,
    squared_radius,
    turning_sine,
)


def test_the_mean_cosine_and_radius_of_known_tokens():
    tokens = np.array([[3.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    states = np.stack([tokens, 2 * tokens])[:, None]  # (2 blocks, 1 stack, 3, 2)
    pairs = [0.0, 1 / math.sqrt(2), 1 / math.sqrt(2)]
    np.testing.assert_allclose(mean_cosine(states), [[np.mean(pairs)]] * 2)
    np.testing.assert_allclose(squared_radius(states)[:, 0], [15 / 6, 60 / 6])


def test_a_turn_of_known_angle():
    angle = 0.3
    before = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    after = np.array([[math.cos(angle), math.sin(angle), 0.0],
                      [0.0, 2 * math.cos(angle), 2 * math.sin(angle)]]) * 5
    states = np.stack([before, after])[:, None]
    np.testing.assert_allclose(turning_sine(states), [math.sin(angle) ** 2])


def test_the_clock_inverts_the_reference():
    times = np.linspace(0, 2, 21)
    reference = 1 - np.exp(-times)
    reference[5] = reference[6] + 0.01  # noise: the running maximum keeps it monotone
    placed = clock_time(np.array([0.0, 1 - np.exp(-1.5)]), reference, times)
    assert placed[0] == 0 and placed[1] == pytest.approx(1.5, abs=0.01)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: mean_cosine(np.ones((2, 1, 1, 3))), "n >= 2"),
    (lambda: squared_radius(np.ones((2, 3, 3))), "4 dimensions"),
    (lambda: turning_sine(np.ones((2, 1, 2, 3)), first=1), "first must be"),
    (lambda: clock_time(np.array([0.99]), np.array([0.0, 0.5]), np.array([0.0, 1.0])),
     "run it for more blocks"),
    (lambda: clock_time(np.array([0.1]), np.array([0.0, 0.5]), np.array([1.0, 0.0])),
     "times must increase"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
