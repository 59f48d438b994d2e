"""Growth-rate fits and transition detection on measured curves.

Linear fits use ``scipy.stats.linregress``; every fit reports slope,
intercept, R², the slope's standard error and the window it used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import linregress

from attndepth.errors import InvalidParameter, InvalidType, Overflow
from attndepth.validation import check_finite_array


@dataclass(frozen=True)
class LinearFit:
    """y ≈ slope·x + intercept over ``window`` = (first x, last x)."""

    slope: float
    intercept: float
    r2: float
    stderr: float
    window: tuple[float, float]
    points: int

    def as_dict(self) -> dict:
        return asdict(self)


def linear_fit(x: np.ndarray, y: np.ndarray) -> LinearFit:
    """Least-squares line through (x, y); needs ≥ 3 finite points with distinct x."""
    x = check_finite_array("x", x, ndim=1)
    y = check_finite_array("y", y, ndim=1)
    if x.size != y.size:
        raise InvalidParameter(f"x and y must have equal length, got {x.size} and {y.size}")
    if x.size < 3 or np.ptp(x) == 0:
        raise InvalidParameter(f"a fit needs at least 3 points with distinct x, got {x.size}")
    with np.errstate(all="ignore"):
        result = linregress(x, y)
    r2 = float(result.rvalue**2) if np.ptp(y) > 0 else 1.0
    if not all(np.isfinite([result.slope, result.intercept, r2, result.stderr])):
        raise Overflow("the fit overflowed float64: rescale x and y (values too large)")
    return LinearFit(float(result.slope), float(result.intercept), r2,
                     float(result.stderr), (float(x[0]), float(x[-1])), int(x.size))


def transition_depth(depths: np.ndarray, log_values: np.ndarray, ratio: float = 2.0) -> float:
    """Depth where the growth ratio ln s(L+1)/ln s(L) first falls below ``ratio``.

    Doubly exponential growth (ln s ∝ 3^L) has ratio → 3; exponential growth
    (ln s ∝ L) has ratio → 1. Each ratio is placed at its step's midpoint
    L + ½ and the crossing is interpolated linearly between the two midpoints
    around it. Returns ``nan``-free results only: raises ``ValueError`` when
    the ratios never cross ``ratio`` from above (the curve does not show the
    transition in the window given).

    depths : (n,) consecutive integers; log_values : (n,) positive.
    """
    depths = check_finite_array("depths", depths, ndim=1)
    log_values = check_finite_array("log_values", log_values, ndim=1)
    if depths.size != log_values.size or depths.size < 3:
        raise InvalidParameter("depths and log_values need equal length >= 3")
    if np.any(log_values <= 0) or np.any(np.diff(depths) != 1):
        raise InvalidParameter("log_values must be positive and depths consecutive")
    with np.errstate(over="ignore"):
        ratios = log_values[1:] / log_values[:-1]
    if not np.all(np.isfinite(ratios)):
        raise Overflow("growth ratios overflow float64: log_values span too many decades")
    midpoints = depths[:-1] + 0.5
    for k in range(1, ratios.size):
        if ratios[k - 1] >= ratio > ratios[k]:
            fraction = (ratios[k - 1] - ratio) / (ratios[k - 1] - ratios[k])
            return float(midpoints[k - 1] + fraction)
    if ratios[0] < ratio:
        raise InvalidParameter(f"growth ratio is below {ratio} from the first depth: "
                               f"no doubly exponential phase in the window")
    raise InvalidParameter(f"growth ratio stays above {ratio}: extend the depth window")


def growth_ratios(log_values: np.ndarray) -> np.ndarray:
    """ln s(L+1)/ln s(L) for consecutive depths."""
    log_values = check_finite_array("log_values", log_values, ndim=1)
    return log_values[1:] / log_values[:-1]


def standard_error(values: np.ndarray) -> float:
    """Standard error of the mean, std(ddof=1)/√n (0 for a single value)."""
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        raise InvalidParameter("standard_error needs at least one value")
    return float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else 0.0


def log_or_floor(values: np.ndarray, floor: float = math.ulp(0.0)) -> np.ndarray:
    """Natural log with values below ``floor`` clamped to it (never −inf)."""
    return np.log(np.maximum(np.asarray(values, dtype=np.float64), floor))


def linear_phase(values: np.ndarray, floor: float = 1e-24, skip: int = 0) -> np.ndarray:
    """Indices of the linear (geometric) phase of a decaying positive curve.

    From index ``skip`` (a transient to ignore) up to the last index before
    the curve first falls below ``floor`` (round-off takes over there).
    values : (depth,) e.g. t_div per layer.
    """
    values = np.asarray(values, dtype=np.float64)
    below = np.flatnonzero(~(values > floor))
    end = below[0] if below.size else values.size
    return np.arange(skip, end)


def power_law_fit(depths: np.ndarray, values: np.ndarray) -> LinearFit:
    """Fit values ≈ a·depth^α by a line in log–log (depths > 0, values > 0)."""
    depths = check_finite_array("depths", depths, ndim=1)
    values = check_finite_array("values", values, ndim=1)
    if np.any(depths <= 0) or np.any(values <= 0):
        raise InvalidParameter("power_law_fit needs positive depths and values")
    return linear_fit(np.log(depths), np.log(values))


def convergence_orders(errors: np.ndarray, start_below: float = 0.3,
                       floor: float = 1e-13) -> np.ndarray:
    """Order estimates q = ln(e_{k+2}/e_{k+1}) / ln(e_{k+1}/e_k) from consecutive triples.

    For e_{k+1} ≈ C e_k^q the estimate tends to q independently of C
    (regressing ln e_{k+1} on ln e_k mixes C across runs). Only triples with
    e_k < ``start_below`` (asymptotic phase) and e_{k+2} > ``floor`` (before
    round-off) count. errors : (depth, runs) -> (m,) orders.
    """
    errors = np.asarray(errors, dtype=np.float64)
    if errors.ndim == 1:
        errors = errors[:, None]
    first, second, third = errors[:-2], errors[1:-1], errors[2:]
    usable = (first < start_below) & (third > floor) & (second < first) & (third < second)
    return (np.log(third[usable] / second[usable]) / np.log(second[usable] / first[usable]))


#: Median log-odds window where escalation is fitted: tokens already aligned
#: (log-odds ≥ 3, t_sim ≥ 0.95) and still far from float64 round-off (≤ 50).
ESCALATION_WINDOW: tuple[float, float] = (3.0, 50.0)


def escalation_rate(log_odds: np.ndarray,
                    window: tuple[float, float] = ESCALATION_WINDOW) -> LinearFit:
    """Slope of the median log-odds against depth where they lie inside ``window``.

    The one fit of the escalation rate (Yu & Zhang 2023, §3): claims, the
    ``similarity`` command and the figures call it.

    Parameters
    ----------
    log_odds : array, shape (depth + 1, batch) or (depth + 1,)
        ``ln(t_sim / t_div)`` per layer (and stack); the median over stacks is fitted.
    window : (low, high)
        Median log-odds range of the layers that enter the fit.

    Returns
    -------
    LinearFit
        Over the layers inside the window; ``fit.window`` gives the first and
        last of them.

    Raises
    ------
    ValueError
        Fewer than 3 layers inside the window, or a malformed window.
    """
    values = _log_odds(log_odds)
    median = np.median(values, axis=1) if values.ndim == 2 else values
    layers = escalation_layers(values, window)
    return linear_fit(layers.astype(float), median[layers])


def _log_odds(log_odds: object) -> np.ndarray:
    """``log_odds`` as a float array, or an attndepth error (text, objects, ragged lists)."""
    try:
        return np.asarray(log_odds, dtype=float)
    except (TypeError, ValueError):
        raise InvalidType(f"log_odds must be an array of numbers, got "
                          f"{type(log_odds).__name__}") from None


def escalation_layers(log_odds: np.ndarray,
                      window: tuple[float, float] = ESCALATION_WINDOW) -> np.ndarray:
    """Layers whose median log-odds lie in ``window`` (see :func:`escalation_rate`).

    Returns
    -------
    array of int, shape (k,), k ≥ 3
    """
    values = _log_odds(log_odds)
    if values.ndim not in (1, 2) or values.shape[0] < 1:
        raise InvalidParameter(f"log_odds must have shape (depth + 1,) or (depth + 1, batch), "
                               f"got {values.shape}")
    if isinstance(window, str | bytes) or not isinstance(window, Sequence) \
            or len(window) != 2 or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                           for v in window) or not window[0] < window[1]:
        raise InvalidParameter(f"window must be (low, high) numbers with low < high, got "
                               f"{window!r}")
    median = np.median(values, axis=1) if values.ndim == 2 else values
    layers = np.flatnonzero((median >= window[0]) & (median <= window[1]))
    if layers.size < 3:
        raise InvalidParameter(f"median log-odds spend {layers.size} < 3 layers in "
                               f"{tuple(window)}: "
                               "deepen the stack")
    return layers


def escalation_rates(log_odds: np.ndarray,
                     window: tuple[float, float] = ESCALATION_WINDOW) -> np.ndarray:
    """One escalation slope per stack, each fitted over the median's window layers.

    Parameters
    ----------
    log_odds : array, shape (depth + 1, batch)

    Returns
    -------
    array, shape (batch,)
        Slopes; their mean and standard error give a rate with an error bar.
    """
    values = np.asarray(log_odds, dtype=float)
    if values.ndim != 2:
        raise InvalidParameter(f"log_odds must have shape (depth + 1, batch), got {values.shape}")
    layers = escalation_layers(values, window)
    return np.array([linear_fit(layers.astype(float), values[layers, k]).slope
                     for k in range(values.shape[1])])
