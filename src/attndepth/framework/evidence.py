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

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

import numpy as np
from scipy.stats import t as student_t

from attndepth.errors import InvalidParameter, InvalidType, shown
from attndepth.framework.theories import Theory
from attndepth.framework.verdicts import DECIDED, Verdict

#: Seeds of a sample at base seed S are S·SEED_STRIDE + k, k = 0, 1, ...: samples of
#: different base seeds never share a seed, and base seed 0 starts at seed 0.
SEED_STRIDE = 1024
#: The largest base seed: every seed of its samples, S·SEED_STRIDE + k, fits a signed
#: 64-bit integer (the sweep store's, NumPy's).
MAX_BASE_SEED = (2**63 - 1) // SEED_STRIDE - 1
#: Confidence of every interval (α = 1 − this bounds both error rates).
DEFAULT_CONFIDENCE = 0.99


@dataclass(frozen=True)
class Estimate:
    """The number a stochastic claim compares, and the band its error must lie in.

    Attributes
    ----------
    measured, predicted : str
        Keys of ``Outcome.values``: a number, or a list of numbers (one per
        independent stack) of equal lengths; ``predicted`` may be a number
        shared by the list. A measured value ``None`` says that this member
        does not measure the quantity (a model whose block does not have the part
        it is about): the estimate then has no interval and does not decide.
    band : (float, float)
        Allowed range of the error, e.g. ``(-0.015, 0.015)``; an edge may be
        ``±inf`` (one-sided claims).
    relative : bool
        Error ``(m − p)/|p|`` (True) or ``m − p`` (False).
    seeds : (int, int)
        Smallest and largest number of seeds; the sample doubles from the
        first until the verdict is decided or the second is reached.
    confidence : float
        1 − α: see the module docstring for what α bounds.
    label : str
        What the error is, for the report (e.g. "relative error of the slope").
    pool : {"seeds", "stacks"}
        The unit of the interval. ``seeds``: each seed's mean error is one
        observation — always valid, since seeds are independent. ``stacks``: every
        listed value is one — valid only when the values of one seed are
        independent of each other (no window, fit or prediction shared by the
        seed's stacks), and then much tighter.
    decidable : str, optional
        Key of a bool of ``Outcome.values``: False where the member's parameters put
        the quantity beyond any sample's reach (a limit approached like 1/√(ln T) at
        a critical point). Its interval is still reported, but it neither holds nor
        fails there: the claim is then at best ``inconclusive`` (another estimate
        may still fail it), and the sample does not grow for it. A seed's own
        verdict should then rest on its other checks: making it ``inconclusive``
        only where those pass would drop exactly the seeds that pass them from
        every interval.
    quantity : str, optional
        The measured quantity in words, for the prediction and measurement the report
        prints (default: the ``measured`` key).
    """

    measured: str
    predicted: str
    band: tuple[float, float]
    relative: bool = True
    seeds: tuple[int, int] = (4, 32)
    confidence: float = DEFAULT_CONFIDENCE
    label: str = "error"
    pool: str = "seeds"
    decidable: str | None = None
    quantity: str = ""

    def __post_init__(self) -> None:
        if not self.quantity:
            object.__setattr__(self, "quantity", self.measured)
        for name in ("measured", "predicted"):
            key = getattr(self, name)
            if not isinstance(key, str) or not key:
                raise InvalidType(f"estimate {name} must be a key of Outcome.values (a "
                                  f"non-empty string), got {shown(key, 40)}")
        band = self.band
        if not isinstance(band, tuple) or len(band) != 2 or not all(
                isinstance(edge, (int, float, np.integer, np.floating))
                and not isinstance(edge, (bool, np.bool_)) and not math.isnan(edge)
                for edge in band) or not band[0] < band[1]:
            raise InvalidParameter(f"estimate band must be (low, high), two numbers with "
                                   f"low < high (an edge may be infinite), got "
                                   f"{shown(band, 60)}")
        if not isinstance(self.seeds, tuple) or len(self.seeds) != 2:
            raise InvalidParameter(f"estimate seeds must be (first, last), got "
                                   f"{shown(self.seeds, 60)}")
        first, last = self.seeds
        if not (isinstance(first, int) and isinstance(last, int) and 2 <= first <= last
                <= SEED_STRIDE):
            raise InvalidParameter(f"estimate seeds must be (first, last) with 2 <= first <= last "
                                   f"<= {SEED_STRIDE}, got {self.seeds}")
        if not 0.5 < self.confidence < 1:
            raise InvalidParameter(f"confidence must lie in (0.5, 1), got {self.confidence}")
        if self.pool not in ("seeds", "stacks"):
            raise InvalidParameter(f"pool must be 'seeds' or 'stacks', got {self.pool!r}")
        if self.decidable is not None and not (isinstance(self.decidable, str)
                                               and self.decidable):
            raise InvalidParameter(f"decidable must be a key of Outcome.values (a "
                                   f"non-empty string) or None, got {self.decidable!r}")

    @property
    def looks(self) -> int:
        """How many times the sample is examined (first, doubled, ..., last)."""
        first, last = self.seeds
        return 1 + max(0, math.ceil(math.log2(last / first)))


