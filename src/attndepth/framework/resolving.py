"""Resolving power: how wrong a predicted number could be and the claim still hold.

A claim with an estimate compares its seeds' measured numbers ``m`` with the predicted
``p`` through intervals of the error (:mod:`attndepth.framework.evidence`). Replace
``p`` by a wrong number — ``p·(1 + ε)`` where the error is relative, ``p + ε`` where it
is absolute — and judge the *same* sample again: for small ``ε`` the interval stays
inside the band (the wrong number would still ``hold``), for large ``ε`` it leaves the
band (the claim would catch it: ``fails``), in between it straddles an edge
(``inconclusive``). For each direction (``ε`` up and down) this module finds by
bisection

* **held**: the largest ``ε`` whose interval still lies inside the band, and
* **caught**: the smallest ``ε`` whose interval lies outside it,

each predicted number perturbed alone (the claim's other estimates keep theirs). A
rival closer to the claim than ``held`` cannot be told from it by this measurement;
one farther than ``caught`` is rejected. Both are properties of the sample the verdict
rests on (its seeds, its confidence level), not of a larger one: the sequential test
would have grown the sample for a number between the two.

The error is monotone in ``ε`` (an absolute error shifts by ``−ε``; a relative error
``e`` becomes ``(e + 1)/(1 + ε) − 1`` for a positive prediction), so each bound is one
bisection.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol


class Interval(Protocol):
    """What the search reads of an interval
    (:class:`attndepth.framework.evidence.Interval`)."""

    @property
    def n(self) -> int: ...

    def position(self, band: tuple[float, float]) -> str: ...

#: Relative perturbations are searched up to ×(1 + 10) and down to ×0.001.
RELATIVE_LIMITS = (10.0, 0.999)
#: Bisection stops when the bracket is this small relative to the bound it brackets
#: (and the search starts at this ε; absolute: in units of the band's width, or of the
#: predicted number where the band is one-sided).
TOLERANCE = 1e-4
#: ... or this small in the units above, for a bound of 0.
FLOOR = 1e-7
#: An absolute perturbation is bracketed by doubling up to this many scales.
ABSOLUTE_REACH = 2.0**40


@dataclass(frozen=True)
class ResolvingPower:
    """The smallest perturbation of one predicted number that the sample catches and the
    largest that still holds, in each direction.

    Attributes
    ----------
    label : the estimate's label (what its error is).
    relative : True: ``ε`` multiplies the prediction, ``p·(1 ± ε)``; False: it is added,
        ``p ± ε``.
    held_up, held_down : float or None
        The largest ``ε ≥ 0`` up (down) whose interval still lies inside the band; None
        where the unperturbed interval does not; ``inf`` where every perturbation that
        way holds (a one-sided band).
    caught_up, caught_down : float or None
        The smallest ``ε ≥ 0`` up (down) whose interval lies outside the band; None
        where none up to the search's limits does (a one-sided band).
    seeds : the sample's size (the number of errors of the interval).
    """

    label: str
    relative: bool
    held_up: float | None
    caught_up: float | None
    held_down: float | None
    caught_down: float | None
    seeds: int

    def as_dict(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else float(f"{value:.4g}")

        return {"label": self.label, "perturbation": "relative" if self.relative
                else "absolute", "held_up": rounded(self.held_up),
                "caught_up": rounded(self.caught_up), "held_down": rounded(self.held_down),
                "caught_down": rounded(self.caught_down), "n": self.seeds}

    def describe(self) -> str:
        """One line: ``catches +1.8 % / −1.9 %; +0.9 % / −1.0 % still holds``."""
        def amount(value: float | None, sign: str) -> str:
            if value is None:
                return "none"
            if math.isinf(value):
                return "any"
            return (f"{sign}{100 * value:.3g} %" if self.relative
                    else f"{sign}{value:.3g}")

        caught = f"catches {amount(self.caught_up, '+')} / {amount(self.caught_down, '−')}"
        if self.held_up is None and self.held_down is None:
            return f"{self.label}: {caught}; no perturbation holds (the claim does not)"
        return (f"{self.label}: {caught}; {amount(self.held_up, '+')} / "
                f"{amount(self.held_down, '−')} still holds (n = {self.seeds})")


def resolving_power(label: str, relative: bool, band: tuple[float, float],
                    interval_at: Callable[[Callable[[Any], Any]], Interval | None],
                    scale: float) -> ResolvingPower | None:
    """The resolving power of one estimate on its sample (module docstring).

    Parameters
    ----------
    label : the estimate's label.
    relative : whether its error is relative (perturb multiplicatively) or absolute
        (perturb additively).
    band : its band.
    interval_at : ``interval_at(perturb) -> Interval or None``: the interval of the
        sample's errors when every predicted number ``p`` is replaced by
        ``perturb(p)`` (an array or a float).
    scale : the size of an absolute perturbation's first step (the band's width, or
        the predicted number's size where the band is one-sided); unused when relative.

    Returns
    -------
    ResolvingPower or None
        None where the sample has no interval.
    """
    unperturbed = interval_at(_perturbation(relative, 0.0))
    if unperturbed is None:
        return None

    def position(epsilon: float, sign: int) -> str:
        found = interval_at(_perturbation(relative, sign * epsilon))
        return "straddles" if found is None else found.position(band)

    bounds: dict[str, float | None] = {}
    for sign, name in ((1, "up"), (-1, "down")):
        limit = RELATIVE_LIMITS[0 if sign > 0 else 1] if relative else ABSOLUTE_REACH * scale
        step = TOLERANCE if relative else TOLERANCE * scale
        floor = FLOOR if relative else FLOOR * scale

        def inside(epsilon: float, sign: int = sign) -> bool:
            return position(epsilon, sign) == "inside"

        def outside(epsilon: float, sign: int = sign) -> bool:
            return position(epsilon, sign) == "outside"

        held = _largest(inside, limit, step, floor)
        # still inside at the search's reach: every perturbation that way holds (a
        # one-sided band), except a relative one down, which ends at a prediction of 0
        bounds[f"held_{name}"] = math.inf if held == limit and (sign > 0 or not relative) \
            else held
        bounds[f"caught_{name}"] = _smallest(outside, limit, step, floor)
    return ResolvingPower(label, relative, bounds["held_up"], bounds["caught_up"],
                          bounds["held_down"], bounds["caught_down"], unperturbed.n)


def _perturbation(relative: bool, epsilon: float) -> Callable[[Any], Any]:
    if relative:
        return lambda p: p * (1.0 + epsilon)
    return lambda p: p + epsilon


def _largest(inside: Callable[[float], bool], limit: float, step: float,
             floor: float) -> float | None:
    """The largest ε in [0, limit] with ``inside(ε)`` (inside on [0, ε], not beyond)."""
    if not inside(0.0):
        return None
    low, high = 0.0, step
    while inside(high):
        low, high = high, 2 * high
        if high > limit:
            if inside(limit):
                return limit
            high = limit
            break
    return _boundary(inside, low, high, floor)[0]


def _smallest(outside: Callable[[float], bool], limit: float, step: float,
              floor: float) -> float | None:
    """The smallest ε in [0, limit] with ``outside(ε)`` (None where none is)."""
    if outside(0.0):
        return 0.0
    low, high = 0.0, step
    while not outside(high):
        low, high = high, 2 * high
        if high > limit:
            if not outside(limit):
                return None
            high = limit
            break
    return _boundary(lambda epsilon: not outside(epsilon), low, high, floor)[1]


def _boundary(below: Callable[[float], bool], low: float, high: float,
              floor: float) -> tuple[float, float]:
    """Bisect the edge of ``below`` (true at ``low``, false at ``high``) to a bracket
    of TOLERANCE of its bound, or ``floor``."""
    while high - low > max(TOLERANCE * high, floor):
        middle = (low + high) / 2
        if below(middle):
            low = middle
        else:
            high = middle
    return low, high


def absolute_scale(band: tuple[float, float], predicted: float) -> float:
    """The first step of an absolute perturbation: the band's width, else the predicted
    number's size, else 1."""
    low, high = band
    if math.isfinite(low) and math.isfinite(high) and high > low:
        return high - low
    return abs(predicted) if predicted and math.isfinite(predicted) else 1.0


#: The shipped record: each default claim's resolving power at its quick preset and base
#: seed 0 (``python docs/resolving_power.py`` writes it from a ``verify --format json``).
RECORD = ("attndepth.framework", "data/resolving_power.json")


def recorded_powers() -> Mapping[str, list[ResolvingPower]]:
    """The shipped record (:data:`RECORD`): claim id -> its estimates' resolving power
    (empty where the package holds no record)."""
    try:
        text = resources.files(RECORD[0]).joinpath(RECORD[1]).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    return {claim: [from_dict(entry) for entry in entries]
            for claim, entries in json.loads(text)["claims"].items()}


def from_dict(entry: Mapping[str, Any]) -> ResolvingPower:
    """A :class:`ResolvingPower` from :meth:`ResolvingPower.as_dict` (its JSON: an
    unbounded bound is the string ``"inf"``)."""
    def bound(value: Any) -> float | None:
        return None if value is None else float(value)

    return ResolvingPower(entry["label"], entry["perturbation"] == "relative",
                          bound(entry["held_up"]), bound(entry["caught_up"]),
                          bound(entry["held_down"]), bound(entry["caught_down"]),
                          int(entry["n"]))
