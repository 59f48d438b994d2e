"""Validity maps: a claim's error, with its interval, across a grid of its parameters.

:func:`validity_map` runs a claim at every point of a grid (inside its family or,
when asked, beyond it) and records, per point, the verdict, whether the point is
in the family, and for a claim with an estimate the mean error of its first
estimate with its confidence interval (:mod:`attndepth.framework.evidence`). A
claim without an estimate is mapped by a numeric key of its outcome values
(``value``), without an interval. :func:`error_scaling` fits ``|error| ≈ c·x^(−k)``
along one numeric parameter, the usual form of a finite-size correction.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter, UserCodeFailed, describe_exception
from attndepth.framework.registry import get_claim
from attndepth.framework.results import ClaimResult
from attndepth.framework.running import run_claim
from attndepth.framework.verdicts import Verdict


@dataclass(frozen=True)
class MapPoint:
    """One grid point of a validity map."""

    params: dict[str, Any]
    verdict: str
    in_family: bool | None
    mean: float
    low: float
    high: float
    seeds: int
    #: Why the point has no number (a point whose run raised: verdict ``error``).
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {**self.params, "verdict": self.verdict, "in_family": self.in_family,
                "mean": self.mean, "low": self.low, "high": self.high, "seeds": self.seeds,
                "note": self.note}


@dataclass(frozen=True)
class ValidityMap:
    """A claim mapped over a grid."""

    claim: str
    label: str
    band: tuple[float, float] | None
    points: tuple[MapPoint, ...]
    grid: dict[str, tuple]
    preset: str
    seed: int

    def as_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "label": self.label,
                "band": list(self.band) if self.band else None, "preset": self.preset,
                "seed": self.seed, "grid": {k: list(v) for k, v in self.grid.items()},
                "points": [p.as_dict() for p in self.points]}


#: The most points a validity map may have (each runs a claim); refused before any runs.
MAX_MAP_POINTS = 10_000


def parse_grid(items: Sequence[str]) -> dict[str, tuple]:
    """``["width=8,16,32", "tokens=16"]`` → ``{"width": (8, 16, 32), "tokens": (16,)}``.

    Values are read as integers (ASCII digits), then finite floats, else kept as
    strings. The grid is checked by :func:`check_grid`.

    Raises
    ------
    ValueError
        An item is not ``NAME=V1,V2,...``, names a parameter twice, or the grid fails
        :func:`check_grid`.
    """
    grid: dict[str, tuple] = {}
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or not values.strip():
            raise InvalidParameter(f"--grid takes NAME=V1,V2,... (e.g. width=8,16,32), got "
                                   f"{_shown(item)}")
        if name in grid:
            raise InvalidParameter(f"--grid names {name!r} twice")
        if values.count(",") >= MAX_MAP_POINTS:  # before anything is split or converted
            raise InvalidParameter(f"--grid {name} lists more than {MAX_MAP_POINTS} values")
        grid[name] = tuple(_value(v.strip()) for v in values.split(","))
    check_grid(grid)
    return grid


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:60] + "...")


def check_grid(grid: Mapping[str, Sequence[Any]]) -> None:
    """Refuse a grid no map should run, before anything runs or is materialised.

    Every parameter needs at least one value; values are finite numbers or non-empty
    strings, none repeated within a parameter (a power law fitted to one x, or the
    same point twice, says nothing); at most :data:`MAX_MAP_POINTS` points in all.

    Raises
    ------
    InvalidParameter
        The first problem found.
    """
    total = 1
    for name, values in grid.items():
        values = tuple(values)
        if not values:
            raise InvalidParameter(f"the grid needs at least one value for {name!r}")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                raise InvalidParameter(f"grid values are numbers or text, got "
                                       f"{type(value).__name__} for {name!r}")
            if isinstance(value, float) and not math.isfinite(value):
                raise InvalidParameter(f"grid values must be finite, got {value} for {name!r}")
            if isinstance(value, str) and not value:
                raise InvalidParameter(f"grid values must not be empty (in {name!r})")
        repeated = [v for k, v in enumerate(values) if v in values[:k]]
        if repeated:
            raise InvalidParameter(f"the grid repeats {repeated[0]!r} for {name!r}: give each "
                                   f"value once")
        total *= len(values)
        if total > MAX_MAP_POINTS:
            raise InvalidParameter(f"the grid has more than {MAX_MAP_POINTS} points (each "
                                   f"runs the claim): map fewer values")


def check_band(band: tuple[float, float] | None) -> None:
    """A map's band: two finite numbers, low < high (None: the claim's own band).

    Raises
    ------
    InvalidParameter
    """
    if band is None:
        return
    low, high = band
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InvalidParameter(f"a band is LOW,HIGH with finite LOW < HIGH, got {low}, {high}")


def _value(text: str) -> Any:
    digits = text[1:] if text[:1] in "+-" else text
    if not text.isascii():  # float() reads '٣' as 3.0: a number is spelled in ASCII
        return text
    if digits.isdigit() and len(digits) <= 30:
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def validity_map(claim_id: str, grid: Mapping[str, Sequence[Any]], preset: str = "quick",
                 seed: int = 0, value: str | None = None, beyond: bool = False,
                 progress: Callable[[MapPoint], None] | None = None,
                 band: tuple[float, float] | None = None) -> ValidityMap:
    """Run a claim at every point of ``grid`` and collect its errors.

    Parameters
    ----------
    claim_id : str
        A registered claim.
    grid : mapping of str to sequence
        Values of keyword arguments of the verify function (the others come from
        the preset), or of every parameter of the claim's family (each point is
        then a family member, turned into keyword arguments as the search does);
        the product of the sequences is mapped, in order.
    preset, seed
        As for :func:`~attndepth.framework.running.run_claim`.
    value : str, optional
        For a claim without an estimate: the numeric key of its outcome values
        to map.
    band : (float, float), optional
        With ``value``: the band the value should lie in (drawn and reported);
        with an estimate the estimate's band is used.
    beyond : bool
        Map points outside the claim's family too (they are marked); without it
        such a point is refused.
    progress : callable, optional
        Called with each finished point.

    A point whose run raises a ``ValueError``, ``TypeError`` or ``ArithmeticError``
    (too large for the machine, say) is kept with the verdict ``error`` and its
    message; the other points still run.

    Returns
    -------
    ValidityMap

    Raises
    ------
    MapInterrupted
        Ctrl-C (a ``KeyboardInterrupt``), holding the points computed before it.
    ValueError
        An empty grid, a parameter the claim's verify function does not take, a
        point outside the family without ``beyond``, or a claim without an
        estimate and without ``value``.
    """
    found = get_claim(claim_id)
    if not grid:
        raise InvalidParameter("the grid needs at least one value per parameter")
    check_grid(grid)
    check_band(band)
    takes = set(found.presets[preset])
    family = found.family
    # the grid names the family's parameters (members), not the verify function's keywords
    members = family is not None and set(grid) == set(family.parameters) \
        and not set(grid) <= takes
    unknown = [name for name in grid if name not in takes]
    if unknown and not members:
        also = (f", or every family parameter ({', '.join(family.parameters)})"
                if family is not None else "")
        raise InvalidParameter(f"{claim_id} takes no parameter {', '.join(map(repr, unknown))}; "
                               f"map its keyword arguments ({', '.join(sorted(takes))}){also}")
    estimates = found.estimates
    if not estimates and value is None:
        raise InvalidParameter(f"{claim_id} has no estimate: name a numeric outcome value to map "
                               f"with --value")
    names = list(grid)
    combos = [dict(zip(names, combo, strict=True))
              for combo in itertools.product(*(grid[n] for n in names))]
    def in_family(combo: dict[str, Any]) -> bool | None:
        if found.family is None:
            return None
        return found.family.includes(combo if members else {**found.presets[preset], **combo})

    if not beyond:
        outside = [c for c in combos if in_family(c) is False]
        if outside:
            raise InvalidParameter(f"{len(outside)} grid point(s) lie outside the family of "
                                   f"{claim_id} (e.g. {outside[0]}); pass --beyond to map them")
    points: list[MapPoint] = []
    label = estimates[0].label if estimates else value
    band = estimates[0].band if estimates else band

    def mapped() -> ValidityMap:
        return ValidityMap(claim_id, label or "", band, tuple(points),
                           {n: tuple(grid[n]) for n in names}, preset, seed)

    for combo in combos:
        try:
            kwargs = family.kwargs(combo) if members and family is not None else combo
            result = run_claim(claim_id, preset, seed, **kwargs)
        except KeyboardInterrupt:  # the points computed are the caller's to keep
            raise MapInterrupted(mapped(), len(combos)) from None
        # this point only; a user's claim that raised (UserCodeFailed) is reported by the
        # caller once the points computed are kept
        except (ValueError, TypeError, ArithmeticError, UserCodeFailed) as error:
            point = MapPoint(combo, Verdict.ERROR, None, math.nan, math.nan, math.nan, 0,
                             str(error).splitlines()[0] if isinstance(error, UserCodeFailed)
                             else describe_exception(error))
            points.append(point)
            if progress is not None:
                progress(point)
            continue
        point = MapPoint(combo, result.verdict, in_family(combo),
                         *_mapped_numbers(result, bool(estimates), value))
        points.append(point)
        if progress is not None:
            progress(point)
    return mapped()


def _mapped_numbers(result: ClaimResult, estimated: bool, value: str | None
                    ) -> tuple[float, float, float, int]:
    """A point's (mean, low, high, seeds): the first estimate's interval, or the number
    ``value`` of the outcome of a claim without an estimate (one run)."""
    if estimated:
        interval = result.evidence.interval if result.evidence else None
        mean, low, high = ((interval.mean, interval.low, interval.high) if interval
                           else (math.nan,) * 3)
        return mean, low, high, len(result.evidence.seeds) if result.evidence else 0
    number = result.outcome.values.get(value or "")  # value is named without estimates
    item = getattr(number, "item", None)  # a NumPy scalar: its Python number
    if callable(item):
        number = item()
    if not isinstance(number, int | float) or isinstance(number, bool):
        raise InvalidParameter(f"{result.id}'s outcome value {value!r} is not a number "
                               f"(got {type(number).__name__})")
    return float(number), float(number), float(number), 1


class MapInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`validity_map`: ``partial`` holds the points computed before it
    (in grid order), ``total`` the points of the whole grid."""

    def __init__(self, partial: ValidityMap, total: int) -> None:
        super().__init__(f"interrupted after {len(partial.points)} of {total} points")
        self.partial, self.total = partial, total


