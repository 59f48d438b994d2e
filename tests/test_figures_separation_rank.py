import numpy as np

from attndepth.figures import separation_rank


def test_exact_points_lie_on_or_below_bound_lines(quick_data):
    data = quick_data(separation_rank)
    check_heads_panel_draws_divisors_only(data)
    panel, series = np.array(data["panel"]), np.array(data["series"])
    width, x, value = (np.array(data[k], dtype=float) for k in ("width", "x", "value"))
    for w, L, v in zip(width[(panel == "depth") & (series == "exact")],
                       x[(panel == "depth") & (series == "exact")],
                       value[(panel == "depth") & (series == "exact")], strict=True):
        bound = value[(panel == "depth") & (series == "bound") & (width == w) & (x == L)]
        assert v <= bound[0] + 1e-9


def check_heads_panel_draws_divisors_only(data):
    # H = 3 does not divide d = 4: no line may pass through it, so the drawn head counts
    # sit at evenly spaced slots labelled by the divisors
    right = separation_rank.draw(data).axes[1]
    width = int(np.array(data["width"])[np.array(data["panel"]) == "heads"][0])
    labels = [int(text.get_text()) for text in right.get_xticklabels()]
    assert labels and all(width % heads == 0 for heads in labels)
    for line in right.get_lines():
        assert list(line.get_xdata()) == list(range(len(labels)))
