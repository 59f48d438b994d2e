"""The framework's judgement of one run: every combination of declarations and values
decides as the module docstring says (attndepth.framework.judge)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth import Check, Estimate, Outcome, Rival, Theory, claim, run_claim
from attndepth.framework import registry
from attndepth.framework.judge import (
    judged,
    measured_text,
    number_text,
    predicted_text,
    seed_verdict,
    tolerance_text,
)
from attndepth.framework.registry import get_claim
from attndepth.framework.verdicts import Verdict

BAND = Estimate("m", "p", (-0.1, 0.1), relative=False, quantity="the slope")
BOOL = Check("ok", "an identity")
BOUND = Check("count", "violations", at_most=0)
PROOF = Check("step", "a proof step", proof=True)
GATE = Check("oracle", "the oracle agrees", precondition=True)


@pytest.mark.parametrize(("values", "verdict"), [
    ({"m": 1.05, "p": 1.0, "ok": True, "count": 0}, Verdict.HOLDS),
    ({"m": 1.5, "p": 1.0, "ok": True, "count": 0}, Verdict.FAILS),        # outside the band
    ({"m": 1.0, "p": 1.0, "ok": False, "count": 0}, Verdict.FAILS),       # a check fails
    ({"m": 1.0, "p": 1.0, "ok": True, "count": 3}, Verdict.FAILS),        # beyond its bound
    ({"m": 1.0, "p": 1.0, "ok": None, "count": 0}, Verdict.INCONCLUSIVE),  # cannot tell
    ({"m": math.nan, "p": 1.0, "ok": True, "count": 0}, Verdict.INCONCLUSIVE),  # no fit
    ({"m": 1.0, "p": 1.0, "ok": None, "count": 1}, Verdict.FAILS),        # fails beats unknown
    ({"m": None, "p": 1.0, "ok": True, "count": 0}, Verdict.HOLDS),       # not measured here
    ({"m": [1.0, 1.3], "p": 1.0, "ok": True, "count": 0}, Verdict.FAILS),  # mean of stacks
])
def test_one_run_is_judged_by_its_estimates_and_checks(values, verdict):
    assert seed_verdict((BAND,), (BOOL, BOUND), values) == verdict


def test_a_failed_precondition_leaves_the_run_undecided_whatever_else_it_says():
    values = {"m": 9.0, "p": 1.0, "ok": False, "oracle": False}
    assert seed_verdict((BAND,), (GATE, BOOL), values) == Verdict.INCONCLUSIVE
    assert seed_verdict((BAND,), (GATE, BOOL), {**values, "oracle": True}) == Verdict.FAILS


def test_only_proof_steps_and_no_estimate_prove():
    assert seed_verdict((), (PROOF,), {"step": True}) == Verdict.PROVED
    assert seed_verdict((), (PROOF, BOOL), {"step": True, "ok": True}) == Verdict.HOLDS
    assert seed_verdict((BAND,), (PROOF,), {"step": True, "m": 1, "p": 1}) == Verdict.HOLDS


def test_a_decidable_false_estimate_takes_no_part_in_the_run():
    out_of_reach = Estimate("m", "p", (-0.1, 0.1), relative=False, decidable="reach")
    assert seed_verdict((out_of_reach,), (), {"m": 9, "p": 1, "reach": False}) == Verdict.HOLDS
    assert seed_verdict((out_of_reach,), (), {"m": 9, "p": 1, "reach": True}) == Verdict.FAILS


@given(st.floats(-10, 10), st.floats(0.01, 5))
def test_a_bounded_check_holds_exactly_within_its_bounds(value, bound):
    check = Check("x", "x", at_least=-bound, at_most=bound)
    assert check.holds(value) is (-bound <= value <= bound)


def test_the_texts_come_from_the_declarations():
    values = {"m": 1.05, "p": 1.0, "ok": True, "count": 0}
    assert predicted_text((BAND,), (BOOL, BOUND), values) == \
        "the slope: 1; an identity; violations ≤ 0"
    assert measured_text((BAND,), (BOOL, BOUND), values) == \
        "the slope: 1.05; an identity: yes; violations: 0"
    assert tolerance_text((BAND,), (BOUND,)) == \
        "99% interval over seeds of error within ±0.1; violations ≤ 0"
    assert number_text([1.0, 2.0]) == "mean 1.5 of 2" and number_text(None) == "not measured"


def test_an_outcome_with_its_own_verdict_is_kept():
    own = Outcome("p", "m", "holds", values={"ok": False})
    found = get_claim("levine.degree")
    assert judged(found, own) is own


@pytest.fixture
def scratch_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))


def test_a_claim_that_only_measures_is_judged_worded_and_can_fail(scratch_registry):
    @claim("test.judged", source="s", statement="two is two", presets={"quick": {},
                                                                         "full": {}},
           theory=Theory(TWO=2), wrong_theory={"TWO": 3},
           checks=(Check("error", "|1 + 1 − TWO|", at_most=0),))
    def verify(seed, theory):
        return Outcome(values={"error": abs(1 + 1 - theory.TWO)})

    result = run_claim("test.judged")
    assert result.verdict == "holds" and result.tolerance == "|1 + 1 − TWO| ≤ 0"
    assert result.outcome.measured == "|1 + 1 − TWO|: 0"
    assert run_claim("test.judged", theory=get_claim("test.judged").wrong).verdict == "fails"


@pytest.mark.parametrize(("returned", "match"), [
    ({}, r"checks read Outcome.values \['error'\]"),
    ({"error": "0"}, "must be a number or None"),
    ({"error": True}, "must be a number or None"),
])
def test_a_value_a_check_cannot_read_is_refused(scratch_registry, returned, match):
    @claim("test.unreadable", source="s", statement="s", presets={"quick": {}, "full": {}},
           checks=(Check("error", "error", at_most=0),))
    def verify(seed):
        return Outcome(values=returned)

    with pytest.raises((TypeError, ValueError), match=match):
        run_claim("test.unreadable")


@pytest.mark.parametrize(("declared", "match"), [
    (dict(checks=[Check("a", "a")]), "checks must be a tuple of Check"),
    (dict(checks=(Check("m", "m"),), estimate=Estimate("m", "p", (-1, 1))),
     "read the same value"),
    (dict(estimate=Estimate("m", "p", (-1, 1)),
          rivals=(Rival("r", "s", predicted=lambda v, p: 0, against="nope"),)),
     "competes on 'nope'"),
    (dict(checks=(Check("a", "a", proof=True),), kind="consistency"),
     "cannot be proof=True"),
])
def test_declarations_that_cannot_judge_are_refused_at_registration(scratch_registry,
                                                                    declared, match):
    with pytest.raises((TypeError, ValueError), match=match):
        claim("test.refused", source="s", statement="s", presets={"quick": {}, "full": {}},
              **declared)(lambda seed: Outcome(values={}))


@pytest.mark.parametrize("bad", [{"key": ""}, {"label": 3}, {"at_most": "1"},
                                 {"at_least": math.nan}, {"at_most": True}])
def test_a_malformed_check_is_refused(bad):
    with pytest.raises(TypeError):
        Check(**{"key": "k", "label": "l", **bad})
