"""The hemisphere figure: Wendel's curve passes through every drawn Monte Carlo interval,
and every drawn flow ends in one cluster."""

import numpy as np
import pytest

from attndepth.figures import geshkovski_cluster


@pytest.mark.slow
def test_drawn_prediction_agrees_with_the_drawn_data(quick_data):
    data = quick_data(geshkovski_cluster)
    panel, series = np.array(data["panel"]), np.array(data["series"])
    x, value = np.array(data["x"]), np.array(data["value"])
    low, high = np.array(data["low"]), np.array(data["high"])
    for name in set(series[panel == "wendel"]):
        wendel = value[(panel == "wendel") & (series == name)]
        dots = (panel == "monte-carlo") & (series == name)
        assert np.all((low[dots] <= wendel) & (wendel <= high[dots])), name
    for name in set(series[panel == "diameter"]):
        assert value[(panel == "diameter") & (series == name)][-1] <= 1e-6, name
    assert len(set(x[panel == "wendel"])) > 5


def test_the_figure_draws_the_claims_point_at_its_level():
    from attndepth.claims.presets import GESHKOVSKI_CLUSTER

    for preset in ("quick", "full"):
        claim, size = GESHKOVSKI_CLUSTER[preset], geshkovski_cluster.SIZES[preset]
        assert claim["tokens"] <= size["max_tokens"] and claim["dimension"] in size["dimensions"]
        assert claim["beta"] in size["betas"]
