"""What a claim declares about how its measurements are judged: each :class:`Estimate`
(a measured number, its prediction and the band of its error), each :class:`Check` (a
condition that is not an estimate) and each :class:`Rival` (a plausible alternative
theory, with its source). The framework judges by them
(:mod:`attndepth.framework.judge`, :mod:`attndepth.framework.evidence`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType, shown

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
