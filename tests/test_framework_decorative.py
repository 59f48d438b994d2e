"""Decorative theory entries: a perturbed entry that moves nothing judged is found."""

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp

from attndepth import Check, Estimate, Outcome, Theory, claim
from attndepth.framework import registry
from attndepth.framework.decorative import (
    Unperturbable,
    decorative_entries,
    judged_numbers,
    perturbed,
    perturbed_entry,
)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))

    def slope(width):
        return 1.0 / width

    def shown(width):
        return 2.0 * width

    @claim("mine.toy-decorative", source="s", statement="s",
           presets={"quick": {"width": 4}, "full": {"width": 8}},
           theory=Theory(slope, shown, OFFSET=0.5, LABEL="words"),
           estimate=Estimate("measured", "predicted", (-0.05, 0.05), seeds=(2, 4)))
    def verify(seed, theory, width):
        # slope and OFFSET are judged; shown is only printed; LABEL has no number
        predicted = theory.slope(width) + theory.OFFSET
        return Outcome(note=f"shown {theory.shown(width)} ({theory.LABEL})",
                       values={"measured": 0.75 + 1e-3 * seed, "predicted": predicted})

    return registry.get_claim("mine.toy-decorative")


def test_an_entry_only_printed_is_decorative_and_a_judged_one_is_not(toy):
    found = decorative_entries(toy, {"width": 4})
    assert found == {"shown": "decorative", "LABEL": "unperturbable: str"}


def test_an_entry_judged_through_slack_is_coarse_with_the_first_factor_that_moves_it(
        monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))

    def bound(width):
        return 4.0 * width

    def key(width):
        return (width, 1)

    @claim("mine.toy-coarse", source="s", statement="s",
           presets={"quick": {"width": 4}, "full": {"width": 8}},
           theory=Theory(bound, key, SIGN=2.0),
           checks=(Check("within", "the measurement ≤ the bound"),
                   Check("grouped", "one group"), Check("positive", "the sign")))
    def verify(seed, theory, width):
        # a bound with slack ×2.5, a grouping key (×ε relabels), a sign (only ×0 moves it)
        return Outcome(values={"within": 6.4 <= theory.bound(width),
                               "grouped": len({theory.key(width), theory.key(width)}) == 1
                               and theory.key(width)[0] > 0,
                               "positive": theory.SIGN > 0})

    found = decorative_entries(registry.get_claim("mine.toy-coarse"), {"width": 4})
    assert found == {"bound": "coarse: ÷10", "key": "coarse: ×0", "SIGN": "coarse: ×0"}


def test_an_entry_whose_coarse_perturbation_only_breaks_its_printing_is_decorative(
        monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))

    @claim("mine.toy-printed", source="s", statement="s",
           presets={"quick": {"width": 4}, "full": {"width": 8}},
           theory=Theory(SLOPE=0.5, SCALE=2.0),
           checks=(Check("positive", "the slope is positive"),))
    def verify(seed, theory, width):
        # SCALE is only printed; at ×0 the print divides by zero
        return Outcome(note=f"per unit {1 / theory.SCALE:.2f}",
                       values={"positive": theory.SLOPE > 0})

    found = decorative_entries(registry.get_claim("mine.toy-printed"), {"width": 4})
    assert found == {"SLOPE": "coarse: ×0", "SCALE": "decorative"}


def test_the_judged_numbers_are_the_verdict_and_the_estimates_values(toy):
    outcome = toy.verify(seed=0, theory=toy.theory, width=4)
    numbers = judged_numbers(toy, outcome)
    assert numbers[0] == "holds" and len(numbers) == 3
    wrong = toy.verify(seed=0, theory=perturbed_entry(toy.theory, "OFFSET"), width=4)
    assert judged_numbers(toy, wrong) != numbers


@dataclasses.dataclass(frozen=True)
class Gains:
    gain: float
    name: str = "x"
    flag: bool = True


def test_every_kind_of_value_is_perturbed():
    assert perturbed(2.0, 1.1) == pytest.approx(2.2)
    assert perturbed(True, 1.1) is False
    assert perturbed(3, 1.1) == pytest.approx(3.3)
    assert perturbed(0.0, 1.1) == 0.1 and perturbed(0, 1 / 1.1) == -0.1
    np.testing.assert_allclose(perturbed(np.array([1.0, 2.0]), 1.1), [1.1, 2.2])
    assert perturbed((1.0, "a"), 1.1) == (pytest.approx(1.1), "a")
    assert perturbed({"k": 1.0}, 1.1) == {"k": pytest.approx(1.1)}
    assert perturbed(Gains(2.0), 1.1) == Gains(pytest.approx(2.2))
    assert perturbed(sp.Symbol("x"), 1.1) == sp.Float(1.1) * sp.Symbol("x")
    assert math.isnan(perturbed(math.nan, 1.1)) and perturbed(math.inf, 1.1) == math.inf
    assert perturbed(lambda x: (x, 2.0), 1.1)(3.0) == (pytest.approx(3.3), pytest.approx(2.2))
    assert perturbed(5.0, 0.0) == 0.0 and perturbed(0.0, 0.0) == -0.1
    for value in ("text", (), None):
        with pytest.raises(Unperturbable):
            perturbed(value, 1.1)


@pytest.mark.slow
def test_the_correlation_map_reads_its_critical_beta():
    """``giorlandino.correlation-map`` once printed β_c but judged the module's own: a β_c
    10 % off now moves the layers' β and so the judged participation."""
    found = registry.get_claim("giorlandino.correlation-map")
    assert "critical_beta" not in decorative_entries(found, dict(found.presets["quick"]))


#: The entries that move nothing judged at ±10 % but move it at a coarser perturbation
#: (quick preset, seed 0), with the first factor that does: each is judged through a
#: bound with slack, a sign or a grouping, so that a wrong value within that factor would
#: still hold (docs/theory.md §6 says why each is so). Data, not a skip: a new coarse or
#: decorative entry, or one of these resolved more finely, fails the scan.
KNOWN_COARSE = {
    "levine.partition-symmetry": {"partition_invariant": "coarse: ×0"},
    "levine.depth-efficiency": {"necessary_width": "coarse: ×2"},
    "levine.softmax-epsilon-rank": {"threshold_depth": "coarse: ×2"},
    "yuzhang.contraction-bound": {"multihead_contraction_bound": "coarse: ÷2"},
    "yuzhang.deescalation": {"postln_rate": "coarse: ×0"},
    "naderi.spectral-gap": {"collapsed_stable_rank": "coarse: ÷2"},
}


@pytest.mark.slow
def test_no_default_claim_has_a_decorative_entry_and_the_coarse_ones_are_known():
    found = {}
    for claim_id in registry.default_claims():
        claim_ = registry.get_claim(claim_id)
        entries = {name: why for name, why in decorative_entries(
            claim_, dict(claim_.presets["quick"])).items()
            if not why.startswith("unperturbable")}
        if entries:
            found[claim_id] = entries
    assert found == KNOWN_COARSE
