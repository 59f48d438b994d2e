"""Verdicts from a sample of seeds: intervals, sequential sampling, rivals, error rates."""

import math

import numpy as np
import pytest
from scipy import stats

from attndepth.framework.declarations import SEED_STRIDE, Estimate, Rival, predict_constant
from attndepth.framework.evidence import decide, interval, seed_sample
from attndepth.framework.model import Outcome
from attndepth.framework.sampling import sampler, verify_form
from attndepth.framework.theories import Theory


def noisy(mean: float, sd: float = 0.1, size: int = 8):
    """A verify function whose per-stack errors are N(mean, sd²) around a prediction of 1."""
    def verify(seed: int, **params) -> Outcome:
        rng = np.random.default_rng(seed)
        values = list(1 + mean + sd * rng.standard_normal(size))
        ok = abs(float(np.mean(values)) - 1) <= 0.05
        return Outcome("1", f"{np.mean(values):.3f}", "holds" if ok else "fails", "",
                       {"measured": values, "predicted": 1.0})
    return verify


#: The stacks of ``noisy`` are independent, so the interval may pool them.
ESTIMATE = Estimate("measured", "predicted", (-0.05, 0.05), seeds=(4, 32), pool="stacks")


def test_the_interval_is_student_t():
    errors = np.array([0.1, -0.2, 0.05, 0.3, 0.0])
    found = interval(errors, 0.95)
    low, high = stats.t.interval(0.95, 4, loc=errors.mean(), scale=stats.sem(errors))
    assert math.isclose(found.low, low) and math.isclose(found.high, high)
    with pytest.raises(ValueError, match="at least 2"):
        interval(np.array([1.0]), 0.95)


def test_samples_of_different_base_seeds_never_share_a_seed():
    assert seed_sample(0, 3) == [0, 1, 2]
    assert not set(seed_sample(1, SEED_STRIDE)) & set(seed_sample(2, SEED_STRIDE))


@pytest.mark.parametrize("mean, verdict", [(0.0, "holds"), (0.3, "fails"), (-0.3, "fails")])
def test_a_clear_truth_is_decided_on_the_first_look(mean, verdict):
    evidence, outcomes = decide(sampler(noisy(mean, sd=0.03), {}), {}, 0, ESTIMATE)
    assert evidence.verdict == verdict and len(outcomes) == 4
    # a noisier measurement of the same truth may need more seeds, and still decides
    evidence, outcomes = decide(sampler(noisy(mean, sd=0.1), {}), {}, 0, ESTIMATE)
    assert evidence.verdict == verdict and len(outcomes) >= 4


def test_a_truth_on_the_edge_samples_to_the_maximum_and_stays_inconclusive():
    evidence, outcomes = decide(sampler(noisy(0.05), {}), {}, 0, ESTIMATE)
    assert evidence.verdict == "inconclusive" and len(outcomes) == 32


def test_error_rates_hold_at_the_edge_and_inside():
    # truth exactly on the edge: `holds` must be rare (≤ α = 1 %); truth in the middle:
    # `fails` must be rare. 150 base seeds each; a binomial margin keeps the test stable.
    edge = [decide(sampler(noisy(0.05, sd=0.2), {}), {}, base, ESTIMATE)[0].verdict
            for base in range(150)]
    inside = [decide(sampler(noisy(0.0, sd=0.2), {}), {}, base, ESTIMATE)[0].verdict
              for base in range(150)]
    assert edge.count("holds") <= stats.binom.ppf(0.999, 150, 0.01)
    assert inside.count("fails") <= stats.binom.ppf(0.999, 150, 0.01)


def test_the_verdict_does_not_move_with_the_base_seed_when_the_truth_is_clear():
    assert {decide(sampler(noisy(0.0), {}), {}, base, ESTIMATE)[0].verdict
            for base in range(10)} == {"holds"}


def test_a_rival_that_agrees_makes_the_claim_indistinguishable():
    close = Rival("1.01", "a neighbour", predicted=lambda values, params: 1.01)
    far = Rival("2", "a straw man", predicted=lambda values, params: 2.0)
    evidence, _ = decide(sampler(noisy(0.0, sd=0.02), {}), {}, 0, ESTIMATE, (close, far))
    assert evidence.verdict == "indistinguishable"
    assert [r.rejected for r in evidence.rivals] == [False, True]
    assert evidence.rivals[1].predicted == "2"


def test_a_rival_that_replaces_a_name_reruns_the_claim_with_its_own_theory():
    calls = []

    def verify(seed: int, theory: Theory) -> Outcome:
        calls.append((seed, theory.PREDICTION))
        rng = np.random.default_rng(seed)
        return Outcome("", "", "holds", "", {"measured": list(1 + 0.01 * rng.standard_normal(8)),
                                             "predicted": theory.PREDICTION})

    theory = Theory(PREDICTION=1.0)
    rival = Rival("1.5", "a rival constant", replace={"PREDICTION": 1.5})
    evidence, _ = decide(sampler(verify, {}), {}, 0, ESTIMATE, (rival,), theory)
    assert evidence.verdict == "holds" and evidence.rivals[0].rejected
    assert theory.PREDICTION == 1.0  # a new theory for the rival; the claim's is untouched
    # each seed runs once with each theory, however many looks the sample took
    assert sorted(calls) == sorted(set(calls))
    assert {p for _, p in calls} == {1.0, 1.5}


