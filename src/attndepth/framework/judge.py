"""A claim measures; the framework judges: one path from a seed to a verdict.

:func:`judge_claim` is the path of one claim at one parameter set: a claim with an
estimate runs on a sample of seeds (:class:`~attndepth.framework.evidence.SequentialTest`:
the sample grows until the intervals of the claim and of its rivals decide); one
without runs once, each rival that replaces names of its theory once more. Every run
is judged here, from the claim's declarations (:func:`judged`, below); what is known of
the claim's whole family then joins the verdict in the result
(:attr:`~attndepth.framework.results.ClaimResult.family_verdict`).

**One run.** A verify function that returns an
:class:`~attndepth.framework.model.Outcome` without a verdict leaves its judgement here.
Each :class:`~attndepth.framework.declarations.Estimate`
compares this run's error, ``(measured − predicted)/|predicted|`` or ``measured −
predicted`` (averaged over the run's stacks where it reports a list), with its band;
each :class:`~attndepth.framework.declarations.Check` reads its condition. The run

* is ``inconclusive`` where a precondition does not hold (the measurement cannot be
  used: :attr:`~attndepth.framework.declarations.Check.precondition`);
* else ``fails`` where a check is False or an estimate's error lies outside its band;
* else is ``inconclusive`` where a check is None (the run cannot tell) or an estimate's
  error is not a finite number;
* else ``holds`` — ``proved`` where its only checks are exact proof steps
  (:attr:`~attndepth.framework.declarations.Check.proof`).

An estimate this run does not measure (its value None) or puts out of reach
(:attr:`~attndepth.framework.declarations.Estimate.decidable` False) takes no part: the
run's verdict rests on the others. The sample of seeds, the intervals and the rivals
then decide the claim (:mod:`attndepth.framework.evidence`). The prediction, the
measurement and the tolerance in words are drawn from the same declarations, so each
band is stated once, in its estimate.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from attndepth.framework.declarations import Check, Estimate, Rival
from attndepth.framework.evidence import (
    Evidence,
    RivalResult,
    SequentialTest,
    errors_of,
    rival_by_verdict,
)
from attndepth.framework.model import Outcome
from attndepth.framework.sampling import Sample
from attndepth.framework.theories import Theory
from attndepth.framework.verdicts import DECIDED, Verdict

if TYPE_CHECKING:
    from attndepth.framework.model import Claim


def judge_claim(found: Claim, run: Sample, seed: int, params: Mapping[str, Any],
                theory: Theory) -> tuple[Outcome, Evidence | None, tuple[RivalResult, ...]]:
    """Decide one claim at one parameter set (module docstring).

    Parameters
    ----------
    found : Claim
    run : Sample
        The claim's measurement of seeds, each outcome judged (:func:`judged`).
    seed : int
        The base seed.
    params : mapping
        The parameter set (what a rival's prediction reads).
    theory : Theory
        The theory the verify function receives; rivals replace names of it.

    Returns
    -------
    (Outcome, Evidence or None, tuple of RivalResult)
        The outcome carries the verdict (for a consistency check ``consistent`` or
        ``inconsistent``).
    """
    if found.estimate is not None:
        evidence, outcomes = SequentialTest(run, params, seed, found.estimate, found.rivals,
                                            theory).decide()
        first = outcomes[0]
        rivals = evidence.rivals
        outcome = Outcome(first.predicted, evidence.describe(), evidence.verdict,
                          f"seed {evidence.seeds[0]}: " + "; ".join(
                              part for part in (first.measured, first.note) if part),
                          {**first.values, "evidence": evidence.as_dict()})
    else:
        evidence = None
        [outcome] = run((seed,), theory)

        def run_with(rival: Rival) -> Callable[[], str]:
            return lambda: run((seed,), theory.replaced(rival.replace), False)[0].verdict
        rivals = tuple(rival_by_verdict(rival, run_with(rival)) for rival in found.rivals)
        # a consistency check reports its rivals; they cannot make a proof "indistinguishable"
        if outcome.verdict == Verdict.HOLDS and found.kind != "consistency" \
                and not all(r.rejected for r in rivals):
            outcome = dataclasses.replace(outcome, verdict=Verdict.INDISTINGUISHABLE)
    if found.kind == "consistency" and outcome.verdict in DECIDED:
        outcome = dataclasses.replace(outcome, verdict=Verdict.CONSISTENT
                                      if outcome.verdict == Verdict.HOLDS
                                      else Verdict.INCONSISTENT)
    return outcome, evidence, rivals


def judged(found: Claim, outcome: Outcome) -> Outcome:
    """``outcome`` with the framework's verdict and texts where the claim left them to it
    (an outcome that states its own verdict, a user's claim of the earlier form, is
    returned as it is)."""
    if outcome.verdict is not None:
        return outcome
    values = outcome.values
    return dataclasses.replace(
        outcome, verdict=seed_verdict(found.estimates, found.checks, values),
        predicted=outcome.predicted or predicted_text(found.estimates, found.checks, values),
        measured=outcome.measured or measured_text(found.estimates, found.checks, values))


def seed_verdict(estimates: tuple[Estimate, ...], checks: tuple[Check, ...],
                 values: Mapping[str, Any]) -> Verdict:
    """One run's verdict from the declarations (module docstring).

    Parameters
    ----------
    estimates, checks : the claim's declarations.
    values : the run's ``Outcome.values``.

    Returns
    -------
    Verdict
        ``holds``, ``fails`` or ``inconclusive``.
    """
    if any(check.precondition and not check.holds(values[check.key]) for check in checks):
        return Verdict.INCONCLUSIVE
    results = [check.holds(values[check.key]) for check in checks]
    results += [_inside(estimate, values) for estimate in estimates]
    if any(result is False for result in results):
        return Verdict.FAILS
    if any(result is None for result in results):
        return Verdict.INCONCLUSIVE
    if checks and not estimates and all(check.proof for check in checks):
        return Verdict.PROVED
    return Verdict.HOLDS


def _inside(estimate: Estimate, values: Mapping[str, Any]) -> bool | None:
    """Whether this run's error lies in the estimate's band (True where the estimate
    takes no part in this run; None where the error is not a finite number)."""
    measured = values[estimate.measured]
    if measured is None or (estimate.decidable is not None
                            and not values[estimate.decidable]):
        return True
    errors = errors_of(estimate, measured, values[estimate.predicted])
    errors = errors[np.isfinite(errors)]
    if not errors.size:
        return None
    low, high = estimate.band
    return bool(low <= float(errors.mean()) <= high)


def predicted_text(estimates: tuple[Estimate, ...], checks: tuple[Check, ...],
                   values: Mapping[str, Any]) -> str:
    """The prediction in words: each estimate's predicted number, then each check."""
    parts = [f"{estimate.quantity}: {number_text(values[estimate.predicted])}"
             for estimate in estimates]
    parts += [check.describe() for check in checks]
    return "; ".join(parts)


def measured_text(estimates: tuple[Estimate, ...], checks: tuple[Check, ...],
                  values: Mapping[str, Any]) -> str:
    """The measurement in words: each estimate's measured number, then whether each
    check held."""
    parts = [f"{estimate.quantity}: {number_text(values[estimate.measured])}"
             for estimate in estimates]
    parts += [f"{check.label}: " + (number_text(values[check.key]) if check.bounded else
                                     {True: "yes", False: "no", None: "cannot tell"}[
                                         check.holds(values[check.key])])
              for check in checks]
    return "; ".join(parts)


def tolerance_text(estimates: tuple[Estimate, ...], checks: tuple[Check, ...]) -> str:
    """The tolerance in words, from the bands and the checks: what a claim that states
    no tolerance of its own reports."""
    parts = [f"{estimate.confidence:.0%} interval over seeds of {estimate.label} within "
             f"{_band_text(estimate.band)}" for estimate in estimates]
    parts += [check.describe() for check in checks]
    return "; ".join(parts)


def number_text(value: Any) -> str:
    """A number as 4 significant digits; a list as its mean and length; None as "not
    measured"."""
    if value is None:
        return "not measured"
    if isinstance(value, (list, tuple, np.ndarray)):
        numbers = np.asarray(value, dtype=float)
        return f"mean {float(numbers.mean()):.4g} of {numbers.size}"
    if isinstance(value, bool):
        return str(value)
    return f"{float(value):.4g}"


def _band_text(band: tuple[float, float]) -> str:
    low, high = band
    if low == -high:
        return f"±{high:g}"
    return f"[{low:g}, {high:g}]"
