import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.rank.knee import (
    KNEE_RATIO,
    decide_knee,
    grid_cap,
    measure_knee,
    required_lower,
    torus_cap,
)
from attndepth.theory.separation_rank import degree_block_bounds, regime_bounds


def test_exact_values_decide_the_first_depth_below_the_ratio():
    sep = [3, 15, 105, 861]  # d = 2, N = 2: ratios 2.46, 1.72, 1.45
    decision = decide_knee(sep, sep)
    assert decision.decided and decision.knee == 2
    assert decision.ratio_low == decision.ratio_high


def test_a_bracket_that_straddles_two_leaves_the_knee_undecided():
    upper = [4, 49, 3102, 679581]
    lower = [4, 49, 1000, 679581]  # 1000 < 49² = 2401: the step 2 -> 3 may not square
    decision = decide_knee(lower, upper)
    assert not decision.decided and decision.earliest == 2 and decision.latest == 3


@given(st.lists(st.integers(2, 10**6), min_size=2, max_size=6))
def test_bounds_that_meet_decide_exactly_where_the_ratio_first_drops(values):
    values = sorted(values)
    decision = decide_knee(values, values)
    ratios = [math.log(b) / math.log(a) for a, b in zip(values, values[1:], strict=False)]
    first = next((k + 1 for k, r in enumerate(ratios) if r < KNEE_RATIO), None)
    assert decision.knee == first


def test_required_lower_values_decide_the_candidate_knee():
    upper = [5, 110, 31460, 96844605]  # d = 4, |P| = |Q| = 4
    needed = required_lower(upper, 3)
    assert needed == [2, 25, 12100]
    assert decide_knee(needed + [2], upper).knee == 3
    short = needed[:2] + [12099, 2]
    assert not decide_knee(short, upper).decided


def test_grid_cap_is_the_smallest_sufficient_grid():
    bounds = [1, 10, 100, 1000]
    cap = grid_cap(bounds, 500, 8)
    assert sum(min(b, cap - 8) for b in bounds) >= 500
    assert sum(min(b, cap - 9) for b in bounds) < 500
    assert grid_cap(bounds, 10**9, 8) == 1008


def test_measured_knee_of_one_position_is_decided_by_depth_two_ranks():
    regime = measure_knee(5, 1, *regime_bounds(5, 1))
    assert regime.decision.knee == 2 and list(regime.grids) == [2]
    assert regime.lower[1] ** 1 >= regime.upper[0] ** 2


@pytest.mark.parametrize("lower, upper", [([2], [2]), ([3, 1], [3, 15]), ([16, 3], [15, 3]),
                                          ([2, 2], [2])])
def test_bad_input_is_refused(lower, upper):
    with pytest.raises(ValueError):
        decide_knee(lower, upper)


def test_an_unreachable_certificate_is_not_attempted():
    """d = 10, one Q position: deciding κ = 3 needs a certified rank of 1001² at L = 3,
    beyond any grid of at most 64 points: nothing is measured, the knee stays undecided."""
    regime = measure_knee(10, 1, *regime_bounds(10, 1), max_points=64)
    assert not regime.decision.decided and regime.seconds < 5


@pytest.mark.parametrize("bounds, needed", [([], 5), ([3, 0], 5), ([3, 4], 0), ([3], 2.5)])
def test_grid_cap_refuses_bad_input(bounds, needed):
    with pytest.raises(ValueError):
        grid_cap(bounds, needed, 8)


def test_a_knee_out_of_reach_is_still_bounded_below():
    """d = 7, one Q position: κ = 2 needs rank ≥ 279 at L = 2, beyond 100-point grids; the
    weaker target hi(1)² = 64 fits, proves that layer 1 → 2 squares, so κ ≥ 2."""
    regime = measure_knee(7, 1, *regime_bounds(7, 1), max_points=100, torus_order=None)
    assert not regime.decision.decided and regime.decision.earliest == 2
    assert 64 <= regime.lower[1] < 279 and regime.grids[2] <= 100


def test_the_torus_split_decides_what_the_dense_blocks_cannot():
    """d = 3, |P| = |Q| = 3: κ = 3 needs rank ≥ hi(2)² = 2,401 at L = 3; dense blocks of
    at most 150 points reach 1,146 at most; the torus split's 6 classes (one plane, N = 6)
    of at most 119 points reach it."""
    bounds = regime_bounds(3, 3)
    dense = measure_knee(3, 3, *bounds, max_points=150, torus_order=None)
    split = measure_knee(3, 3, *bounds, max_points=150)
    assert not dense.decision.decided and split.decision.knee == 3
    assert split.methods == {2: "blocks", 3: "torus"} and split.lower[2] >= 2401
    assert split.lower[2] <= 3102  # the generic rank (atlas), never above


def test_torus_cap_sizes_classes_by_their_share_of_each_block():
    """The shares are the class counts scaled to the block bounds; the cap grows with the
    target, and a target beyond every share gives the largest share's full grid."""
    bounds = [b.bound for b in degree_block_bounds(5, 3, 5, 5)]
    small, large = (torus_cap(5, 3, bounds, needed, 6, 8) for needed in (50_000, 103_701))
    assert 8 < small < large < 1000
    assert torus_cap(5, 3, bounds, 10**7, 6, 8) == 3676 + 8  # the largest class count


def test_the_torus_split_bounds_the_knee_at_width_six():
    """d = 6, |P| = |Q| = 6: the deciding rank 955,203 is out of reach, the weaker
    hi(2)² = 148,225 is certified by the split, so κ ≥ 3. The split's rank 182,247 is a
    shipped certificate (`attndepth atlas knees --regime 6,6`: 155 s on 2 cores), read
    here; the split itself is measured afresh at d = 3 below."""
    regime = measure_knee(6, 6, *regime_bounds(6, 6))
    assert not regime.decision.decided and regime.decision.earliest == 3
    assert regime.methods[3] == "torus" and regime.shipped == (2, 3)
    assert 148_225 <= regime.lower[2] == 182_247 < 955_203


@pytest.mark.parametrize("keywords", [{"torus_order": 0}, {"torus_order": 17},
                                      {"torus_points": 1}, {"torus_points": "many"}])
def test_measure_knee_refuses_bad_torus_options(keywords):
    with pytest.raises((ValueError, TypeError), match="torus_"):
        measure_knee(3, 3, *regime_bounds(3, 3), **keywords)


def test_a_shipped_certificate_is_read_instead_of_measured(monkeypatch):
    """d = 3, q = 3: a certificate of 2,427 at L = 3 decides κ = 3 without the torus split;
    shipped=False measures again."""
    import attndepth.rank.knee as knee
    from attndepth.rank.knee_certificates import KneeCertificate, certificate_command

    shipped = KneeCertificate(3, 3, 3, 2427, "blocks", 445, 0, 0, 0.6, "0.1.0",
                              certificate_command(3, 3, 3, "blocks", 445, 0, 0))
    monkeypatch.setattr(knee, "shipped_certificate",
                        lambda d, q, L, target: shipped if (d, q, L) == (3, 3, 3)
                        and target <= shipped.rank else None)
    read = measure_knee(3, 3, *regime_bounds(3, 3), max_points=150)
    assert read.decision.knee == 3 and read.shipped == (3,)
    assert read.lower[2] == 2427 and read.methods[3] == "blocks" and read.grids[3] == 445
    measured = measure_knee(3, 3, *regime_bounds(3, 3), max_points=150, shipped=False)
    assert measured.shipped == () and measured.methods[3] == "torus"
