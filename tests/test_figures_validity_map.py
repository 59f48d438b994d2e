"""The validity-map figure: what it draws from the numbers it is given."""

import math

from attndepth.figures.validity_map import draw_validity_map


def test_points_bands_and_the_fit_are_drawn():
    figure = draw_validity_map([8, 16, 32], [0.06, 0.03, 0.015], [0.04, 0.02, 0.0],
                               [0.08, 0.04, 0.03], [False, True, True], parameter="width",
                               label="rel. error", claim="x.y", band=(-0.015, 0.015),
                               scaling=(0.5, 1.0))
    axes = figure.axes[0]
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels[0] == "tolerance band" and "in the family" in labels
    assert any("outside the family" in label for label in labels)
    assert any(label.startswith("fit") for label in labels)
    assert axes.get_xscale() == "log" and axes.get_title() == "x.y"


def test_points_without_a_number_are_left_out():
    figure = draw_validity_map([1, 2, 3], [0.1, math.nan, 0.2], [0.0, math.nan, 0.1],
                               [0.2, math.nan, 0.3], [True, None, True], parameter="d",
                               label="e", claim="c", log_x=False)
    lines = figure.axes[0].lines
    assert len(lines[1].get_xdata()) == 2  # the zero line, then the two finite points


def test_a_one_sided_band_is_drawn_as_a_bound_on_the_data_range_and_fits_nothing():
    """#46: a margin's band (0, ∞) was drawn to 10³⁰⁰, with a power law fitted to it."""
    figure = draw_validity_map([8, 16, 32], [0.05, 0.04, 0.06], [0.03, 0.02, 0.04],
                               [0.07, 0.06, 0.08], [True, True, True], parameter="width",
                               label="slowest rate", claim="wu.masks",
                               band=(0.0, math.inf), scaling=(0.5, 1.0))
    axes = figure.axes[0]
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels[0] == "tolerance: above 0" and not any(label.startswith("fit")
                                                          for label in labels)
    bottom, top = axes.get_ylim()
    assert bottom <= 0 and 0.08 <= top < 0.2


def test_each_verdict_has_its_own_marker_and_colour():
    """A point that holds never looks like one that is inconclusive."""
    figure = draw_validity_map([8, 16, 32], [0.01, 0.02, 0.03], [0.0, 0.0, 0.0],
                               [0.02, 0.04, 0.06], [True, True, True], parameter="width",
                               label="e", claim="c", band=(-0.05, 0.05),
                               verdicts=["holds", "inconclusive", "fails"])
    drawn = {bars.get_label(): (bars.lines[0].get_marker(), bars.lines[0].get_color())
             for bars in figure.axes[0].containers}
    assert {"holds", "inconclusive", "fails"} <= set(drawn)
    assert len({drawn[word] for word in ("holds", "inconclusive", "fails")}) == 3
    from figure_rules import figure_problems

    assert figure_problems(figure) == []