def test_a_batched_verify_function_gives_the_per_seed_numbers_in_one_call():
    per_seed = noisy(0.0, sd=0.03)
    batches = []

    def batched(seed_sample: tuple[int, ...]) -> list[Outcome]:
        batches.append(seed_sample)
        return [per_seed(seed=seed) for seed in seed_sample]

    one, outcomes_one = decide(sampler(per_seed, {}), {}, 3, ESTIMATE)
    many, outcomes_many = decide(sampler(batched, {}), {}, 3, ESTIMATE)
    assert one == many and outcomes_one == outcomes_many
    assert len(batches) == 1 and len(batches[0]) == len(outcomes_many)


def test_only_the_shown_seed_is_told_it_is_shown():
    # over several looks and a rival's rerun, exactly the sample's first seed is shown:
    # the outcome the report prints; the others give their verdict and values only
    per_seed = noisy(0.05)  # on the band's edge: the sample doubles to its maximum
    calls = []

    def verify(seed: int, theory: Theory, shown: bool) -> Outcome:
        calls.append((seed, theory.PREDICTION, shown))
        return per_seed(seed=seed)

    rival = Rival("1.5", "a rival constant", replace={"PREDICTION": 1.5})
    evidence, outcomes = decide(sampler(verify, {}), {}, 2, ESTIMATE, (rival,),
                                Theory(PREDICTION=1.0))
    assert len(outcomes) > ESTIMATE.seeds[0]  # more than one look
    assert [(seed, p) for seed, p, shown in calls if shown] == [(evidence.seeds[0], 1.0)]
    assert sampler(verify, {}, verify_form(verify))((5, 6), Theory(PREDICTION=1.0),
                                                    shown=False) is not None
    assert not any(shown for seed, _, shown in calls[-2:])


def test_a_batched_verify_function_is_told_whether_its_first_seed_is_shown():
    per_seed = noisy(0.05)
    told = []

    def batched(seed_sample: tuple[int, ...], shown: bool) -> list[Outcome]:
        told.append(shown)
        return [per_seed(seed=seed) for seed in seed_sample]

    assert verify_form(batched) == (True, False, True)
    decide(sampler(batched, {}), {}, 2, ESTIMATE)
    assert told[0] is True and not any(told[1:]) and len(told) > 1


def test_a_batched_verify_function_must_return_one_outcome_per_seed():
    def short(seed_sample: tuple[int, ...]) -> list[Outcome]:
        return []
    with pytest.raises(TypeError, match="one outcome per seed"):
        decide(sampler(short, {}), {}, 0, ESTIMATE)


@pytest.mark.parametrize("verify, match", [
    (lambda seed, seed_sample: None, "not both"),
    (lambda width: None, "must take seed"),
])
def test_a_verify_function_takes_one_form(verify, match):
    with pytest.raises(TypeError, match=match):
        verify_form(verify)


def test_several_estimates_fail_when_any_is_outside():
    def verify(seed: int) -> Outcome:
        rng = np.random.default_rng(seed)
        return Outcome("", "", "holds", "", {"a": list(1 + 0.01 * rng.standard_normal(8)),
                                             "b": list(2 + 0.01 * rng.standard_normal(8)),
                                             "one": 1.0})
    both = (Estimate("a", "one", (-0.05, 0.05)), Estimate("b", "one", (-0.05, 0.05)))
    evidence, _ = decide(sampler(verify, {}), {}, 0, both)
    assert evidence.verdict == "fails" and len(evidence.estimates) == 2


def test_an_estimate_a_member_does_not_measure_neither_decides_nor_blocks():
    # a value None: this member has no such part (a real model's block); the other
    # estimate decides alone, on the first look, and the report says there is no interval
    def verify(seed: int) -> Outcome:
        rng = np.random.default_rng(seed)
        return Outcome("", "", "holds", "", {"a": list(1 + 0.01 * rng.standard_normal(8)),
                                             "b": None, "one": 1.0})
    both = (Estimate("a", "one", (-0.05, 0.05)), Estimate("b", "one", (-0.05, 0.05)))
    evidence, outcomes = decide(sampler(verify, {}), {}, 0, both)
    assert evidence.verdict == "holds" and len(outcomes) == 4
    assert evidence.estimates[1][1] is None and "no interval" in evidence.describe()


