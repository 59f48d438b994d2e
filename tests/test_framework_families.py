"""Families: exhaustive enumeration in order, constraints, values beyond, descriptions."""

import pytest

from attndepth.framework.families import Family
from attndepth.framework.registry import all_claims
from attndepth.framework.sampling import FRAMEWORK_ARGUMENTS

SMALL = Family(parameters={"width": (1, 2, 4), "heads": (1, 2)}, beyond={"width": (8,)},
               constraints=(("heads divide width", lambda m: m["width"] % m["heads"] == 0),),
               fixed={"batch": 3}, adapt=lambda m: {"config": (m["width"], m["heads"])})


def test_exhaustive_members_in_order_and_constrained():
    assert list(SMALL.exhaustive()) == [
        {"width": 1, "heads": 1}, {"width": 2, "heads": 1}, {"width": 2, "heads": 2},
        {"width": 4, "heads": 1}, {"width": 4, "heads": 2}]
    assert SMALL.size() == 5 and SMALL.grid_size() == 8
    assert not SMALL.contains({"width": 1, "heads": 2})


def test_values_order_kwargs_and_description():
    assert SMALL.values("width") == (1, 2, 4, 8)
    assert SMALL.order({"width": 8, "heads": 1}) > SMALL.order({"width": 4, "heads": 2})
    assert SMALL.kwargs({"width": 2, "heads": 1}) == {"batch": 3, "config": (2, 1)}
    assert SMALL.describe() == ("width ∈ {1, 2, 4} (draws also {8}); heads ∈ {1, 2}; "
                                "heads divide width")


@pytest.mark.parametrize("kwargs, match", [
    (dict(parameters={"a": ()}), "non-empty"),
    (dict(parameters={"a": [1, 2]}), "tuple"),
    (dict(parameters={"a": (1,)}, beyond={"b": (2,)}), "beyond"),
])
def test_malformed_families_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Family(**kwargs)


@pytest.mark.parametrize("claim_id", list(all_claims()))
def test_every_claim_declares_a_family_whose_members_fit_its_verify_function(claim_id):
    import inspect

    found = all_claims()[claim_id]
    assert found.family is not None, f"{claim_id} declares no family"
    first = next(found.family.exhaustive())
    accepted = set(inspect.signature(found.verify).parameters) - FRAMEWORK_ARGUMENTS
    assert set(found.family.kwargs(first)) == accepted


def test_a_run_is_in_the_family_when_its_values_lie_in_the_sampled_ranges():
    family = Family(parameters={"width": (16, 32, 64), "variant": ("a", "b")},
                    beyond={"width": (128,)},
                    constraints=(("even", lambda m: m["width"] % 2 == 0),))
    assert family.includes({"width": 48, "variant": "a", "batch": 9}) is True  # between values
    assert family.includes({"width": 128, "variant": "b"}) is True  # beyond, still the domain
    assert family.includes({"width": 8, "variant": "a"}) is False
    assert family.includes({"width": 256, "variant": "a"}) is False
    assert family.includes({"width": 33, "variant": "a"}) is False  # a constraint
    assert family.includes({"width": 32, "variant": "c"}) is False
    assert family.includes({"variant": "a"}) is None  # cannot tell


@pytest.mark.parametrize("claim_id", list(all_claims()))
def test_every_quick_preset_lies_in_its_claims_family(claim_id):
    found = all_claims()[claim_id]
    if found.family is None:
        return
    assert found.family.includes(dict(found.presets["quick"])) in (True, None), (
        f"{claim_id}'s quick preset lies outside its family ({found.family.describe()})")


def test_a_family_too_large_to_search_is_refused_when_declared():
    with pytest.raises(ValueError, match="2,000,000 members"):
        Family(parameters={"a": tuple(range(2000)), "b": tuple(range(1000))})
    Family(parameters={"a": (1, 2)}, beyond={"a": tuple(range(3, 2_000_000))})
