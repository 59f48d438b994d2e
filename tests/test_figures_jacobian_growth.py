"""The APJN figure: the law fitted on one window follows the others; pre-LN's block gains
fall faster with σ than DyT's."""

import numpy as np

from attndepth.figures import jacobian_growth


def test_the_law_follows_the_apjn_and_the_gains_fall_at_their_rates(quick_data):
    data = {k: np.array(v) for k, v in quick_data(jacobian_growth).items()}
    law, measured = data["law"].astype(float), data["log_apjn"].astype(float)
    known = ~np.isnan(law)
    assert np.max(np.abs(law[known] - measured[known]) / measured[known]) < 0.1
    for scheme, low, high in (("LayerNorm", -2.6, -1.4), ("DyT", -1.4, -0.3)):
        rows = (data["scheme"] == scheme) & ~np.isnan(data["gain"].astype(float))
        rows &= data["depth"].astype(float) >= 8
        if scheme == "DyT":
            rows &= data["alpha"].astype(float) == 2.0
        slope = np.polyfit(0.5 * np.log(data["variance"][rows].astype(float)),
                           np.log(data["gain"][rows].astype(float)), 1)[0]
        assert low < slope < high, (scheme, slope)
