"""The displacement law of depth-scaled residual branches, and its rivals, in SymPy."""

import pytest

from attndepth.theory.depth_scaling import (
    SCHEMES,
    coherent_exponent,
    confirm_displacement_exponent,
    displacement_exponent,
)


def test_sympy_derives_the_law_and_its_coherent_rival_from_the_sums():
    assert confirm_displacement_exponent()


@pytest.mark.parametrize(("scheme", "exponent"), [("CompleteP", -1.0), ("depth-muP", 0.0),
                                                  ("SP", 1.0)])
def test_each_scheme_has_its_exponent(scheme, exponent):
    assert displacement_exponent(SCHEMES[scheme]) == exponent
    assert coherent_exponent(SCHEMES[scheme]) == exponent + 1


def test_branch_scales_are_the_schemes_and_gpt2s_initialisation():
    from attndepth.theory.depth_scaling import branch_scale

    assert branch_scale("CompleteP", 16) == 1 / 16 and branch_scale("depth-muP", 16) == 0.25
    assert branch_scale("SP", 16) == 1.0 and branch_scale("GPT-2", 8) == 0.25


@pytest.mark.parametrize(("scheme", "depth", "match"), [("muP", 4, "scheme must be one of"),
                                                        ("CompleteP", 0, "depth")])
def test_a_bad_scheme_or_depth_is_refused_in_one_line(scheme, depth, match):
    from attndepth.theory.depth_scaling import branch_scale

    with pytest.raises(ValueError, match=match):
        branch_scale(scheme, depth)
