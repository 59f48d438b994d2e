"""The figure rules' checker catches what it is for (tests/figure_rules.py)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from figure_rules import figure_problems  # noqa: E402


def _figure():
    figure, axes = plt.subplots()
    return figure, axes


def test_a_clean_figure_passes():
    figure, axes = _figure()
    axes.plot([1, 2, 3], [1, 2, 3], color="C0", label="measured")
    axes.plot([1, 2, 3], [1, 2, 2.5], ":", color="C0")  # explained by its colour
    axes.plot([1, 3], [2, 2], "--", color="0.5")  # explained by the style key below
    axes.plot([], [], "--", color="0.5", label="predicted")
    axes.set_xscale("log")
    axes.set_xlabel("tokens T")
    axes.legend()
    assert figure_problems(figure) == []
    plt.close(figure)


def test_each_broken_rule_is_reported():
    figure, axes = _figure()
    axes.plot([1, 2], [1, 2], color="C0", label="a")
    axes.plot([1, 2], [1, 3], color="C0", label="b")  # same colour and style as a
    axes.plot([1, 2], [0, 1], color="C2")  # no legend entry at all
    axes.plot([1, 2, 3], [1, 2, 99], ":", color="C0")  # runs off the axes
    axes.set_ylim(0, 4)
    axes.set_yscale("log")
    axes.set_ylabel(r"$\ln T$")
    axes.legend()
    problems = "\n".join(figure_problems(figure))
    assert "'b' and 'a' share colour and style" in problems
    assert "has no legend entry" in problems
    assert "points outside the axes" in problems
    assert "the y axis is logarithmic and labelled" in problems
    plt.close(figure)


def test_panels_are_lettered_by_the_house_figure_and_checked():
    from attndepth.figures.style import new_figure

    figure, (left, right) = new_figure(columns=2, ncols=2)
    for axes in (left, right):
        axes.plot([1, 2], [1, 2], color="C0", label="x")
        axes.legend()
    letters = [[t.get_text() for t in axes.texts] for axes in (left, right)]
    assert letters == [["(a)"], ["(b)"]]
    assert figure_problems(figure) == []
    right.texts[0].remove()
    assert "not (a), (b)" in "\n".join(figure_problems(figure))
    plt.close(figure)
