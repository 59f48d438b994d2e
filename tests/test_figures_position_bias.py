"""The position-bias figure: the measured deficits follow the mask's rollout."""

import numpy as np

from attndepth.figures import position_bias


def test_the_deficits_follow_the_masks_rollout(quick_data):
    data = {k: np.array(v) for k, v in quick_data(position_bias).items()}
    rows = (data["panel"] == "deficit") & (data["predicted"].astype(float) > 0.05)
    measured = data["measured"][rows].astype(float)
    predicted = data["predicted"][rows].astype(float)
    assert np.all(np.abs(measured / predicted - 1) < 0.25)
    for decay in position_bias.DECAYS:  # every decay collapses within the drawn depth
        last = (data["panel"] == "deficit") & (data["decay"].astype(float) == decay)
        assert data["measured"][last].astype(float)[-1] < 0.6