@dataclass(frozen=True)
class Rival:
    """A plausible alternative theory that the measurement must tell apart.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"ln 2"``.
    source : str
        Where the rival comes from (paper and place, "naive formula", ...).
    predicted : callable, optional
        ``predicted(values, params) -> number or list``: the rival's prediction
        from one seed's ``Outcome.values`` and the run's parameters (claims
        with an :class:`Estimate`).
    replace : mapping, optional
        Names of the claim's theory and the rival's values for them: the claim is
        run again with ``theory.replaced(replace)``.
    against : str, optional
        The ``measured`` key of the estimate the rival competes on (claims with
        several estimates); default: the first estimate.
    band : (float, float), optional
        The band the rival's error must leave to be rejected; default: the estimate's.
        A claim with a one-sided band (a rate > 0, an ordering) gives its rivals a
        two-sided one: the rival "the rate is 0" is rejected when the rate's interval
        lies outside ``(−resolution, resolution)``, not when it leaves ``(0, ∞)``.
    """

    name: str
    source: str
    predicted: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] | None = None
    replace: Mapping[str, Any] = field(default_factory=dict)
    against: str | None = None
    band: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.predicted is None and not self.replace:
            raise InvalidParameter(f"rival {self.name!r} needs predicted or replace")
        if self.predicted is not None and self.replace:
            raise InvalidParameter(f"rival {self.name!r}: give predicted or replace, not both")
        if self.band is not None and not (len(self.band) == 2
                                          and self.band[0] < self.band[1]):
            raise InvalidParameter(f"rival {self.name!r}: band must be (low, high) with "
                                   f"low < high, got {self.band}")
        object.__setattr__(self, "replace", MappingProxyType(dict(self.replace)))


@dataclass(frozen=True)
class Check:
    """A condition a claim's measurement must meet that is not an estimate with a band:
    an exact integer equality, a SymPy identity, a count of violations that must be 0.

    The verify function only measures: it returns the condition's value under ``key``
    in ``Outcome.values`` — True where it holds, False where it fails, None where this
    run cannot tell (no linear phase to fit, a window too short) — or, for a check with
    a bound, the number the bound limits. The framework judges
    (:func:`attndepth.framework.judge.seed_verdict`): a run fails where any check is
    False or its number beyond the bound, and is inconclusive where one is None.

    Attributes
    ----------
    key : str
        A key of ``Outcome.values``: True, False or None; a number (or None) where a
        bound is given.
    label : str
        What is checked, in words (the tolerance and the report read it), e.g.
        ``"SymPy: the law from the sums"``, ``"max relative difference"``.
    at_most, at_least : float, optional
        The bound on the number: the check holds where ``value <= at_most`` (and
        ``value >= at_least``).
    proof : bool
        The check is an exact proof step (SymPy, exact integers): a run whose checks
        are all proofs and all hold is ``proved``, not merely ``holds``.
    precondition : bool
        The check says whether the run's measurement can be used at all (the method's
        oracle agrees, every grid converged): where it does not hold, the run is
        ``inconclusive``, whatever its other checks and estimates say.
    """

    key: str
    label: str
    at_most: float | None = None
    at_least: float | None = None
    proof: bool = False
    precondition: bool = False

    def __post_init__(self) -> None:
        for name in ("key", "label"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise InvalidType(f"check {name} must be a non-empty string, got "
                                  f"{shown(value, 40)}")
        for name in ("at_most", "at_least"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, int | float)
                                      or math.isnan(value)):
                raise InvalidType(f"check {self.key!r}: {name} must be a number, got "
                                  f"{shown(value, 40)}")

    @property
    def bounded(self) -> bool:
        """Whether the check bounds a number (else it reads a bool)."""
        return self.at_most is not None or self.at_least is not None

    def holds(self, value: Any) -> bool | None:
        """The check on one run's value: True, False, or None (the run cannot tell)."""
        if value is None:
            return None
        if not self.bounded:
            return bool(value)
        number = float(value)
        if math.isnan(number):
            return None
        return ((self.at_most is None or number <= self.at_most)
                and (self.at_least is None or number >= self.at_least))

    def describe(self) -> str:
        """The check in words, with its bound."""
        if self.at_most is not None and self.at_least is not None:
            return f"{self.at_least:g} ≤ {self.label} ≤ {self.at_most:g}"
        if self.at_most is not None:
            return f"{self.label} ≤ {self.at_most:g}"
        if self.at_least is not None:
            return f"{self.label} ≥ {self.at_least:g}"
        return self.label


