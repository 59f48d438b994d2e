import math

import pytest

from attndepth.rank.p_side import MAX_FUNCTIONS, p_side_rank
from attndepth.theory.separation_rank import p_side_dimension, symmetric_rank_hilbert

# every (d, m, b) with d ≤ 4, m ≤ d + 1, b ≤ 4 and at most 3,000 spanning functions
CASES = [(d, m, b) for d in (1, 2, 3, 4) for m in range(1, d + 2) for b in range(5)
         if math.comb(d * (d + 1) // 2 + b - 1, b) * d <= 3000]


# the two largest (about 3.5 s each) run with the slow tests
@pytest.mark.parametrize("width, p_size, degree", [
    # the README's suite keeps the small widths and one width-four case (6 s each)
    pytest.param(*case, marks=pytest.mark.slow)
    if case in ((4, 2, 4), (4, 3, 4), (4, 4, 4), (4, 5, 4)) else case
    for case in CASES])
def test_the_p_side_count_is_exact_where_measured(width, p_size, degree):
    """The certified rank (a lower bound) meets the proved upper bound: the count is exact."""
    assert p_side_rank(degree, width, p_size) == p_side_dimension(degree, width, p_size)


def test_the_measurement_can_refute_a_wrong_count():
    """The old spanning count d·h(b; d, m) for 1 < m < d is not the dimension: 1960 < 2520."""
    assert p_side_rank(4, 4, 2) == 1960 < 4 * symmetric_rank_hilbert(4, 4, 2) == 2520


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="width"):
        p_side_rank(1, 0, 1)
    with pytest.raises(ValueError, match=str(MAX_FUNCTIONS)):
        p_side_rank(8, 6, 2)
