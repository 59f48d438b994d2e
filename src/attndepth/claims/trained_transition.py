"""Experiment B of Levine et al. 2020 as a claim: the depth-to-width transition, trained.

At a few fixed budgets N = 12·L·d² the claim trains one depth grid, each
depth at the width that spends the budget, on associative recall
(:mod:`attndepth.simulations.training.tasks`), and asks where the validation loss is
lowest. The theory (:mod:`attndepth.theory.trained_transition`) puts the
optimum at the transition depth L*(N), the root of L = log₃ d(N, L); the
corrected knee of the separation-rank work and the slope of the paper's
empirical fit are reported beside it. Needs the ``train`` extra; not run by
default.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.framework.declarations import Check, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.simulations.models.stacks import StackConfig
from attndepth.simulations.sweeps.training_pool import TrainingGroup, train_groups_once
from attndepth.simulations.training.jax_model import TrainingSettings, budget_width
from attndepth.simulations.training.tasks import RecallTask
from attndepth.theory.depth_width import delusion_critical_depth
from attndepth.theory.trained_transition import (
    corrected_knee_law,
    fit_slope,
    paper_knee,
    transition_depth,
    transition_slope,
)

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (2, 2)

TESTS = "tests/test_claims_trained_transition.py"
#: The knee law the statement asserts (the wrong theory replaces it).
KNEE = paper_knee
#: Block variant trained: pre-LN trains every depth of the grid (Experiment A), so the
#: loss reflects what a depth and width can express rather than whether they train.
VARIANT = "pre-ln"


def near_optimal(losses: np.ndarray) -> np.ndarray:
    """Which depths cannot be told from the best one.

    Parameters
    ----------
    losses : (seeds, depths) final validation losses.

    Returns
    -------
    (depths,) bool: mean loss within the best depth's mean plus both standard
    deviations over seeds (population, ddof = 0) added.
    """
    losses = np.asarray(losses, dtype=float)
    if losses.ndim != 2 or losses.shape[1] < 1 or not np.isfinite(losses).all():
        raise InvalidParameter(f"losses must be a finite (seeds, depths) array, got shape "
                               f"{losses.shape}")
    mean, spread = losses.mean(axis=0), losses.std(axis=0)
    best = int(np.argmin(mean))
    return mean <= mean[best] + spread[best] + spread


def judge_budget(depths: tuple[int, ...], losses: np.ndarray, predicted: float,
                 chance: float) -> dict:
    """One budget's reading: the optimum, the near-optimal depths and the prediction's fate.

    The prediction agrees when a grid depth next to it (the largest at or
    below, the smallest at or above) is near-optimal. The budget is
    uninformative (no verdict) when every depth is near-optimal or the best
    mean loss is not below ``chance`` by its spread.
    """
    losses = np.asarray(losses, dtype=float)
    depths = tuple(int(depth) for depth in depths)
    if losses.shape[1:] != (len(depths),):
        raise InvalidParameter(f"losses must have one column per depth ({len(depths)}), got shape "
                               f"{losses.shape}")
    near = near_optimal(losses)
    mean, spread = losses.mean(axis=0), losses.std(axis=0)
    best = int(np.argmin(mean))
    below = [d for d in depths if d <= predicted]
    above = [d for d in depths if d >= predicted]
    neighbours = {max(below)} if below else set()
    neighbours |= {min(above)} if above else set()
    chosen = {d for d, ok in zip(depths, near, strict=True) if ok}
    informative = (not near.all()) and mean[best] + spread[best] < chance
    return {"best_depth": depths[best], "best_loss": float(mean[best]),
            "near_optimal": sorted(chosen), "predicted": float(predicted),
            "agrees": bool(neighbours & chosen), "informative": bool(informative),
            "mean": mean.tolist(), "spread": spread.tolist()}


def _slope(budgets: list[float], depths: list[float]) -> float | None:
    """Least-squares slope of depth against ln N (None for a single budget)."""
    if len(budgets) < 2:
        return None
    return float(np.polyfit(np.log(budgets), depths, 1)[0])


@claim(
    "levine.trained-transition",
    source="Levine et al. 2020, arXiv 2006.12467 (§5: depth–width ablations at fixed "
           "budgets; deepening pays below L = log₃ d, widening above); corrected knee "
           "[conjecture, this project's separation-rank work]; task and scale [this project]",
    statement="At a fixed budget N = 12·L·d², the loss-optimal depth of trained networks is "
              "the transition depth L*(N), the root of L = log₃ d(N, L) with "
              "d(N, L) = √(N/(12L)).",
    checks=(Check("agrees", "L*(N) agrees with every budget: a grid depth next to it is "
                  "near-optimal (mean validation loss over seeds within the best mean plus "
                  "both standard deviations); a budget whose loss is flat in depth or not "
                  "below chance: cannot tell"),),
    # quick: 2 pairs, where the networks learn the task at this budget (accuracy ≈ 1 at the
    # best depth); with 4 pairs every depth stays on one plateau (the search: inconclusive)
    presets={"quick": dict(budgets=(10_000, 40_000), depths=(1, 2, 3, 4, 6, 8), pairs=2,
                           heads=2, steps=600, batch=64, learning_rate=3e-3, seeds=3),
             # from 40,000 on an even width spends the budget within 10 % up to depth 48
             "full": dict(budgets=(40_000, 160_000, 640_000),
                          depths=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48), pairs=4, heads=2,
                          steps=1500, batch=64, learning_rate=3e-3, seeds=3)},
    theory=Theory(transition_depth, KNEE=KNEE),
    simulation=(train_groups_once,),
    test=f"{TESTS}::test_judge_budget_agrees_only_next_to_the_optimum",
    # a knee four times the paper's puts L*(N) near the grid's deep end
    wrong_theory={"KNEE": lambda width: 4 * math.log(width, 3)},
    rivals=(Rival("constant knee 2", "the knee decided from certified ranks for one Q "
                  "position at every d ≤ 9 (levine.threshold), taken as a law",
                  replace={"KNEE": lambda width: 2.0}),
            Rival("corrected knee log₃(2d + 1)", "this project's corrected law for one Q "
                  "position (the recall answer is read at one position; theory §1)",
                  replace={"KNEE": corrected_knee_law(1)}),
            Rival("D_crit = 16·(d/512)^0.44", "the Depth Delusion's critical depth (Fahim & "
                  "Karim 2026, arXiv 2601.20994: one paper's fit to trained models' loss, a "
                  "power of the width)", replace={"KNEE": delusion_critical_depth})),
    family=Family(parameters={"pairs": (2, 4)}, beyond={"pairs": (6,)},
                  fixed={"budgets": (10_000, 40_000), "depths": (1, 2, 3, 4, 6, 8),
                         "heads": 2, "steps": 600, "batch": 64, "learning_rate": 3e-3,
                         "seeds": 3}),
    by_default=False,
)
def verify_trained_transition(seed: int, theory: Theory,
                              budgets: tuple[int, ...], depths: tuple[int, ...],
                              pairs: int, heads: int, steps: int, batch: int,
                              learning_rate: float, seeds: int) -> Outcome:
    """Train every (budget, depth) over ``seeds`` seeds; compare the optimum with L*(N)."""
    task = RecallTask.standard(pairs)
    settings = TrainingSettings(steps=steps, batch=batch, learning_rate=learning_rate,
                                evaluate_every=steps, evaluation_size=512)
    shapes = [(budget, depth, budget_width(budget, depth, heads))
              for budget in budgets for depth in depths]
    groups = [TrainingGroup(StackConfig(variant=VARIANT, depth=depth, tokens=task.length,
                                        width=width, heads=heads, ffn=True),
                            task, settings, tuple(seed + k for k in range(seeds)))
              for _, depth, width in shapes]
    runs = train_groups_once(groups)
    chance = math.log(task.values)
    corrected = corrected_knee_law(task.length // 2)  # the rival's, reported beside
    readings: list[dict] = []
    rows: list[dict] = []
    for budget in budgets:
        picked = [k for k, shape in enumerate(shapes) if shape[0] == budget]
        losses = np.array([[run.validation_loss[-1] for run in runs[k]] for k in picked]).T
        reading = judge_budget(depths, losses, theory.transition_depth(budget, theory.KNEE), chance)
        reading.update(budget=budget, widths=[shapes[k][2] for k in picked],
                       corrected=theory.transition_depth(budget, corrected))
        readings.append(reading)
        rows.extend(dict(budget=budget, depth=shapes[k][1], width=shapes[k][2],
                         parameters=12 * shapes[k][1] * shapes[k][2] ** 2,
                         losses=[run.validation_loss[-1] for run in runs[k]],
                         accuracy=[run.validation_accuracy[-1] for run in runs[k]],
                         t_sim=[run.similarity[-1][-1] for run in runs[k]])
                    for k in picked)
    measured_slope = _slope(list(budgets), [r["best_depth"] for r in readings])
    # the slopes dL*/d ln N: reported beside the judged depths
    paper_slope = transition_slope(budgets[-1], theory.KNEE)
    corrected_slope = transition_slope(budgets[-1], corrected)
    empirical_slope = fit_slope(readings[-1]["best_depth"])
    agrees = (all(r["agrees"] for r in readings)
              if all(r["informative"] for r in readings) else None)

    def describe(r):
        return (f"N = {r['budget']:,}: best L = {r['best_depth']} "
                f"(loss {r['best_loss']:.3f}), near-optimal {r['near_optimal']}")

    flat = [r["budget"] for r in readings if not r["informative"]]
    return Outcome(
        predicted="; ".join(f"N = {r['budget']:,}: L* = {r['predicted']:.2f} (corrected "
                            f"knee {r['corrected']:.2f})" for r in readings),
        measured="; ".join(describe(r) for r in readings),
        note=(f"pre-LN with FFN, {heads} heads, associative recall with {pairs} pairs "
              f"({task.length} tokens, chance loss {chance:.3f}); Adam lr {learning_rate:g}, "
              f"{steps} steps of {batch}, {seeds} seeds, float32; depths {list(depths)}; "
              f"slope dL/d ln N: measured "
              + ("—" if measured_slope is None else f"{measured_slope:.2f}")
              + f", paper {paper_slope:.2f}, corrected knee {corrected_slope:.2f}, empirical "
                f"fit {empirical_slope:.2f}"
              + (f"; flat or at chance (no verdict) at N = {flat}" if flat else "")),
        values={"readings": readings, "rows": rows, "measured_slope": measured_slope,
                "paper_slope": paper_slope, "corrected_slope": corrected_slope,
                "fit_slope": empirical_slope, "agrees": agrees},
    )
