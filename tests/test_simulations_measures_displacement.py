"""The stream's displacement: zero without blocks, the law's exponent on small stacks."""

import math

import numpy as np
import pytest

from attndepth.simulations.measures.displacement import stream_displacement
from attndepth.simulations.models.stacks import StackConfig


def test_a_stack_of_no_blocks_does_not_move():
    config = StackConfig(variant="pre-ln", depth=0, tokens=4, width=8)
    assert np.array_equal(stream_displacement(config, 3, 0), np.zeros(3))


def test_a_branch_scaled_by_one_over_depth_halves_the_displacement_when_depth_doubles():
    moved = [stream_displacement(StackConfig(variant="pre-ln", depth=L, tokens=8, width=32,
                                             residual_scale=1 / L), 32, 1).mean()
             for L in (8, 16)]
    assert math.log2(moved[1] / moved[0]) == pytest.approx(-1.0, abs=0.15)
