"""A claim's theory: a frozen namespace, replaced by making a new one."""

import math
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.framework.theories import RESERVED, Theory


def rate(width: int) -> float:
    return math.log(2 - 1 / width)


def test_functions_are_named_by_their_name_and_constants_by_keyword():
    theory = Theory(rate, LIMIT=2.0)
    assert theory.rate is rate and theory["LIMIT"] == 2.0
    assert list(theory) == ["rate", "LIMIT"] and len(theory) == 2
    assert repr(theory) == "Theory(rate, LIMIT)"


def test_a_theory_cannot_be_changed_only_replaced():
    theory = Theory(rate, LIMIT=2.0)
    with pytest.raises(AttributeError, match="cannot be changed"):
        theory.LIMIT = 3.0
    with pytest.raises(AttributeError, match="cannot be changed"):
        del theory.rate
    other = theory.replaced({"LIMIT": 3.0})
    assert (theory.LIMIT, other.LIMIT) == (2.0, 3.0) and other.rate is rate
    with pytest.raises(ValueError, match=r"\['LIMT'\] are not names of this theory"):
        theory.replaced({"LIMT": 3.0})


def test_a_missing_name_says_what_the_theory_has():
    with pytest.raises(AttributeError, match=r"no 'rat' \(it has \['rate'\]\)"):
        Theory(rate).rat  # noqa: B018


@pytest.mark.parametrize("make, error, match", [
    (lambda: Theory(lambda width: 1.0), ValueError, "give it by keyword"),
    (lambda: Theory(2.0), TypeError, "must be functions"),
    (lambda: Theory(rate, rate=rate), ValueError, "twice"),
    (lambda: Theory(keys=1), ValueError, "method of a theory"),
    (lambda: Theory.of(3), TypeError, "must be a Theory"),
    (lambda: Theory.of({1: rate}), TypeError, "names must be strings"),
])
def test_bad_theories_are_refused(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_every_declared_form_makes_the_same_theory():
    assert dict(Theory.of((rate,))) == dict(Theory.of({"rate": rate})) == dict(
        Theory.of(Theory(rate)))
    assert len(Theory.of(None)) == 0


def test_a_theory_of_module_functions_pickles():
    theory = pickle.loads(pickle.dumps(Theory(rate, LIMIT=2.0)))
    assert theory.rate is rate and theory.LIMIT == 2.0


@given(st.dictionaries(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True),
                       st.integers(), max_size=6),
       st.dictionaries(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True),
                       st.integers(), max_size=6))
def test_replacing_keeps_every_other_entry_and_the_original(entries, new):
    entries = {k: v for k, v in entries.items() if k not in RESERVED}
    theory = Theory(**entries)
    known = {k: v for k, v in new.items() if k in entries}
    replaced = theory.replaced(known)
    assert dict(replaced) == {**entries, **known} and dict(theory) == entries


@pytest.mark.parametrize("name", ["_entries", "__class__", "__len__", "_private"])
def test_a_name_of_pythons_or_of_the_theorys_own_is_refused(name):
    with pytest.raises(ValueError, match="start with '_'"):
        Theory(**{name: 1})
