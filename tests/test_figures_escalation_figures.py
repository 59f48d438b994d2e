"""Data of the fixed-rate, post-LN-rate and Dong-collapse figures."""

import numpy as np

from attndepth.figures import dong_collapse, fixed_rate, postln_rate


def test_fixed_rate_predicted_slopes_negative():
    data = fixed_rate.compute("quick", 0)
    assert np.all(np.array(data["predicted_slope"]) < 0)


def test_postln_rate_curves_and_predictions():
    data = postln_rate.compute("quick", 0)
    assert len(set(data["curve"])) == 4
    predicted = np.array(data["predicted"])
    assert np.isfinite(predicted).any()


def test_dong_points_above_round_off():
    data = dong_collapse.compute("quick", 0)
    assert set(data["variant"]) == {"pure", "residual"}
    assert min(data["after"]) > 1e-14
