import matplotlib

from attndepth.figures import threshold_knee
from attndepth.theory.rank_closed_forms import single_position_knee

matplotlib.use("Agg")


def test_compute_has_decided_bound_and_closed_form_knees(monkeypatch):
    monkeypatch.setattr(threshold_knee, "THRESHOLD", {"quick": {"regimes": [[2, 1], [3, 1]]}})
    monkeypatch.setitem(threshold_knee.BOUND_WIDTHS, "quick", [2, 9, 60])
    data = threshold_knee.compute("quick", 0)  # on the patched sizes: not the drawn figure
    rows = list(zip(data["series"], data["q"], data["width"], data["knee"], strict=True))
    assert ("decided", 1, 2, 2) in rows and ("decided", 1, 3, 2) in rows
    closed = [(width, knee) for series, _, width, knee in rows if series == "closed"]
    assert closed[0] == (2, 2) and closed[-1][0] == 60
    assert all(knee == single_position_knee(width) for width, knee in closed)
    # one Q position: the bound-based knee is the closed form's at the same width
    bound = {width: knee for series, q, width, knee in rows if series == "bound" and q == 1}
    assert all(bound[width] == single_position_knee(width) for width in bound)
    figure = threshold_knee.draw(data)
    labels = [line.get_label() for line in figure.axes[0].get_lines()]
    assert any("closed form" in label for label in labels)
    from figure_rules import figure_problems

    assert figure_problems(figure) == []
