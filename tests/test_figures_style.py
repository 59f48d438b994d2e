import numpy as np
import pytest

from attndepth.figures.style import DOUBLE_COLUMN_INCHES, SINGLE_COLUMN_INCHES, new_figure


def test_column_widths():
    figure, _ = new_figure(1)
    assert figure.get_figwidth() == SINGLE_COLUMN_INCHES
    figure, _ = new_figure(2)
    assert figure.get_figwidth() == DOUBLE_COLUMN_INCHES
    with pytest.raises(ValueError, match="columns"):
        new_figure(3)


def test_house_style_is_a_style_sheet_users_can_apply():
    import matplotlib.pyplot as plt

    from attndepth.figures.style import PALETTE

    with plt.style.context("attndepth.figures.paper"):
        assert plt.rcParams["font.size"] == 8
        assert plt.rcParams["axes.prop_cycle"].by_key()["color"][:2] == list(PALETTE[:2])
        assert plt.rcParams["pdf.fonttype"] == 42


def test_separated_labels_do_not_overlap(quick_data):
    from attndepth.figures import allocation

    figure = allocation.draw(quick_data(allocation))
    renderer = figure.canvas.get_renderer()
    boxes = [text.get_window_extent(renderer) for text in figure.axes[0].texts]
    assert len(boxes) > 10
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_legends_take_their_style_from_the_sheet_and_are_at_least_7_pt():
    # the legend style lives in paper.mplstyle, so a user's figure in the house style matches;
    # no figure module overrides it (with a smaller size, or a frame of its own)
    import ast
    from pathlib import Path

    import matplotlib.pyplot as plt

    import attndepth.figures as figures

    with plt.style.context("attndepth.figures.paper"):
        assert plt.rcParams["legend.fontsize"] >= 7 and plt.rcParams["legend.frameon"] is False
    for path in Path(figures.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "legend":
                keywords = {keyword.arg for keyword in node.keywords}
                assert not keywords & {"fontsize", "frameon", "title_fontsize"}, path.name


def test_every_variant_has_one_colour_used_by_every_figure_that_draws_it(quick_data):
    from attndepth.figures import postln_rate, similarity_depth
    from attndepth.figures.style import (
        VARIANT_COLOURS,
        VARIANT_NAMES,
        variant_colour,
        variant_name,
    )
    from attndepth.simulations.models.stacks import VARIANTS

    assert set(VARIANT_COLOURS) == set(VARIANTS) == set(VARIANT_NAMES)
    assert variant_name("post-ln-deesc-a (τ=0.5)") == "post-LN, de-escalated (a), τ=0.5"
    shown = {variant_name(key): key for key in VARIANTS}
    assert len(set(VARIANT_COLOURS.values())) == len(VARIANTS)
    assert variant_colour("post-ln-deesc-a (τ=0.5)") == VARIANT_COLOURS["post-ln-deesc-a"]
    with pytest.raises(ValueError, match="no colour"):
        variant_colour("sandwich")
    for module in (similarity_depth, postln_rate):
        figure = module.draw(quick_data(module))
        for line in figure.axes[0].get_lines():
            label = line.get_label()
            if not label.startswith("_"):
                key = next(k for name, k in sorted(shown.items(), key=lambda i: -len(i[0]))
                           if label.startswith(name))
                assert line.get_color() == variant_colour(key), (module.NAME, label)


def test_style_keys_join_the_legend_or_stand_beside_it():
    import matplotlib.pyplot as plt

    from attndepth.figures.style import legend_with_keys, new_figure, style_key

    figure, axis = new_figure()
    axis.plot([0, 1], [0, 1], color="C0", label="measured")
    joined = legend_with_keys(axis, [style_key("predicted", color="k", linestyle=":")])
    assert [t.get_text() for t in joined.get_texts()] == ["measured", "predicted"]
    beside = legend_with_keys(axis, [style_key("bound", color="0.5")], separate=True)
    assert [t.get_text() for t in beside.get_texts()] == ["bound"]
    assert joined in axis.artists or joined in axis.get_children()  # both drawn
    plt.close(figure)


def test_every_figure_draws_the_verdicts_interval():
    from scipy.stats import t as student_t

    from attndepth.figures.style import INTERVAL_LEVEL, INTERVAL_TEXT, interval_half_width

    assert INTERVAL_LEVEL == 0.99 and INTERVAL_TEXT.startswith("99 %")
    assert interval_half_width(2.0, 11) == 2.0 * student_t.ppf(0.995, 10)
    widths = interval_half_width(np.array([1.0, 1.0]), np.array([3, 100]))
    assert widths[0] > widths[1] > 2.5  # fewer values, wider; always beyond ±1 s.e.