#: A rival's prediction from one seed's ``Outcome.values`` and the run's parameters.
Prediction = Callable[[Mapping[str, Any], Mapping[str, Any]], Any]


def predict_constant(value: float) -> Prediction:
    """A rival's prediction that does not depend on the measurement (``Rival.predicted``).

    Parameters
    ----------
    value : the rival's number.

    Returns
    -------
    callable ``(values, params) -> value``
    """
    def predicted(values: Mapping[str, Any], params: Mapping[str, Any]) -> float:
        return value
    return predicted


def predict_value(key: str) -> Prediction:
    """A rival's prediction that the verify function computed: ``Outcome.values[key]``.

    Parameters
    ----------
    key : a key of the claim's ``Outcome.values``.

    Returns
    -------
    callable ``(values, params) -> float(values[key])``
    """
    def predicted(values: Mapping[str, Any], params: Mapping[str, Any]) -> float:
        return float(values[key])
    return predicted


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
                              for k, (label, i, band) in enumerate(self.estimates)]}

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


class Sample(Protocol):
    """A claim's measurement of seeds: ``run(seeds, theory, shown=True) -> [Outcome, ...]``,
    one outcome per seed, in the order of ``seeds``; with ``shown`` the first seed's
    outcome is the one a report shows (:func:`verify_form`), without it none is."""

    def __call__(self, seeds: tuple[int, ...], theory: Theory,
                 shown: bool = True) -> list[Any]: ...


#: The arguments the framework itself passes to a verify function: never a parameter
#: of a preset or a family.
FRAMEWORK_ARGUMENTS = frozenset({"seed", "seed_sample", "theory", "shown"})


class VerifyForm(NamedTuple):
    """How a verify function takes its seeds, its theory and ``shown``."""

    batched: bool
    takes_theory: bool
    takes_shown: bool = False


def verify_form(verify: Callable[..., Any]) -> VerifyForm:
    """How a verify function takes its seeds, its theory and ``shown``.

    Parameters
    ----------
    verify : callable
        ``verify(seed, [theory,] [shown,] **params) -> Outcome`` (one seed a call), or
        ``verify(seed_sample, [theory,] [shown,] **params) -> [Outcome, ...]`` (a
        whole sample a call, as a tuple of seeds: one outcome per seed, in order).
        ``shown`` (a bool) is True when the outcome of the call's (first) seed is the
        one the report shows — its note, measured text and values — and False for
        every other seed of a sample and for the reruns of rivals, of which only the
        verdict and the values that estimates and rivals read are used: a verify
        function may skip there what only its note reports.

    Returns
    -------
    VerifyForm
        (batched, takes_theory, takes_shown).

    Raises
    ------
    InvalidType
        ``verify`` takes neither ``seed`` nor ``seed_sample`` (nor ``**kwargs``), or
        both.
    """
    try:
        parameters = inspect.signature(verify).parameters
    except (TypeError, ValueError):
        raise InvalidType(f"verify function {verify!r} has no signature to read") from None
    if "seed" in parameters and "seed_sample" in parameters:
        raise InvalidType("a verify function takes seed (one a call) or seed_sample (a "
                          "sample a call), not both")
    any_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    if "seed" not in parameters and "seed_sample" not in parameters and not any_keyword:
        raise InvalidType("a verify function must take seed (one seed a call) or "
                          "seed_sample (a sample of seeds a call)")
    return VerifyForm("seed_sample" in parameters, "theory" in parameters,
                      "shown" in parameters)


