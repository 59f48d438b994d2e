"""The correlation-map figure: drawn layers sit on the drawn finite-T REM curve, and the
REM curves approach the drawn limits."""

import numpy as np
import pytest

from attndepth.figures import giorlandino_correlation_map


@pytest.mark.slow
def test_drawn_layers_follow_the_finite_T_curve_and_the_curves_their_limits(quick_data):
    data = quick_data(giorlandino_correlation_map)
    panel = np.array(data["panel"])
    layer, error, rem, limit = (np.array(data[k], dtype=float)
                                for k in ("layer", "layer_error", "rem", "limit"))
    rows = panel == "map"
    # finite width adds O(1/d) (≈ +0.02 at d = 1024); the limit is the fit's business
    assert np.all(np.abs(layer[rows] - rem[rows]) < 5 * error[rows] + 0.04)
    converge = panel == "convergence"
    ratio, x = np.array(data["ratio"]), np.array(data["x"], dtype=float)
    for value in (2.0, 4.0):
        last = converge & (ratio == value) & (x == x[converge].max())
        assert abs(rem[last][0] - limit[last][0]) < 0.005


def test_the_figure_draws_the_claims_overlap_and_ratio():
    from attndepth.claims.presets import GIORLANDINO

    for preset in ("quick", "full"):
        assert GIORLANDINO[preset]["overlap"] in giorlandino_correlation_map.OVERLAPS
        assert GIORLANDINO[preset]["ratio"] in giorlandino_correlation_map.RATIOS[preset]
