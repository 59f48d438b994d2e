"""The spectral-gap figure: the drawn edge follows the random Markov markers, not key-query."""

import numpy as np

from attndepth.figures import naderi_spectral_gap


def test_drawn_edge_agrees_with_the_markov_markers_only(quick_data):
    data = quick_data(naderi_spectral_gap)
    ensemble, scale = np.array(data["ensemble"]), np.array(data["scale"])
    T, s2, edge = (np.array(data[k], dtype=float) for k in ("tokens", "s2", "edge"))
    markov = (ensemble == "markov") & (scale == 0.5) & (T >= 64)
    assert np.all(np.abs(s2[markov] / edge[markov] - 1) < 0.15)
    key_query = (ensemble == "key-query") & (T == T.max())
    assert s2[key_query][0] > 2 * edge[key_query][0]
    rows = (ensemble == "markov") & (scale == 1.0)
    assert np.all(np.array(data["sr_attended"])[rows] < np.array(data["level"])[rows] * 1.5)


def test_the_figure_draws_the_claims_lengths_and_scale():
    from attndepth.claims.presets import NADERI

    for preset in ("quick", "full"):
        assert set(NADERI[preset]["tokens"]) <= set(naderi_spectral_gap.TOKENS[preset])
        assert NADERI[preset]["scale"] in naderi_spectral_gap.SCALES
