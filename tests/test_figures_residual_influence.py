"""The residual-influence figure: the measured shares follow the recursion."""

import numpy as np
import pytest

from attndepth.figures import residual_influence


@pytest.mark.slow  # about 8 s: 6 seeds of 16 stacks, pre-LN and post-LN, to depth 32
def test_the_shares_follow_the_recursion(quick_data):
    data = {k: np.array(v) for k, v in quick_data(residual_influence).items()}
    rows = (data["panel"] == "share") & (data["predicted"].astype(float) > 0.05)
    ratio = data["measured"][rows].astype(float) / data["predicted"][rows].astype(float)
    assert np.all(np.abs(ratio - 1) < 0.2)
    pre = (data["panel"] == "share") & (data["variant"] == "pre-ln")
    assert data["measured"][pre].astype(float)[-1] > 0.1  # a power law: far from collapse
