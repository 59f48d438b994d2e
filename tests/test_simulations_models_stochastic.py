import numpy as np
import pytest

from attndepth.simulations.models.stochastic import SINKHORN_TOLERANCE, sinkhorn


def test_sinkhorn_rows_exact_columns_within_tolerance():
    P = sinkhorn(np.exp(np.random.default_rng(0).standard_normal((6, 6))))
    assert np.abs(P.sum(axis=1) - 1).max() < 1e-15
    assert np.abs(P.sum(axis=0) - 1).max() < SINKHORN_TOLERANCE


def test_sinkhorn_rejects_non_positive():
    with pytest.raises(ValueError, match="positive"):
        sinkhorn(np.array([[1.0, 0.0], [1.0, 1.0]]))
