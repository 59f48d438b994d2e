import pytest

from attndepth.theory import residual_rank
from attndepth.theory.residual_rank import (
    confirm_residual_top_part,
    grouped_bound,
    predicted_residual_rank,
)
from attndepth.theory.separation_rank import separation_rank_bounds


@pytest.mark.parametrize("network", [(2, 3, 2, 1, 0), (3, 2, 2, 1, 1), (2, 3, 1, 2, 4)])
def test_the_top_degree_part_of_the_residual_network_is_the_plain_network(network):
    assert confirm_residual_top_part(*network)


def test_the_top_part_check_can_fail(monkeypatch):
    """Comparing a degree below the top (a wrong statement) is caught."""
    monkeypatch.setattr(residual_rank, "output_degree", lambda depth: 3**depth - 2)
    # __wrapped__: the check itself, not the answer remembered before the patch
    assert not confirm_residual_top_part.__wrapped__(2, 3, 2, 1, 0)


def test_the_grouped_bound_is_proved_but_above_the_staircase():
    for sizes, grouped in (((2, 3, 2, 2), 290), ((4, 3, 4, 4), 36920), ((2, 2, 2, 2), 20)):
        assert grouped_bound(*sizes) == grouped
        assert separation_rank_bounds(*sizes, 1).bigraded < grouped


def test_the_conjecture_predicts_the_plain_rank():
    assert predicted_residual_rank((2, 3, 1, 3, 1, 2), 137) == 137


@pytest.mark.parametrize("arguments", [(0,), ("2",), (2, 3, 0), (2, 3, 2, 3), (2, 3, 2, 1, -1)])
def test_the_top_part_check_refuses_bad_sizes(arguments):
    with pytest.raises(ValueError, match="must"):
        confirm_residual_top_part(*arguments)
