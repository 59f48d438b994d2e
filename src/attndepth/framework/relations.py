"""Claims about how members relate: sets of members, and the numbers that decide them.

A statement such as "the rate decreases in α", "the knee lies between depths 2
and 4" or "the error scales like d^(−1)" is about several members at once. Such
a claim takes a *set* as one family parameter — a tuple of values — and its
verify function measures every element and reduces them to one number: a
margin that is positive exactly when the relation holds, or a fitted exponent.
:func:`subsets` builds the family's sets, so ``attndepth verify --search``
enumerates small sets exhaustively and draws larger ones with hypothesis, and
an :class:`~attndepth.framework.declarations.Estimate` on the margin decides the
relation over a sample of seeds like any other number. Sets arrive as tuples,
or as lists when a member is read back from JSON (``--member``, a search store).

Example: ``Family(parameters={"alphas": subsets((1.0, 1.5, 2.0, 3.0), 2)})``
and ``Estimate("margin", "zero", (0, math.inf), relative=False)`` with
``values={"margin": monotone_margin(alphas, rates, "decreasing"), "zero": 0.0}``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.validation import check_int

#: Directions of a monotone relation.
DIRECTIONS: tuple[str, ...] = ("increasing", "decreasing")


def subsets(values: Sequence, size: int) -> tuple[tuple, ...]:
    """Every ``size``-element subset of ``values`` as a sorted tuple, smallest first.

    Parameters
    ----------
    values : sequence of distinct, orderable values
    size : int
        2 <= size <= len(values).

    Returns
    -------
    tuple of tuples, in the order of :func:`itertools.combinations` of the
    sorted values (so sets of small values come first, as a family wants).
    """
    try:
        ordered = sorted(values)
        distinct = len(set(ordered)) == len(ordered)
    except TypeError:  # not iterable, not orderable, not hashable
        raise InvalidType(f"subsets needs a sequence of distinct orderable values, got "
                          f"{values!r}") from None
    if not distinct:
        raise InvalidParameter(f"subsets needs distinct values, got {list(values)}")
    size = check_int("size", size, minimum=2, maximum=len(ordered))
    return tuple(itertools.combinations(ordered, size))


def _pairs(xs: Sequence[float], ys: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    try:
        x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    except (TypeError, ValueError):
        raise InvalidType(f"a relation takes two sequences of numbers, got {xs!r} and "
                          f"{ys!r}") from None
    if x.ndim != 1 or x.shape != y.shape or len(x) < 2:
        raise InvalidParameter(f"need two equal-length sequences of >= 2 numbers, got shapes "
                               f"{x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise InvalidParameter("the values of a relation must be finite numbers")
    order = np.argsort(x, kind="stable")
    if np.any(np.diff(x[order]) == 0):
        raise InvalidParameter(f"the parameter values must be distinct, got {list(xs)}")
    return x[order], y[order]


def monotone_margin(xs: Sequence[float], ys: Sequence[float], direction: str,
                    relative: bool = False) -> float:
    """The smallest step of ``ys`` in ``direction`` as ``xs`` grows: > 0 iff strictly monotone.

    Parameters
    ----------
    xs, ys : sequences of numbers, equal lengths >= 2 (xs distinct; sorted here)
    direction : {"increasing", "decreasing"}
    relative : bool
        Divide each step by the larger |y| of its pair (a scale-free margin).

    Returns
    -------
    float
        ``min_i s·(y_{i+1} − y_i)`` with s = +1 (increasing) or −1 (decreasing)
        over consecutive x; negative: the relation is broken by that much.
    """
    if direction not in DIRECTIONS:
        raise InvalidParameter(f"direction must be one of {', '.join(DIRECTIONS)}; "
                               f"got {direction!r}")
    _, y = _pairs(xs, ys)
    steps = np.diff(y) * (1.0 if direction == "increasing" else -1.0)
    if relative:
        scale = np.maximum(np.abs(y[1:]), np.abs(y[:-1]))
        steps = steps / np.where(scale > 0, scale, 1.0)
    return float(steps.min())


def scaling_exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The exponent p of ``|y| ≈ c·x^p``: the least-squares slope of ln|y| on ln x.

    Parameters
    ----------
    xs : positive numbers; ys : non-zero numbers (equal lengths >= 2)

    Returns
    -------
    float
    """
    x, y = _pairs(xs, ys)
    if np.any(x <= 0) or np.any(y == 0):
        raise InvalidParameter("a scaling law needs positive parameter values and non-zero "
                               "measured values")
    slope, _ = np.polyfit(np.log(x), np.log(np.abs(y)), 1)
    return float(slope)


def first_crossing(xs: Sequence[float], ys: Sequence[float], level: float) -> float:
    """The smallest x at which ``ys`` reaches ``level`` (a knee, a threshold); inf if never.

    Parameters
    ----------
    xs, ys : sequences of numbers, equal lengths >= 2
    level : float

    Returns
    -------
    float
        ``min{x_i : y_i >= level}`` over the sorted xs, ``math.inf`` when no y does.
    """
    x, y = _pairs(xs, ys)
    if isinstance(level, bool) or not isinstance(level, (int, float)) or math.isnan(level):
        raise InvalidType(f"level must be a number, got {level!r}")
    reached = np.nonzero(y >= level)[0]
    return float(x[reached[0]]) if len(reached) else math.inf
