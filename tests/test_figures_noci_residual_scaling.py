"""The residual-scaling figure: drawn lines and markers agree at temperature 10."""

import numpy as np

from attndepth.figures import noci_residual_scaling


def test_drawn_growth_follows_the_prediction(quick_data):
    data = quick_data(noci_residual_scaling)
    panel, scaling = np.array(data["panel"]), np.array(data["scaling"])
    temperature = np.array(data["temperature"])
    measured, predicted = np.array(data["measured"]), np.array(data["predicted"])
    rows = (panel == "growth") & (scaling == "1") & (temperature == 10.0)
    assert np.allclose(measured[rows], predicted[rows], rtol=0.1)
    error = np.array(data["error"])
    assert (error[panel == "growth"] > 0).all() and np.isnan(error[panel == "cosine"]).all()
    # the drawn error bars: within 4 standard errors of the finite-width growth
    assert (np.abs(measured[rows] - predicted[rows]) < 4 * error[rows]).all()
    profile = (panel == "cosine") & (scaling == "1")
    assert measured[profile][-1] > 0.99
    profile = (panel == "cosine") & (scaling == "1/sqrt(L)")
    assert measured[profile][-1] < 0.3
    # the Jensen-gap panel: d × gap at every width drawn, within 4 standard errors of (**)'s
    # coefficient 1 and far from the single matrix's 3/4
    term = panel == "jensen"
    assert list(np.array(data["x"])[term]) == list(noci_residual_scaling.JENSEN_WIDTHS["quick"])
    assert (np.abs(measured[term] - predicted[term]) < 4 * error[term]).all()
    assert (measured[term] - 0.75 > 4 * error[term]).all()


def test_the_figure_draws_the_claims_sizes_and_depths():
    from attndepth.claims.presets import NOCI

    for preset in ("quick", "full"):
        assert set(NOCI[preset]["depths"]) <= set(noci_residual_scaling.DEPTHS[preset])
