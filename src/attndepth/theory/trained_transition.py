"""Where the depth-to-width transition should fall at a fixed parameter budget.

Experiment B (Levine et al. 2020, §5: "systematic empirical ablations on
networks of depths 6 to 48" at fixed budgets; docs/theory.md §2). At a budget
of N non-embedding parameters a network of depth L has width

    d(N, L) = √(N / (12·L))          (N = 12·L·d², Kaplan et al. 2020 Table 1)

Levine et al.'s theory says deepening pays while L is below the threshold of
its width, L_th(d) = log₃ d, and widening pays above it; at a fixed budget
the two balance where

    L = knee(d(N, L)).                                               (B.1)

The left side grows with L and the right side falls (d falls with L), so
(B.1) has exactly one root L*(N) for any increasing knee law: the predicted
loss-optimal depth. For the paper's law it is L = log₃ √(N/(12L)), so
2L·ln 3 + ln L = ln N − ln 12 and, differentiating (SymPy,
:func:`paper_transition_slope_expression`),

    dL*/d ln N = L / (2L·ln 3 + 1)                                    (B.2)

— about 0.4 layers per e-fold of budget. The corrected knee of the
separation-rank work (:func:`attndepth.theory.separation_rank.corrected_knee`,
[conjecture]) is log₃(2D + 1) with D = q·d − q(q − 1)/2, q = min(|Q|, d);
for |Q| ≥ d it is about 2·log₃ d, so the root sits deeper and moves about
twice as fast with N. The empirical fit of the same paper,
ln d_opt = a + b·L (:mod:`attndepth.theory.depth_width`), has
dL_opt/d ln N = L / (1 + 2bL) — its own slope, reported beside the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import sympy as sp
from scipy.optimize import brentq

from attndepth.errors import InvalidParameter
from attndepth.theory.depth_width import (
    DEFAULT_FIT,
    PARAMS_PER_LAYER_PER_WIDTH2,
    AllocationFit,
)
from attndepth.validation import check_int, check_positive


def width_at_budget(budget: float, depth: float) -> float:
    """d(N, L) = √(N / (12·L)), the width that spends ``budget`` at ``depth`` (real)."""
    budget = check_positive("budget", budget)
    depth = check_positive("depth", depth)
    return math.sqrt(budget / (PARAMS_PER_LAYER_PER_WIDTH2 * depth))


def paper_knee(width: float) -> float:
    """Levine et al.'s threshold log₃ d at a real width d > 0."""
    return math.log(check_positive("width", width), 3)


def corrected_knee_law(q_size: int) -> Callable[[float], float]:
    """The corrected knee log₃(2D + 1) at real widths, for ``q_size`` Q positions.

    D = q·d − q(q − 1)/2 with q = min(|Q|, d) continued to real d (for d < |Q|
    it is d(d + 1)/2); equals
    :func:`attndepth.theory.separation_rank.corrected_knee` at integer d.
    [conjecture: the corrected law itself is a conjecture of the separation-rank work]
    """
    q_size = check_int("q_size", q_size, minimum=1)

    def knee(width: float) -> float:
        d = check_positive("width", width)
        q = min(q_size, d)
        return math.log(2 * (q * d - q * (q - 1) / 2) + 1, 3)

    return knee


def transition_depth(budget: float, knee: Callable[[float], float] = paper_knee) -> float:
    """L*(N): the root of L = knee(d(N, L)) (B.1), the depth where deepening stops paying.

    Unique for an increasing ``knee`` (left side increasing in L, right side
    decreasing); found by bracketing on (0, 10⁶].
    """
    budget = check_positive("budget", budget)

    def gap(depth: float) -> float:
        return depth - knee(width_at_budget(budget, depth))

    low, high = 1e-9, 1e6
    if gap(low) >= 0:
        raise InvalidParameter(f"budget {budget:g} is too small: the knee is below depth {low:g}")
    return float(brentq(gap, low, high, xtol=1e-12))


def transition_slope(budget: float, knee: Callable[[float], float] = paper_knee) -> float:
    """dL*/d ln N at ``budget`` (central difference over ±1 % of the budget)."""
    budget = check_positive("budget", budget)
    step = 0.01
    return (transition_depth(budget * math.exp(step), knee)
            - transition_depth(budget * math.exp(-step), knee)) / (2 * step)


def paper_transition_slope_expression() -> sp.Expr:
    """dL*/d ln N of the paper's law (B.2), by implicit differentiation with SymPy.

    F(L, n) = L − log₃ √(eⁿ / (12 L)) = 0 with n = ln N; dL/dn = −F_n / F_L.
    """
    depth, log_budget = sp.symbols("L n", positive=True)
    F = depth - sp.log(sp.sqrt(sp.exp(log_budget) / (PARAMS_PER_LAYER_PER_WIDTH2 * depth)), 3)
    return sp.simplify(-sp.diff(F, log_budget) / sp.diff(F, depth))


def fit_slope(depth: float, fit: AllocationFit = DEFAULT_FIT) -> float:
    """dL_opt/d ln N = L / (1 + 2bL) of the empirical fit, at optimal depth L.

    From 12·L·e^{2a + 2bL} = N: d ln N = (1/L + 2b) dL.
    """
    depth = check_positive("depth", depth)
    return depth / (1 + 2 * fit.slope * depth)
