"""The figure's markers (token flow) lie on its lines (ODE) and on the β = 0 closed form."""

import numpy as np

from attndepth.claims.clustering import GAMMA_TOLERANCE
from attndepth.figures import geshkovski_orthogonal


def test_drawn_prediction_agrees_with_the_drawn_data(quick_data):
    data = {k: np.array(v) for k, v in quick_data(geshkovski_orthogonal).items()}
    assert np.max(np.abs(data["measured"] - data["ode"])) <= GAMMA_TOLERANCE
    closed = np.isfinite(data["beta_zero"])
    assert closed.any()
    assert np.max(np.abs(data["beta_zero"][closed] - data["measured"][closed])) <= 1e-8


def test_the_figure_draws_the_claims_case():
    from attndepth.claims.presets import GESHKOVSKI_ORTHOGONAL

    for preset in ("quick", "full"):
        claim = GESHKOVSKI_ORTHOGONAL[preset]
        assert (claim["tokens"], claim["beta"]) in geshkovski_orthogonal.CASES[preset]