def sampler(verify: Callable[..., Any], params: Mapping[str, Any],
            form: VerifyForm | None = None) -> Sample:
    """The :data:`Sample` of a verify function at one parameter set.

    Parameters
    ----------
    verify : callable
        Either form of :func:`verify_form`; it receives ``theory`` only if it
        takes it.
    params : mapping
        Keyword arguments of every call.
    form : VerifyForm, optional
        The form of ``verify`` when its signature does not show it (a wrapper);
        default: :func:`verify_form` of ``verify``.

    Returns
    -------
    Sample
        ``run(seeds, theory, shown=True)``: a batched verify function is called once
        for the seeds, a per-seed one once for each; with ``shown`` the first seed's
        outcome is the one shown (a verify function that takes ``shown`` learns it).
    """
    batched, takes_theory, takes_shown = verify_form(verify) if form is None else form

    def run(seeds: tuple[int, ...], theory: Theory, shown: bool = True) -> list[Any]:
        kwargs = {**params, **({"theory": theory} if takes_theory else {})}
        if not batched:
            return [verify(seed=seed, **kwargs,
                           **({"shown": shown and k == 0} if takes_shown else {}))
                    for k, seed in enumerate(seeds)]
        outcomes = verify(seed_sample=tuple(seeds), **kwargs,
                          **({"shown": shown} if takes_shown else {}))
        if isinstance(outcomes, (str, bytes)) or not hasattr(outcomes, "__len__") \
                or len(outcomes) != len(seeds):
            raise InvalidType(f"a verify function that takes seed_sample must return one outcome "
                              f"per seed ({len(seeds)}), got {type(outcomes).__name__}")
        return list(outcomes)
    return run


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
    theory = Theory() if theory is None else theory
    estimates = (estimates,) if isinstance(estimates, Estimate) else tuple(estimates)
    primary = estimates[0]
    by_key = {e.measured: e for e in estimates}
    first, last = primary.seeds
    level = 1 - (1 - primary.confidence) / (primary.looks * len(estimates))
    outcomes: list[Any] = []
    reruns: list[list[Any]] = [[] for _ in rivals]  # each replacing rival's own outcomes
    count = first
    while True:
        # the report shows the first seed's outcome: only the first call has it
        outcomes += run(tuple(seed_sample(base_seed, count)[len(outcomes):]), theory,
                        shown=not outcomes)
        usable = [o for o in outcomes if o.verdict in DECIDED]
        intervals = [_pooled(e, usable, _value_of(e.predicted), level) for e in estimates]
        measures = [_measures(e, usable) for e in estimates]
        reachable = {e.measured: _reachable(e, usable) for e in estimates}
        compared = [_rival_sample(by_key.get(rival.against or primary.measured, primary),
                                  rival, usable, params, level, run, base_seed, count,
                                  theory, rerun) for rival, rerun in zip(rivals, reruns,
                                                                          strict=True)]
        # an estimate out of reach neither stops nor grows the sample
        positions = [i.position(e.band) for i, e in zip(intervals, estimates, strict=True)
                     if i is not None and reachable[e.measured]]
        pending = any(i is None and m and reachable[e.measured]
                      for i, m, e in zip(intervals, measures, estimates, strict=True))
        failed = "outside" in positions  # the claim fails, whatever its rivals say
        positions += [i.position(rival_band(r, by_key, primary))
                      for r, (i, _) in zip(rivals, compared, strict=True)
                      if i is not None and reachable[r.against or primary.measured]]
        if count >= last or failed or (not pending and "straddles" not in positions):
            break
        count = min(2 * count, last)
    results = tuple(
        RivalResult(rival.name, rival.source, prediction,
                    bool(i is not None and reachable[rival.against or primary.measured]
                         and i.position(rival_band(rival, by_key, primary)) == "outside"), i)
        for rival, (i, prediction) in zip(rivals, compared, strict=True))
    decided = len(usable)
    passed = sum(o.verdict == Verdict.HOLDS for o in usable)
    claim_positions = [i.position(e.band) if i is not None and reachable[e.measured]
                       else "straddles"
                       for i, e, m in zip(intervals, estimates, measures, strict=True)
                       if i is not None or m]
    if any(o.verdict == Verdict.ERROR for o in outcomes):
        verdict = Verdict.ERROR
    elif decided * 2 < len(outcomes):
        verdict = Verdict.INCONCLUSIVE
    elif "outside" in claim_positions:
        verdict = Verdict.FAILS
    elif "straddles" in claim_positions:
        verdict = Verdict.INCONCLUSIVE
    elif all(r.rejected for r in results):
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.INDISTINGUISHABLE
    evidence = Evidence(verdict, intervals[0], tuple(seed_sample(base_seed, len(outcomes))),
                        passed, decided, results, primary.band, 1 - primary.confidence,
                        primary.label,
                        tuple((e.label, i, e.band)
                              for e, i in zip(estimates, intervals, strict=True)),
                        tuple(k for k, e in enumerate(estimates) if not reachable[e.measured]))
    return evidence, outcomes


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
