"""The conjectured deficits as numbers, and their bad-input errors."""

import pytest

from attndepth.theory.rank_deficits import one_position_deficit, two_head_deficit


def test_values():
    assert [two_head_deficit(k) for k in range(5)] == [0, 1, 3, 6, 10]
    assert [one_position_deficit(d) for d in range(2, 11)] == [0, 2, 10, 30, 70, 140, 252, 420,
                                                               660]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_bad_input(bad):
    with pytest.raises(ValueError, match="integer >= 0"):
        one_position_deficit(bad)
    with pytest.raises(ValueError, match="integer >= 0"):
        two_head_deficit(bad)
