"""Verdicts from evidence: a sample of seeds, an interval, and named rival theories.

A stochastic claim does not decide on one seed. It declares an :class:`Estimate`:
which number of its verify function's ``Outcome.values`` is measured, which is
predicted, and the band the error ``e = (measured − predicted) / |predicted|``
(or ``measured − predicted``) must lie in. :func:`decide` runs the verify function
on a sample of seeds, pools the errors (one per seed, or one per independent stack
when the verify function reports a list), and compares a Student-t confidence
interval of their mean with the band:

* ``holds``: the whole interval lies inside the band;
* ``fails``: the whole interval lies outside it (on one side);
* otherwise more seeds are drawn (the sample doubles, up to the claim's maximum),
  and a sample that still straddles an edge is ``inconclusive``.

**Error rates.** With ``k`` looks at the data (the doublings) each interval is
taken at level ``1 − α/k`` (Bonferroni), so the chance that any interval misses
the true mean error is at most ``α = 1 − confidence``. Hence
P(``holds`` | the true error lies on or beyond an edge of the band) ≤ α and
P(``fails`` | the true error lies inside the band) ≤ α. The interval is exact for
normal errors and asymptotic (central limit) otherwise; the reported ``n`` says how
many errors it rests on.

**Rivals.** Each :class:`Rival` is a plausible alternative theory with its source
(the paper's limit, the naive formula, the neighbouring exponent, an earlier
derivation). A rival either predicts from the same outcome values (``predicted``:
no new measurement) or replaces names of the claim's
:class:`~attndepth.framework.theories.Theory` (``replace``: the sample is run again
with the rival's theory, a new object; nothing is written to any module). A rival is
*rejected* when its own error interval lies wholly outside the band (or, for a
claim without an estimate, when the claim run with the rival says ``fails``), at
the same error rate α. A claim that holds but leaves a rival unrejected cannot
tell itself from that rival: its verdict is ``indistinguishable``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import t as student_t

from attndepth.errors import InvalidParameter
from attndepth.framework.declarations import SEED_STRIDE, Estimate, Rival
from attndepth.framework.resolving import ResolvingPower, absolute_scale, resolving_power
from attndepth.framework.sampling import Sample
from attndepth.framework.theories import Theory
from attndepth.framework.verdicts import DECIDED, Verdict


@dataclass(frozen=True)
class Interval:
    """A confidence interval of the mean error of a sample."""

    mean: float
    low: float
    high: float
    n: int

    def position(self, band: tuple[float, float]) -> str:
        """``inside`` the band, ``outside`` it, or ``straddles`` an edge."""
        low, high = band
        if self.low >= low and self.high <= high:
            return "inside"
        if self.high < low or self.low > high:
            return "outside"
        return "straddles"

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}


@dataclass(frozen=True)
class RivalResult:
    """Whether the measurement rejects one rival."""

    name: str
    source: str
    predicted: str
    rejected: bool
    interval: Interval | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "predicted": self.predicted,
                "rejected": self.rejected,
                "interval": self.interval.as_dict() if self.interval else None}


@dataclass(frozen=True)
class Evidence:
    """What a sample of seeds says about one claim at one parameter set."""

    verdict: Verdict
    interval: Interval | None
    seeds: tuple[int, ...]
    passed: int
    decided: int
    rivals: tuple[RivalResult, ...]
    band: tuple[float, float] | None
    error_rate: float | None
    label: str = "error"
    #: Every estimate of the claim: (label, interval or None, band); the first is the
    #: one of ``interval``, ``band`` and ``label``.
    estimates: tuple[tuple[str, Interval | None, tuple[float, float]], ...] = ()
    #: The positions in ``estimates`` of those this member cannot decide
    #: (:attr:`Estimate.decidable`).
    out_of_reach: tuple[int, ...] = ()
    #: Each decidable estimate's resolving power on this sample
    #: (:mod:`attndepth.framework.resolving`).
    resolving: tuple[ResolvingPower, ...] = ()

    @property
    def pass_fraction(self) -> float:
        """Fraction of seeds whose own verdict was ``holds`` (of those that decided)."""
        return self.passed / self.decided if self.decided else math.nan

    def as_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "seeds": len(self.seeds),
                "seed_values": list(self.seeds),
                "interval": self.interval.as_dict() if self.interval else None,
                "band": list(self.band) if self.band else None,
                "error_rate": self.error_rate, "pass_fraction": self.pass_fraction,
                "label": self.label,
                "estimates": [{"label": label, "band": list(band),
                               "interval": i.as_dict() if i else None,
                               "decidable": k not in self.out_of_reach}
                              for k, (label, i, band) in enumerate(self.estimates)],
                "resolving_power": [power.as_dict() for power in self.resolving]}

    def describe(self) -> str:
        """One line: each interval with its band, the seeds and the pass fraction."""
        parts = []
        for k, (label, i, (low, high)) in enumerate(self.estimates):
            if i is None:
                parts.append(f"{label}: no interval (no decided seed measures it)")
                continue
            parts.append(f"{label} {_number(i.mean)} in [{_number(i.low)}, {_number(i.high)}] "
                         f"(n = {i.n}; band [{_number(low)}, {_number(high)}]"
                         + ("; out of reach at this member: decides nothing)"
                            if k in self.out_of_reach else ")"))
        return ("; ".join(parts) + f" — {1 - (self.error_rate or 0):.0%} intervals over "
                f"{len(self.seeds)} seeds; {self.passed}/{self.decided} seeds pass alone")


def _number(value: float) -> str:
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:+.3g}"


def seed_sample(base: int, count: int) -> list[int]:
    """The seeds of a sample of ``count`` at base seed ``base`` (see :data:`SEED_STRIDE`)."""
    return [base * SEED_STRIDE + k for k in range(count)]


def interval(errors: np.ndarray, level: float) -> Interval:
    """Student-t interval of the mean of ``errors`` at confidence ``level``.

    Parameters
    ----------
    errors : (n,) float array, n ≥ 2, finite.
    level : float in (0, 1).
    """
    n = int(errors.size)
    if n < 2:
        raise InvalidParameter(f"an interval needs at least 2 errors, got {n}")
    mean = float(errors.mean())
    half = float(student_t.ppf(0.5 + level / 2, n - 1) * errors.std(ddof=1) / math.sqrt(n))
    return Interval(mean, mean - half, mean + half, n)


def _as_array(value: Any, length: int | None = None) -> np.ndarray:
    array = np.atleast_1d(np.asarray(value, dtype=float))
    if length is not None and array.size == 1 and length > 1:
        array = np.full(length, float(array[0]))
    return array


def errors_of(estimate: Estimate, measured: Any, predicted: Any) -> np.ndarray:
    """Per-sample errors of ``measured`` against ``predicted`` (see :class:`Estimate`)."""
    m = _as_array(measured)
    p = _as_array(predicted, m.size)
    if p.size != m.size:
        raise InvalidParameter(f"predicted has {p.size} values for {m.size} measured ones")
    if not estimate.relative:
        return m - p
    if np.any(p == 0):
        raise InvalidParameter(f"a relative error against a predicted 0 is undefined "
                               f"({estimate.label!r}): declare the estimate relative=False")
    return (m - p) / np.abs(p)


def decide(run: Sample, params: Mapping[str, Any], base_seed: int,
           estimates: Estimate | tuple[Estimate, ...], rivals: tuple[Rival, ...] = (),
           theory: Theory | None = None) -> tuple[Evidence, list[Any]]:
    """Run a claim on a growing sample of seeds until the intervals decide.

    With several estimates the claim holds when every interval lies inside its
    band and fails when any lies outside; the level of each interval is
    ``1 − α/(k·m)`` for ``k`` looks and ``m`` estimates, so α still bounds the
    chance that any interval misses. The sample size is that of the first
    estimate; it doubles while an interval of the claim or of a rival straddles an
    edge of its band, and stops as soon as the claim fails (the union bound over
    the looks holds whatever the stopping rule). Each doubling measures only the
    new seeds, in one call of ``run``; a rival that replaces names of the theory
    runs the sample again with its own theory. An estimate this member puts out of
    reach (:attr:`Estimate.decidable` False at any decided seed) is reported but
    neither holds nor fails, grows no sample and rejects no rival: the claim is then
    at best ``inconclusive``.

    Parameters
    ----------
    run : Sample
        ``run(seeds, theory) -> [Outcome, ...]`` (:func:`sampler`).
    params : mapping
        The parameter set (what ``Rival.predicted`` receives).
    base_seed : int
        Base of the sample (:func:`seed_sample`).
    estimates : Estimate or tuple of Estimate
    rivals : tuple of Rival
    theory : Theory, optional
        The claim's theory (default: the empty one); ``replace`` rivals replace its
        names.

    Returns
    -------
    (Evidence, list of Outcome)
        The evidence and the outcomes of the seeds (in seed order).
    """
    return SequentialTest(run, params, base_seed, estimates, rivals, theory).decide()


class SequentialTest:
    """One claim's sample of seeds at one parameter set, grown look by look until its
    intervals (and its rivals') decide (:func:`decide` says how).

    Each look measures only the new seeds (:meth:`look`); :meth:`settled` says whether
    the sample may stop; :meth:`evidence` reads the verdict from the last look.
    """

    def __init__(self, run: Sample, params: Mapping[str, Any], base_seed: int,
                 estimates: Estimate | tuple[Estimate, ...], rivals: tuple[Rival, ...] = (),
                 theory: Theory | None = None) -> None:
        self.run, self.params, self.base_seed, self.rivals = run, params, base_seed, rivals
        self.theory = Theory() if theory is None else theory
        self.estimates = (estimates,) if isinstance(estimates, Estimate) else tuple(estimates)
        self.primary = self.estimates[0]
        self.by_key = {e.measured: e for e in self.estimates}
        self.count, self.last = self.primary.seeds
        self.level = 1 - (1 - self.primary.confidence) / (self.primary.looks
                                                           * len(self.estimates))
        self.outcomes: list[Any] = []
        self.usable: list[Any] = []
        self.reruns: list[list[Any]] = [[] for _ in rivals]  # each replacing rival's own
        self.intervals: list[Interval | None] = []
        self.compared: list[tuple[Interval | None, str]] = []

    def decide(self) -> tuple[Evidence, list[Any]]:
        """Look until settled, doubling the sample; the evidence and the outcomes."""
        while True:
            self.look()
            if self.settled():
                return self.evidence(), self.outcomes
            self.count = min(2 * self.count, self.last)

    def look(self) -> None:
        """Measure the seeds the sample gained; the intervals of the claim and its rivals."""
        new = tuple(seed_sample(self.base_seed, self.count)[len(self.outcomes):])
        # the report shows the first seed's outcome: only the first call has it
        self.outcomes += self.run(new, self.theory, shown=not self.outcomes)
        self.usable = [o for o in self.outcomes if o.verdict in DECIDED]
        self.intervals = [_pooled(e, self.usable, _value_of(e.predicted), self.level)
                          for e in self.estimates]
        self.compared = [_rival_sample(self.against(rival), rival, self.usable, self.params,
                                       self.level, self.run, self.base_seed, self.count,
                                       self.theory, rerun)
                         for rival, rerun in zip(self.rivals, self.reruns, strict=True)]

    def against(self, rival: Rival) -> Estimate:
        """The estimate a rival competes on."""
        return self.by_key.get(rival.against or self.primary.measured, self.primary)

    def reachable(self, estimate: Estimate) -> bool:
        """Whether the sample can decide ``estimate`` (:attr:`Estimate.decidable`)."""
        return _reachable(estimate, self.usable)

    def claim_positions(self) -> list[str]:
        """Where each reachable interval of the claim lies against its band."""
        return [i.position(e.band) for i, e in zip(self.intervals, self.estimates, strict=True)
                if i is not None and self.reachable(e)]

    def settled(self) -> bool:
        """Whether the sample stops: at its largest, as soon as the claim fails, or when no
        interval of the claim or of a rival straddles an edge (an estimate out of reach
        neither stops nor grows it)."""
        positions = self.claim_positions()
        if self.count >= self.last or "outside" in positions:
            return True
        pending = any(i is None and _measures(e, self.usable) and self.reachable(e)
                      for i, e in zip(self.intervals, self.estimates, strict=True))
        positions += [i.position(rival_band(r, self.by_key, self.primary))
                      for r, (i, _) in zip(self.rivals, self.compared, strict=True)
                      if i is not None and self.reachable(self.against(r))]
        return not pending and "straddles" not in positions

    def rival_results(self) -> tuple[RivalResult, ...]:
        """Each rival: rejected when its reachable interval lies outside its band."""
        return tuple(
            RivalResult(rival.name, rival.source, prediction,
                        bool(i is not None and self.reachable(self.against(rival))
                             and i.position(rival_band(rival, self.by_key, self.primary))
                             == "outside"), i)
            for rival, (i, prediction) in zip(self.rivals, self.compared, strict=True))

    def verdict(self, rivals: tuple[RivalResult, ...]) -> Verdict:
        """``error`` if a seed raised; ``inconclusive`` if fewer than half the seeds
        decided; ``fails`` if an interval lies outside its band, ``inconclusive`` if one
        straddles (or is out of reach); ``holds`` if every rival is rejected, else
        ``indistinguishable``."""
        positions = [i.position(e.band) if i is not None and self.reachable(e) else "straddles"
                     for i, e in zip(self.intervals, self.estimates, strict=True)
                     if i is not None or _measures(e, self.usable)]
        if any(o.verdict == Verdict.ERROR for o in self.outcomes):
            return Verdict.ERROR
        if len(self.usable) * 2 < len(self.outcomes):
            return Verdict.INCONCLUSIVE
        if "outside" in positions:
            return Verdict.FAILS
        if "straddles" in positions:
            return Verdict.INCONCLUSIVE
        return Verdict.HOLDS if all(r.rejected for r in rivals) else Verdict.INDISTINGUISHABLE

    def evidence(self) -> Evidence:
        """What the sample says: the verdict, the intervals, the rivals, the seeds."""
        rivals = self.rival_results()
        primary = self.primary
        return Evidence(
            self.verdict(rivals), self.intervals[0],
            tuple(seed_sample(self.base_seed, len(self.outcomes))),
            sum(o.verdict == Verdict.HOLDS for o in self.usable), len(self.usable), rivals,
            primary.band, 1 - primary.confidence, primary.label,
            tuple((e.label, i, e.band)
                  for e, i in zip(self.estimates, self.intervals, strict=True)),
            tuple(k for k, e in enumerate(self.estimates) if not self.reachable(e)),
            self.resolving_power())

    def resolving_power(self) -> tuple[ResolvingPower, ...]:
        """Each reachable estimate's resolving power on the sample as it stands: its
        predicted numbers perturbed alone, judged on the same seeds
        (:mod:`attndepth.framework.resolving`)."""
        found = []
        for estimate, found_interval in zip(self.estimates, self.intervals, strict=True):
            if found_interval is None or not self.reachable(estimate):
                continue
            read = _value_of(estimate.predicted)
            usable = [o for o in self.usable if o.values[estimate.measured] is not None]

            def interval_at(perturb: Callable[[Any], Any], estimate: Estimate = estimate,
                            read: Callable[[Any], Any] = read,
                            usable: list[Any] = usable) -> Interval | None:
                return _pooled(estimate, usable, lambda outcome: perturb(_as_array(read(outcome))),
                               self.level)

            typical = float(np.mean(np.abs(np.concatenate(
                [_as_array(read(o)) for o in usable])))) if usable else 1.0
            power = resolving_power(estimate.label, estimate.relative, estimate.band,
                                    interval_at, absolute_scale(estimate.band, typical))
            if power is not None:
                found.append(power)
        return tuple(found)


def rival_band(rival: Rival, by_key: Mapping[str, Estimate],
               primary: Estimate) -> tuple[float, float]:
    """The band a rival's error must leave to be rejected: its own, else its estimate's."""
    if rival.band is not None:
        return rival.band
    return by_key.get(rival.against or primary.measured, primary).band


def _value_of(name: str) -> Callable[[Any], Any]:
    """The function reading value ``name`` of an outcome."""
    def read(outcome: Any) -> Any:
        return outcome.values[name]
    return read


def _reachable(estimate: Estimate, outcomes: list[Any]) -> bool:
    """Whether the outcomes can decide ``estimate``: no seed's ``values[decidable]`` is
    False (:attr:`Estimate.decidable`)."""
    key = estimate.decidable
    return key is None or all(bool(o.values[key]) for o in outcomes)


def _measures(estimate: Estimate, outcomes: list[Any]) -> bool:
    """Whether the outcomes measure ``estimate`` (a value ``None``: not this member's);
    True with no outcome yet."""
    return not outcomes or any(o.values[estimate.measured] is not None for o in outcomes)


def _pooled(estimate: Estimate, outcomes: list[Any], prediction: Callable[[Any], Any],
            level: float) -> Interval | None:
    outcomes = [o for o in outcomes if o.values[estimate.measured] is not None]
    if not outcomes:
        return None
    per_seed = [errors_of(estimate, o.values[estimate.measured], prediction(o))
                for o in outcomes]
    per_seed = [e[np.isfinite(e)] for e in per_seed]
    if estimate.pool == "seeds":
        errors = np.array([float(e.mean()) for e in per_seed if e.size])
    else:
        errors = np.concatenate(per_seed)
    return interval(errors, level) if errors.size >= 2 else None


def _mean_prediction(outcomes: list[Any], prediction: Callable[[Any], Any]) -> str:
    if not outcomes:
        return "(no seed decided)"
    values = np.concatenate([_as_array(prediction(o)) for o in outcomes])
    return f"{float(np.mean(values)):.6g}" + (" (mean)" if np.ptp(values) > 0 else "")


def _rival_sample(estimate: Estimate, rival: Rival, usable: list[Any],
                  params: Mapping[str, Any], level: float, run: Sample,
                  base_seed: int, count: int, theory: Theory,
                  rerun: list[Any]) -> tuple[Interval | None, str]:
    """The rival's error interval on the same seeds, and its prediction as text.

    A rival that replaces names runs only the seeds it has not run yet (``rerun``
    keeps its outcomes from look to look)."""
    rival_prediction = rival.predicted
    if rival_prediction is not None:
        def prediction(o: Any) -> Any:
            return rival_prediction(o.values, params)
        return (_pooled(estimate, usable, prediction, level),
                _mean_prediction(usable, prediction))
    rerun += run(tuple(seed_sample(base_seed, count)[len(rerun):]),
                 theory.replaced(rival.replace), shown=False)
    decided = [o for o in rerun if o.verdict in DECIDED]

    def claimed(o: Any) -> Any:
        return o.values[estimate.predicted]
    return _pooled(estimate, decided, claimed, level), _mean_prediction(decided, claimed)


def rival_by_verdict(rival: Rival, run: Callable[[], str]) -> RivalResult:
    """A rival of a claim without an estimate: rejected iff the claim run with it fails.

    Parameters
    ----------
    rival : Rival
        With ``replace``.
    run : callable
        ``run() -> verdict`` of the claim with the rival in place.
    """
    verdict = run()
    return RivalResult(rival.name, rival.source,
                       "(the claim run with " + ", ".join(rival.replace) + " replaced)",
                       verdict == Verdict.FAILS)
