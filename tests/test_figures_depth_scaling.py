"""The depth-scaling figure draws the claim's sizes, and its points follow the law."""

import numpy as np

from attndepth.figures import depth_scaling


def test_the_drawn_points_follow_the_law_for_alpha_at_least_one_half(quick_data):
    data = quick_data(depth_scaling)
    scheme = np.array(data["scheme"])
    measured, predicted = (np.array(data[k], dtype=float) for k in ("measured", "predicted"))
    for name in ("CompleteP", "depth-muP", "GPT-2"):
        rows = scheme == name
        assert np.allclose(measured[rows], predicted[rows], rtol=0.25), name
    assert np.isnan(predicted[scheme == "SP"]).all()
    assert (np.array(data["error"]) > 0).all()


def test_the_figure_draws_the_claims_depth():
    from attndepth.claims.presets import DEPTH_SCALING

    for preset in ("quick", "full"):
        depth = DEPTH_SCALING[preset]["depth"]
        assert {depth, 2 * depth} <= set(depth_scaling.DEPTHS[preset])
