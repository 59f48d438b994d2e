"""What would decide an undecided verdict: the seeds from its own intervals, or why none."""

import math

from hypothesis import given
from hypothesis import strategies as st

from attndepth.framework.deciding import MAX_SEED_FACTOR, seeds_to_decide, to_decide
from attndepth.framework.declarations import Estimate, Rival
from attndepth.framework.evidence import Evidence, Interval, RivalResult

BAND = (-0.1, 0.1)
ESTIMATE = Estimate("m", "p", BAND, label="error")


def _evidence(interval, rivals=()):
    return Evidence("inconclusive", interval, tuple(range(interval.n)), 0, interval.n,
                    tuple(rivals), BAND, 0.01, "error", (("error", interval, BAND),))


def test_the_seeds_follow_the_square_of_half_width_over_distance():
    # mean 0.15, 0.05 beyond the edge, half-width 0.1 at 16 seeds: (0.1/0.05)² × 16 = 64
    # leaves the interval touching the edge; one more seed lifts it off
    assert seeds_to_decide(Interval(0.15, 0.05, 0.25, 16), BAND) == 65
    assert seeds_to_decide(Interval(0.1, 0.0, 0.2, 16), BAND) is None  # on the edge
    assert seeds_to_decide(Interval(0.1, 0.0, 0.2, 16), (-math.inf, math.inf)) is None
    assert seeds_to_decide(Interval(0.1 + 1e-9, 0.0, 0.2, 16), BAND) is None  # too many


@given(mean=st.floats(-0.3, 0.3), half=st.floats(1e-3, 0.3), n=st.integers(2, 64))
def test_at_the_seeds_it_gives_the_interval_no_longer_straddles(mean, half, n):
    found = Interval(mean, mean - half, mean + half, n)
    if found.position(BAND) != "straddles":
        return
    needed = seeds_to_decide(found, BAND)
    if needed is None:  # on the edge, or more than the factor allows
        distance = min(abs(mean - edge) for edge in BAND)
        assert distance == 0 or n * (half / distance) ** 2 > MAX_SEED_FACTOR * n
        return
    shrunk = half * math.sqrt(n / needed)
    later = Interval(mean, mean - shrunk, mean + shrunk, needed)
    assert later.position(BAND) != "straddles"


def test_a_decided_verdict_needs_nothing_and_a_stated_one_is_kept():
    interval = Interval(0.15, 0.05, 0.25, 16)
    assert to_decide("holds", _evidence(interval), [ESTIMATE], [], 1.0, {}) is None
    assert to_decide("fails", None, [], [], 1.0, {}) is None
    stated = to_decide("indistinguishable", None, [], [], 1.0, {"to_decide": "a wider fit"})
    assert stated.text == "a wider fit" and stated.seeds is None


def test_an_inconclusive_sample_gives_seeds_and_cost_and_its_direction():
    found = to_decide("inconclusive", _evidence(Interval(0.15, 0.05, 0.25, 16)),
                      [ESTIMATE], [], 8.0, {})
    assert (found.seeds, found.seconds) == (65, 32.5)
    assert "about 65 seeds, where it would fail" in found.text


def test_a_rival_agreeing_inside_the_band_cannot_be_separated_by_seeds():
    interval = Interval(0.0, -0.02, 0.02, 16)
    rival = RivalResult("r", "s", "0.01", False, Interval(0.05, 0.03, 0.07, 16))
    found = to_decide("indistinguishable", _evidence(interval, [rival]), [ESTIMATE],
                      [Rival("r", "s", predicted=lambda values, params: 0.0)], 1.0, {})
    assert found.seeds is None and "no sample size" in found.text
    outside = RivalResult("r", "s", "0.2", False, Interval(0.15, 0.05, 0.25, 16))
    found = to_decide("indistinguishable", _evidence(interval, [outside]), [ESTIMATE],
                      [Rival("r", "s", predicted=lambda values, params: 0.0)], 1.0, {})
    assert found.seeds == 65 and "to reject it" in found.text
