"""The masks figure: drawn rates fall with the radius inside each mask kind."""

import numpy as np

from attndepth.figures import wu_masks


def test_drawn_rates_fall_with_the_radius_within_each_kind(quick_data):
    data = quick_data(wu_masks)
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


def test_the_figure_draws_the_claims_windows():
    from attndepth.claims.presets import WU_MASKS

    for preset in ("quick", "full"):
        assert set(WU_MASKS[preset]["windows"]) <= set(wu_masks.WINDOWS[preset])


def test_one_colour_means_one_mask_kind_in_both_panels(quick_data):
    from matplotlib.colors import to_hex

    from attndepth.figures.style import PALETTE

    figure = wu_masks.draw(quick_data(wu_masks))
    left, right = figure.axes
    band = {to_hex(line.get_color()) for line in left.get_lines()
            if line.get_label().startswith("band")}
    assert band == {to_hex(PALETTE[0])}
    legend = {text.get_text(): to_hex(handle.get_color()) for text, handle in
              zip(right.get_legend().get_texts(), right.get_legend().legend_handles, strict=True)}
    assert legend["band window"] == to_hex(PALETTE[0]) != legend["causal sliding window"]
