"""Verdicts: one type, its words unchanged in text and JSON, its groupings consistent."""

import json

import pytest

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.framework.model import Outcome
from attndepth.framework.verdicts import (
    CONSISTENCY_VERDICTS,
    COUNTEREXAMPLE,
    DECIDED,
    FAILING,
    PASSING,
    THEORY_VERDICTS,
    UNDECIDED,
    VERDICTS,
    Verdict,
    failing_for,
)


def test_a_verdict_is_its_word_in_text_and_json():
    for verdict in Verdict:
        assert verdict == verdict.value and f"{verdict}" == verdict.value
        assert json.loads(json.dumps({"verdict": verdict, verdict: 1})) == {
            "verdict": verdict.value, verdict.value: 1}


def test_an_outcome_takes_the_word_and_refuses_any_other():
    outcome = Outcome("p", "m", "holds")
    assert outcome.verdict is Verdict.HOLDS
    with pytest.raises(InvalidParameter, match="verdict must be one of"):
        Outcome("p", "m", "passes")
    with pytest.raises(InvalidType):
        Outcome("p", "m", True)


def test_the_groupings_partition_what_they_should():
    assert set(VERDICTS) == THEORY_VERDICTS | CONSISTENCY_VERDICTS
    assert THEORY_VERDICTS & CONSISTENCY_VERDICTS == {Verdict.ERROR}
    assert COUNTEREXAMPLE < FAILING and not FAILING & (PASSING | UNDECIDED)
    assert DECIDED == {Verdict.HOLDS, Verdict.FAILS}
    assert failing_for("theory") == "fails" and failing_for("consistency") == "inconsistent"
