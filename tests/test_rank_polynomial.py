import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.rank.polynomial import measure_homogeneity, measure_structure

SCALES = np.array([0.5, 2.0, 3.0])


@given(st.integers(0, 3), st.sampled_from([(2, 1), (4, 2), (3, 3)]), st.integers(2, 5),
       st.integers(0, 1000))
def test_homogeneous_degree_is_three_to_the_depth(depth, shape, tokens, seed):
    width, heads = shape
    found = measure_homogeneity(width, depth, heads, tokens, SCALES, 2, seed)
    assert found.fitted_degree == pytest.approx(3**depth, rel=1e-9)
    assert found.max_relative_error < 1e-9


def test_residual_network_is_not_homogeneous():
    found = measure_homogeneity(4, 2, 2, 4, SCALES, 2, 0, residual=1)
    assert found.max_relative_error > 1e-3


@given(st.integers(1, 3), st.integers(3, 6), st.sampled_from([0, 1]), st.integers(0, 1000))
def test_structure_invariance(depth, tokens, rho, seed):
    found = measure_structure(3, depth, 1, tokens, 2, seed, residual=rho)
    assert found.orthogonal_change < 1e-9
    assert found.generic_change > 1e-6


def test_structure_single_q_position_sign_flip():
    found = measure_structure(3, 2, 1, 3, 2, 0, q_size=1)
    assert found.orthogonal_change < 1e-12


def test_bad_scales():
    with pytest.raises(ValueError, match="scales"):
        measure_homogeneity(2, 1, 1, 2, np.array([1.0, 1.0]), 1, 0)
    with pytest.raises(ValueError, match="scales"):
        measure_homogeneity(2, 1, 1, 2, np.array([-1.0, 2.0]), 1, 0)
    with pytest.raises(ValueError, match="q_size"):
        measure_structure(2, 1, 1, 3, 1, 0, q_size=3)
