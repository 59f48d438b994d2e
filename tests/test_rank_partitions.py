"""Partitions (P, Q) with the output position in P: parsing and refusals."""

import pytest

from attndepth.rank.partitions import make_partition


def test_balanced_and_interleaved():
    assert make_partition("balanced", 5).p_positions == (0, 1, 2)
    assert make_partition("interleaved", 5).q_positions == (1, 3)
    assert make_partition("0,2/1,3", 4).label() == "0,2/1,3"


@pytest.mark.parametrize("spec, tokens, match", [
    ("1/0,2", 3, "must lie in P"),
    ("0,1/1,2", 3, "overlap"),
    ("0,1,2/", 3, "non-empty"),
    ("0/1", 3, "cover"),
    ("0,a/1", 2, "integers"),
    ("0-1", 2, "partition must be"),
    ("balanced", 1, "tokens"),
])
def test_bad_partitions(spec, tokens, match):
    with pytest.raises(ValueError, match=match):
        make_partition(spec, tokens)
