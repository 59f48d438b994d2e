"""Decorative theory entries: a perturbed entry that moves nothing judged is found."""

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp

from attndepth import Estimate, Outcome, Theory, claim
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
    for value in ("text", (), None):
        with pytest.raises(Unperturbable):
            perturbed(value, 1.1)


@pytest.mark.slow
def test_the_correlation_map_reads_its_critical_beta():
    """``giorlandino.correlation-map`` once printed β_c but judged the module's own: a β_c
    10 % off now moves the layers' β and so the judged participation."""
    found = registry.get_claim("giorlandino.correlation-map")
    assert "critical_beta" not in decorative_entries(found, dict(found.presets["quick"]))


#: The entries the scan finds decorative today (quick preset, seed 0): each a place where
#: a wrong value would still hold (issue "resolving power", first item). Data, not a skip:
#: a fix removes its line, and a new decorative entry fails the scan.
KNOWN_DECORATIVE = {
    "levine.upper-bound": {"separation_rank_bounds"},
    "levine.heads": {"separation_rank_bounds"},
    "levine.threshold": {"threshold_depth", "corrected_knee", "q_matrix_dimension",
                         "regime_bounds"},
    "levine.partition-symmetry": {"partition_invariant"},
    "levine.bound-tightness": {"conjectured_rank", "in_conjectured_family",
                               "in_tight_family"},
    "levine.one-position-rank": {"single_position_rank", "confirm_single_position_proof"},
    "levine.residual-rank": {"separation_rank_bounds"},
    "levine.depth-efficiency": {"necessary_width", "regime_bounds"},
    "levine.softmax-epsilon-rank": {"threshold_depth", "doubly_exponential_growth"},
    "yuzhang.contraction-bound": {"multihead_contraction_bound"},
    "yuzhang.deescalation": {"postln_rate"},
    "dong.collapse": {"required_gamma"},
    "naderi.spectral-gap": {"collapsed_stable_rank", "confirm_markov_moments",
                            "confirm_outlier_removal_identity"},
    "noci.residual-scaling": {"log_odds_growth"},
    "wu.masks": {"guaranteed_rate"},
}


@pytest.mark.slow
def test_the_decorative_entries_of_the_default_claims_are_the_known_ones():
    found = {}
    for claim_id in registry.default_claims():
        claim_ = registry.get_claim(claim_id)
        entries = {name for name, why in decorative_entries(
            claim_, dict(claim_.presets["quick"])).items() if why == "decorative"}
        if entries:
            found[claim_id] = entries
    assert found == KNOWN_DECORATIVE
