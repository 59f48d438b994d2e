"""The fixed-rate, post-LN-rate and Dong-collapse figures: what they draw as the prediction
agrees with the data they draw, within the tolerances of the claims they show."""

import numpy as np
import pytest

from attndepth.claims.similarity import FIXED_RATE_TOLERANCE, ORDER_TOLERANCE
from attndepth.figures import dong_collapse, fixed_rate, postln_rate
from attndepth.simulations.measures.fitting import ESCALATION_WINDOW
from attndepth.theory.rank_collapse import convergence_order

#: Allowed relative gap between the drawn post-LN slope and the slope of the drawn median
#: (one seed's stacks): see test_postln_predicted_line_follows_the_median_in_the_window.
MEDIAN_SLOPE_SPREAD = 0.06


def test_fixed_rate_dashed_slopes_match_the_curves(quick_data):
    data = {k: np.array(v) for k, v in quick_data(fixed_rate).items()}
    errors = []
    for k in np.unique(data["stack"]):
        rows = (data["stack"] == k) & (data["depth"] >= fixed_rate.FIT_FROM) \
            & (data["log_t_div"] > np.log(fixed_rate.FLOOR))
        slope = np.polyfit(data["depth"][rows], data["log_t_div"][rows], 1)[0]
        predicted = data["predicted_slope"][rows][0]
        errors.append(abs(slope - predicted) / abs(predicted))
    assert len(errors) == fixed_rate.SHOWN
    assert np.median(errors) <= FIXED_RATE_TOLERANCE


@pytest.mark.slow
def test_postln_predicted_line_follows_the_median_in_the_window(quick_data):
    data = quick_data(postln_rate)
    curve = np.array(data["curve"])
    assert len(set(curve)) == 4
    rows = curve == "post-ln"
    depth, median = np.array(data["depth"])[rows], np.array(data["median"])[rows]
    predicted = np.array(data["predicted"])[rows]
    window = (median >= ESCALATION_WINDOW[0]) & (median <= ESCALATION_WINDOW[1]) \
        & np.isfinite(predicted)
    measured_slope = np.polyfit(depth[window], median[window], 1)[0]
    drawn_slope = np.polyfit(depth[window], predicted[window], 1)[0]
    # The median of one seed's 32 stacks at d = 32, not a seed sample's mean: its slope's
    # relative error spreads by 1.8 % (s.d. over seeds 0-4: -2.2, -2.6, +1.9, -0.7, 0.0 %);
    # the claim decides the rate itself to 0.75 %. Allow 3.5 s.d.
    assert abs(drawn_slope - measured_slope) / measured_slope <= MEDIAN_SLOPE_SPREAD
    assert np.isnan(np.array(data["predicted"])[curve == "pre-ln"]).all()  # no theory drawn


def test_dong_points_have_the_predicted_order(quick_data):
    data = quick_data(dong_collapse)
    variant = np.array(data["variant"])
    assert set(variant) == {"pure", "residual"}
    before, after = np.array(data["before"]), np.array(data["after"])
    asymptotic = (variant == "pure") & (before < 0.3)
    order = np.polyfit(np.log(before[asymptotic]), np.log(after[asymptotic]), 1)[0]
    assert abs(order - convergence_order()) <= ORDER_TOLERANCE
    assert min(data["after"]) > 1e-14
