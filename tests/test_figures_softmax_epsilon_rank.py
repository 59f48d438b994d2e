"""The ε-rank figure: ranks fall with ε, the oracle reaches its exact rank, lower bounds
are marked."""

import numpy as np

from attndepth.figures import softmax_epsilon_rank


def test_ranks_grow_as_epsilon_falls_and_the_oracle_reaches_the_exact_rank(quick_data):
    data = quick_data(softmax_epsilon_rank)
    series, depth = np.array(data["series"]), np.array(data["depth"])
    rank = np.array([np.nan if r is None else r for r in data["rank"]], dtype=float)
    for variant in softmax_epsilon_rank.VARIANTS:
        for L in softmax_epsilon_rank.DEPTHS:
            curve = rank[(series == variant) & (depth == L)]
            assert np.all(np.diff(curve) >= 0)  # epsilons are listed decreasing
    oracle, exact = rank[series == "linear"], rank[series == "exact"][0]
    assert oracle[-1] == exact and np.all(oracle <= exact)
    figure = softmax_epsilon_rank.draw(data)
    assert len(figure.axes) == 3
    assert any("exact rank" in text.get_text() for text in figure.axes[2].get_legend().texts)
