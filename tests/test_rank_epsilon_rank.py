"""ε-ranks: counted right, bounded by the separation rank, equal to it where the linear
model's spectrum clears the round-off floor, and the softmax grids are the stacks'."""

import numpy as np
import pytest

from attndepth import SeparationRankConfig, measure_rank
from attndepth.errors import InvalidParameter
from attndepth.rank.epsilon_rank import (
    FLOOR_FACTOR,
    epsilon_rank_curve,
    epsilon_ranks,
    linear_epsilon_ranks,
    softmax_epsilon_ranks,
    softmax_output_grid,
)
from attndepth.rank.partitions import make_partition
from attndepth.simulations.models.stacks import StackConfig, run_stack


def test_epsilon_ranks_count_singular_values_above_epsilon_sigma_one():
    rotation = np.linalg.qr(np.random.default_rng(0).standard_normal((5, 5)))[0]
    matrix = rotation @ np.diag([2.0, 2e-3, 2e-6, 0.0, 0.0]) @ rotation.T
    assert epsilon_ranks(matrix, (1e-2, 1e-4, 1e-7, 1e-15)) == [1, 2, 3, 3]
    assert epsilon_ranks(np.zeros((3, 3)), (0.5,)) == [0]


@pytest.mark.parametrize("width, depth", [(2, 1), (2, 2), (3, 1), (3, 2)])
def test_the_linear_oracle_reproduces_the_certified_rank(width, depth):
    certified = measure_rank(SeparationRankConfig(width=width, depth=depth, tokens=2), 0).rank
    curve = linear_epsilon_ranks(width, depth, 2, 0, (1e-2, 1e-10))
    assert curve.ranks[1] == certified and all(curve.converged)
    assert curve.ranks[0] <= certified


def test_an_epsilon_rank_never_exceeds_the_separation_rank_and_the_floor_is_honest():
    # d = 2, L = 3: sep = 105, but the last singular values lie under float64's resolution
    # of σ₁, so no ε above the floor sees all of them (python -c: linear_epsilon_ranks(2, 3,
    # 2, 0, (1e-14,)) gives 100 on a 1228-point grid)
    curve = linear_epsilon_ranks(2, 3, 2, 0, (1e-4, 1e-8, 1e-17), max_points=768)
    assert curve.floor >= np.finfo(np.float64).eps
    assert curve.ranks[2] is None  # 1e-17 < FLOOR_FACTOR × floor: not reported
    assert 1e-17 < FLOOR_FACTOR * curve.floor
    assert all(r <= 105 for r in curve.ranks[:2])


def test_the_softmax_grid_is_the_stacks_output_and_nested_draws_share_blocks():
    config = StackConfig(variant="post-ln", depth=2, tokens=3, width=4, heads=2)
    split = make_partition("balanced", 3)
    rng = np.random.default_rng(1)
    XP, XQ = rng.standard_normal((3, 2, 4)), rng.standard_normal((4, 1, 4))
    grid = softmax_output_grid(config, 7, split, XP, XQ, coordinate=1, draw_depth=3)
    deeper = StackConfig(variant="post-ln", depth=3, tokens=3, width=4, heads=2)
    for a in range(3):
        for b in range(4):
            X0 = np.concatenate([XP[a], XQ[b]])[None]
            states = run_stack(deeper, 1, 7, X0=X0).states  # its first two blocks
            assert grid[a, b] == pytest.approx(states[2][0, 0, 1], abs=1e-12)
    extended = softmax_output_grid(config, 7, split, XP.astype(np.longdouble),
                                   XQ.astype(np.longdouble), 1, np.longdouble, draw_depth=3)
    assert extended.dtype == np.longdouble
    assert np.max(np.abs(extended - grid)) < 1e-12


def test_softmax_epsilon_ranks_grow_as_epsilon_falls():
    curve = softmax_epsilon_ranks(StackConfig(variant="pure", depth=1, tokens=2, width=2), 0,
                                  (1e-1, 1e-2, 1e-3), max_points=256)
    assert curve.epsilons == (1e-1, 1e-2, 1e-3)
    assert curve.ranks[0] <= curve.ranks[1] <= curve.ranks[2]
    assert curve.rank_at(1e-2) == curve.ranks[1]
    with pytest.raises(InvalidParameter, match="not measured"):
        curve.rank_at(0.5)


@pytest.mark.parametrize("epsilons", [(), (0.0,), (1.0,), (-1e-3,)])
def test_tolerances_outside_zero_one_are_refused(epsilons):
    with pytest.raises(InvalidParameter, match="epsilons"):
        epsilon_rank_curve(lambda XP, XQ, dtype: np.ones((len(XP), len(XQ))), (1, 1), 2, 0,
                           epsilons)


@pytest.mark.parametrize("matrix, epsilons, match", [
    (np.ones(3), (0.1,), "matrix"), (np.full((2, 2), np.nan), (0.1,), "matrix"),
    (np.eye(2), (2.0,), "epsilons"), (np.eye(2), ("a",), "epsilons")])
def test_epsilon_ranks_refuse_bad_input_in_one_line(matrix, epsilons, match):
    with pytest.raises(InvalidParameter, match=match):
        epsilon_ranks(matrix, epsilons)


def test_the_softmax_measurement_names_a_config_of_the_wrong_type():
    with pytest.raises(TypeError, match="StackConfig"):
        softmax_epsilon_ranks("post-ln", 0, (0.1,))
