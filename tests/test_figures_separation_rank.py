import numpy as np

from attndepth.figures import separation_rank


def test_exact_points_lie_on_or_below_bound_lines():
    data = separation_rank.compute("quick", 0)
    panel, series = np.array(data["panel"]), np.array(data["series"])
    width, x, value = (np.array(data[k], dtype=float) for k in ("width", "x", "value"))
    for w, L, v in zip(width[(panel == "depth") & (series == "exact")],
                       x[(panel == "depth") & (series == "exact")],
                       value[(panel == "depth") & (series == "exact")], strict=True):
        bound = value[(panel == "depth") & (series == "bound") & (width == w) & (x == L)]
        assert v <= bound[0] + 1e-9