def _limit_out_of_reach(reachable: bool, a_offset: float = 0.0):
    """Estimate a is measured with noise; b is a deterministic number 0.5 outside its band
    (a limit at a critical point), reachable or not at this member."""
    def verify(seed: int) -> Outcome:
        rng = np.random.default_rng(seed)
        return Outcome("", "", "holds", "",
                       {"a": list(1 + a_offset + 0.01 * rng.standard_normal(8)),
                        "b": 1.5, "one": 1.0, "reachable": reachable})
    both = (Estimate("a", "one", (-0.05, 0.05)),
            Estimate("b", "one", (-0.05, 0.05), decidable="reachable"))
    return sampler(verify, {}), both


def test_an_estimate_out_of_reach_neither_holds_nor_fails_nor_grows_the_sample():
    rival = Rival("b = 1.5", "the number b shows", predicted=predict_constant(1.5),
                  against="b")
    run, both = _limit_out_of_reach(False)
    evidence, outcomes = decide(run, {}, 0, both, (rival,))
    assert evidence.verdict == "inconclusive" and len(outcomes) == 4
    assert not evidence.rivals[0].rejected  # nothing is rejected on a number out of reach
    assert evidence.out_of_reach == (1,) and "out of reach" in evidence.describe()
    assert [e["decidable"] for e in evidence.as_dict()["estimates"]] == [True, False]
    # where it is reachable, the same number fails the claim
    run, both = _limit_out_of_reach(True)
    assert decide(run, {}, 0, both)[0].verdict == "fails"


def test_another_estimate_still_fails_a_claim_whose_limit_is_out_of_reach():
    run, both = _limit_out_of_reach(False, a_offset=0.2)
    assert decide(run, {}, 0, both)[0].verdict == "fails"


def test_an_estimate_whose_key_is_missing_is_a_bug_not_a_missing_part():
    def verify(seed: int) -> Outcome:
        return Outcome("", "", "holds", "", {"a": [1.0, 1.0], "one": 1.0})
    with pytest.raises(KeyError):
        decide(sampler(verify, {}), {}, 0, (Estimate("a", "one", (-0.05, 0.05)),
                                            Estimate("b", "one", (-0.05, 0.05))))


def test_seeds_that_cannot_decide_make_the_sample_inconclusive():
    def verify(seed: int) -> Outcome:
        return Outcome("", "", "inconclusive", "no linear phase", {})
    assert decide(sampler(verify, {}), {}, 0, ESTIMATE)[0].verdict == "inconclusive"


@pytest.mark.parametrize("kwargs, match", [
    (dict(band=(0.1, -0.1)), "low < high"),
    (dict(seeds=(1, 4)), "2 <= first"),
    (dict(seeds=(8, 4)), "first <= last"),
    (dict(confidence=1.0), "confidence"),
    (dict(decidable=""), "decidable"),
    (dict(decidable=3), "decidable"),
])
def test_bad_estimates_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Estimate("m", "p", **{"band": (-1.0, 1.0), **kwargs})


def test_a_rival_needs_exactly_one_way_to_predict():
    with pytest.raises(ValueError, match="needs predicted or replace"):
        Rival("x", "y")
    with pytest.raises(ValueError, match="not both"):
        Rival("x", "y", predicted=lambda v, p: 1.0, replace={"A": 1})


def test_pooling_by_seeds_counts_one_observation_a_seed():
    by_seeds = Estimate("measured", "predicted", (-0.05, 0.05), seeds=(4, 4))
    evidence, _ = decide(sampler(noisy(0.0, sd=0.03), {}), {}, 0, by_seeds)
    assert evidence.interval.n == 4
    by_stacks = Estimate("measured", "predicted", (-0.05, 0.05), seeds=(4, 4), pool="stacks")
    assert decide(sampler(noisy(0.0, sd=0.03), {}), {}, 0, by_stacks)[0].interval.n == 32
    with pytest.raises(ValueError, match="pool"):
        Estimate("m", "p", (-1.0, 1.0), pool="everything")


def test_a_relative_error_against_a_zero_prediction_is_refused():
    from attndepth.errors import InvalidParameter
    from attndepth.framework.declarations import Estimate
    from attndepth.framework.evidence import errors_of

    relative = Estimate("m", "p", (-0.1, 0.1), label="slope")
    with pytest.raises(InvalidParameter, match="relative=False"):
        errors_of(relative, [1.0, 2.0], 0.0)
    absolute = Estimate("m", "p", (-0.1, 0.1), relative=False)
    assert errors_of(absolute, [1.0, 2.0], 0.0).tolist() == [1.0, 2.0]


def test_the_prediction_helpers_give_a_constant_or_a_computed_value():
    from attndepth.framework.declarations import predict_constant, predict_value

    assert predict_constant(2.0)({"x": 5}, {"depth": 3}) == 2.0
    assert predict_value("x")({"x": 5}, {}) == 5.0


@pytest.mark.parametrize("band", [("a", "b"), (0.0, math.nan), (1, 0), (0,), [0, 1], (True, 2)])
def test_an_estimate_band_must_be_two_ordered_numbers(band):
    with pytest.raises(ValueError, match="estimate band must be"):
        Estimate("m", "p", band)
    Estimate("m", "p", (0.0, math.inf))  # one-sided
