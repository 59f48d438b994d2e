"""The masks figure: drawn rates fall with the radius inside each mask kind."""

import numpy as np

from attndepth.figures import wu_masks


def test_drawn_rates_fall_with_the_radius_within_each_kind():
    data = wu_masks.compute("quick", 0)
    panel, causal = np.array(data["panel"]), np.array(data["causal"], dtype=bool)
    x, value = np.array(data["x"], dtype=float), np.array(data["value"], dtype=float)
    error = np.array(data["error"], dtype=float)
    for kind in (False, True):
        rows = (panel == "rate") & (causal == kind)
        order = np.argsort(x[rows], kind="stable")
        radius, rate, err = x[rows][order], value[rows][order], error[rows][order]
        for k in range(len(radius) - 1):
            if radius[k] < radius[k + 1]:
                assert rate[k] + 3 * np.hypot(err[k], err[k + 1]) >= rate[k + 1]
    window = np.array(data["window"])
    full = value[(panel == "profile") & (window == 0)]
    narrow = value[(panel == "profile") & (window == 2)]
    assert full[-1] > 60 > narrow[-1]