@dataclass(frozen=True)
class Scaling:
    """``|error| ≈ c·x^(−k)`` fitted along one parameter."""

    parameter: str
    c: float
    k: float
    points: int

    def describe(self) -> str:
        # a growing error (k < 0) reads as a positive power, not "^(−-1.80)"
        power = f"^(−{self.k:.2f})" if self.k >= 0 else f"^{-self.k:.2f}"
        return f"|error| ≈ {self.c:.3g}·{self.parameter}{power} ({self.points} points)"


def error_scaling(result: ValidityMap, parameter: str) -> Scaling | None:
    """Least-squares fit of log|mean error| against log of ``parameter``.

    Uses the points with a positive value of ``parameter`` and a finite, nonzero
    mean error; ``None`` with fewer than 3 such points, errors of both signs (no
    single power law then), or a one-sided band: the quantity is then a margin
    (a rate that must stay above 0), not an error that falls to 0 with size.
    """
    if result.band is not None and not all(math.isfinite(edge) for edge in result.band):
        return None
    xs, ys, signs = [], [], set()
    for point in result.points:
        x = point.params.get(parameter)
        if isinstance(x, int | float) and x > 0 and math.isfinite(point.mean) and point.mean:
            xs.append(math.log(x))
            ys.append(math.log(abs(point.mean)))
            signs.add(point.mean > 0)
    if len(xs) < 3 or len(signs) > 1:
        return None
    slope, intercept = np.polyfit(xs, ys, 1)
    return Scaling(parameter, float(math.exp(intercept)), float(-slope), len(xs))
