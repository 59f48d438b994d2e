"""levine.trained-transition: its reading of a loss table (synthetic) and a tiny real run."""

import math

import numpy as np
import pytest

from attndepth.claims.trained_transition import judge_budget, near_optimal
from attndepth.framework.registry import all_claims, get_claim
from attndepth.framework.running import run_claim
from attndepth.simulations.training.jax_model import budget_width

DEPTHS = (1, 2, 3, 4, 6, 8)
CHANCE = math.log(16)


def _table(best: int, seeds: int = 3, noise: float = 0.01) -> np.ndarray:
    """Losses with a clear minimum at depth ``best`` (seeds, depths)."""
    mean = np.array([1.0 + 0.1 * abs(depth - best) for depth in DEPTHS])
    return mean + noise * np.random.default_rng(0).standard_normal((seeds, len(DEPTHS)))


def test_judge_budget_agrees_only_next_to_the_optimum():
    losses = _table(best=3)
    assert judge_budget(DEPTHS, losses, 2.98, CHANCE)["agrees"]
    assert judge_budget(DEPTHS, losses, 3.0, CHANCE)["agrees"]
    far = judge_budget(DEPTHS, losses, 7.5, CHANCE)  # neighbours 6 and 8: not near-optimal
    assert not far["agrees"] and far["informative"] and far["best_depth"] == 3


def test_judge_budget_calls_a_flat_or_chance_table_uninformative():
    flat = np.full((3, len(DEPTHS)), 1.0) + 0.05 * np.random.default_rng(1).standard_normal(
        (3, len(DEPTHS)))
    assert not judge_budget(DEPTHS, flat, 3.0, CHANCE)["informative"]
    at_chance = _table(best=3) + CHANCE - 1.0
    assert not judge_budget(DEPTHS, at_chance, 3.0, CHANCE)["informative"]


def test_near_optimal_counts_both_spreads():
    losses = np.array([[1.0, 1.2, 2.0], [1.2, 1.4, 2.0]])  # means 1.1, 1.3, 2.0; spreads .1,.1,0
    assert near_optimal(losses).tolist() == [True, True, False]


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="finite"):
        near_optimal(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="one column per depth"):
        judge_budget(DEPTHS, np.ones((3, 2)), 3.0, CHANCE)


@pytest.mark.parametrize("preset", ["quick", "full"])
def test_every_preset_shape_spends_its_budget(preset):
    settings = all_claims()["levine.trained-transition"].presets[preset]
    for budget in settings["budgets"]:
        for depth in settings["depths"]:
            width = budget_width(budget, depth, settings["heads"])
            assert abs(12 * depth * width ** 2 / budget - 1) <= 0.1


@pytest.mark.slow
@pytest.mark.jax
def test_trained_transition_runs_end_to_end_and_the_wrong_knee_fails():
    small = dict(budgets=(3_000,), depths=(1, 2, 4), pairs=2, heads=1, steps=150, batch=32,
                 learning_rate=1e-2, seeds=2)
    result = run_claim("levine.trained-transition", **small)
    reading = result.outcome.values["readings"][0]
    assert len(result.outcome.values["rows"]) == 3
    assert reading["best_depth"] in (1, 2, 4)
    assert result.verdict in ("holds", "fails", "inconclusive", "indistinguishable")
    assert {r.name for r in result.rivals} == {"constant knee 2", "corrected knee log₃(2d + 1)",
                                               "D_crit = 16·(d/512)^0.44"}
    # whatever the tiny run says, the same table read against a knee at the deep end
    # (neighbours 4 only, away from a best depth of 1 or 2) may not agree there
    deep = get_claim("levine.trained-transition").theory.replaced({"KNEE": lambda width: 50.0})
    wrong = run_claim("levine.trained-transition", **small,
                      theory=deep).outcome.values["readings"][0]
    assert wrong["predicted"] > 4
    assert wrong["agrees"] == (4 in wrong["near_optimal"])
