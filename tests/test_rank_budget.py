"""One refusal before the work for every per-block method, and the checks they share."""

import math

import pytest

from attndepth.rank.budget import (
    check_block_case,
    check_progress,
    format_duration,
    refuse_over_budget,
)
from attndepth.rank.degree_blocks import measure_block_ranks
from attndepth.rank.grids import SeparationRankConfig
from attndepth.rank.methods import block_bounds_for
from attndepth.rank.torus_blocks import measure_torus_ranks


def test_durations_read_as_the_refusals_print_them():
    assert [format_duration(s) for s in (45, 719, 3 * 3600)] == ["45 s", "12 min", "3.0 h"]


def test_the_refusal_names_the_work_the_estimate_the_limit_and_the_way_out():
    assert refuse_over_budget("work", 10.0, math.inf) == math.inf
    with pytest.raises(ValueError) as refused:
        refuse_over_budget("the 3 degree blocks", 7200.0, 60)
    message = str(refused.value)
    assert message.startswith("the 3 degree blocks would take about 2.0 h here, more than "
                              "the limit of 60 s;")
    assert "--max-points" in message and "--max-seconds" in message
    with pytest.raises(ValueError, match="max_seconds"):
        refuse_over_budget("work", 1.0, -1)


@pytest.mark.parametrize("measure", [measure_block_ranks, measure_torus_ranks])
def test_both_per_block_methods_refuse_alike_before_any_work(measure):
    config = SeparationRankConfig(width=3, depth=3, tokens=6)
    with pytest.raises(ValueError, match="would take about .* more than the limit of 0 s"):
        measure(config, block_bounds_for(config), max_seconds=0.001)
    with pytest.raises(ValueError, match="block bounds"):
        measure(config, [1, 2])
    with pytest.raises(ValueError, match="residual = 0"):
        measure(SeparationRankConfig(width=2, depth=2, tokens=4, residual=1), [1] * 5)
    with pytest.raises(ValueError, match="progress"):
        measure(config, block_bounds_for(config), progress=1)


def test_the_shared_checks():
    config = SeparationRankConfig(width=2, depth=1, tokens=2)
    assert check_block_case(config, [3, 4], "blocks") == [3, 4]
    with pytest.raises(TypeError, match="SeparationRankConfig"):
        check_block_case({"width": 2}, [3, 4], "blocks")
    with pytest.raises(ValueError, match="one head"):
        check_block_case(SeparationRankConfig(width=2, depth=1, heads=2, tokens=2), [3, 4],
                         "torus", one_head=True)
    with pytest.raises(ValueError, match="block bounds"):
        check_block_case(config, "34", "blocks")
    assert check_progress(True) is True
