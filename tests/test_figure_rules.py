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


def _problems(draw) -> str:
    figure, axes = _figure()
    draw(axes)
    found = "\n".join(figure_problems(figure))
    plt.close(figure)
    return found


def test_a_legend_over_data_is_caught():
    def draw(axes):
        axes.plot(range(10), [5] * 10, color="C0", label="flat")
        axes.legend(loc="center left")

    assert "the legend covers" in _problems(draw)


def test_an_axis_stretched_beyond_its_data_is_caught():
    def draw(axes):
        axes.plot([1, 2, 3], [1, 2, 3], color="C0", label="x")
        axes.set_ylim(0, 30)  # room for a legend, say

    assert "of the y axis lies beyond its data" in _problems(draw)


def test_one_colour_for_two_concepts_and_a_variant_off_its_colour_are_caught():
    def draw(axes):
        axes.plot([1, 2], [1, 2], color="C0", label="certified rank")
        axes.plot([1, 2], [2, 3], "--", color="C0", label="d = 2")
        axes.plot([1, 2], [0, 1], color="C1", label="pre-LN")
        axes.legend()

    found = _problems(draw)
    assert "means ['certified rank', 'd = 2']" in found
    assert "'pre-LN' is drawn in" in found and "not its colour" in found


def test_equal_markers_on_one_point_are_caught_and_tidy_offsets_them():
    from attndepth.figures.style import tidy

    def draw(axes):
        axes.plot([1, 2, 3], [1, 2, 3], "o", color="C0", label="a")
        axes.plot([1, 2, 4], [1, 3, 3], "o", color="C1", label="b")
        axes.legend(loc="lower right")

    assert "two series put 'o' markers on one point" in _problems(draw)
    figure, axes = _figure()
    draw(axes)
    tidy(figure)
    assert figure_problems(figure) == []
    x = axes.lines[0].get_xdata()
    assert x[0] != 1 and list(x[1:]) == [2, 3]  # only the coinciding marker moved
    plt.close(figure)


def test_internal_names_are_caught_outside_mathematics_only():
    def draw(axes):
        axes.plot([1, 2], [1, 2], color="C0", label="post-ln-deesc-a")
        axes.set_xlabel("split bound, (d) of §1")
        axes.set_ylabel("t_sim_final")
        axes.set_title("$t_{sim}$ of yuzhang.linear-rate")
        axes.legend()

    found = _problems(draw)
    for name in ("'post-ln-deesc-a'", "'§'", "'t_sim_final'", "'yuzhang.linear-rate'"):
        assert f"internal name {name}" in found
    assert "internal name 't_{sim}'" not in found and "'sim'" not in found


def test_a_symlog_axis_and_an_unlabelled_end_are_caught():
    def draw(axes):
        axes.plot([0, 1, 10, 100], [2, 3, 10, 45], color="C0", label="x")
        axes.set_xscale("symlog")
        axes.set_xlabel("depth")
        axes.set_yscale("log")
        axes.set_ylim(1.8, 48)
        axes.set_yticks([2, 5, 10], ["2", "5", "10"])
        axes.legend(loc="lower right")

    found = _problems(draw)
    assert "symlog and its label 'depth' does not say so" in found
    assert "the y axis has no labelled tick over" in found


def test_tidy_moves_a_legend_off_the_data_and_outside_when_nothing_inside_is_clear():
    from attndepth.figures.style import new_figure, tidy

    figure, axes = new_figure()
    for k in range(8):  # lines everywhere: no place inside is clear
        axes.plot(range(10), [k] * 10, color=f"C{k}", label=f"series {k}")
    axes.legend(loc="center")
    tidy(figure)
    assert not any("legend covers" in p for p in figure_problems(figure))
    plt.close(figure)
