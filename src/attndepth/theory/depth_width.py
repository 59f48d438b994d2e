"""Depth-to-width allocation (Levine et al. 2020, §5; docs/theory.md §2).

Parameter count (Kaplan et al. 2020, Table 1 convention): a block has
4d² attention weights and 8d² feed-forward weights (hidden width 4d), so a
depth-L, width-d network has ``N = 12·L·d²`` non-embedding parameters
(``+ V·d`` with a vocabulary of V embeddings).

Empirical optimum (Levine et al. 2020, fit to their depth-width ablations, as
quoted in BigScience's notes): ``ln d_opt(L) = a + b·L`` with
``a = 5.039``, ``b = 0.0555``. At a budget N the optimal depth solves
``12·L·exp(2a + 2bL) = N``.

Closed form (derived below with SymPy): put u = 2bL; then
``u·e^u = N·b·e^{−2a}/6`` so ``L_opt(N) = W₀(N·b·e^{−2a}/6) / (2b)`` with W₀
the principal branch of the Lambert W function (the argument is positive,
so W₀ is real, positive and increasing: a unique positive root).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import sympy as sp
from scipy.special import lambertw

from attndepth.errors import InvalidParameter, InvalidType, Overflow
from attndepth.theory.separation_rank import threshold_depth
from attndepth.validation import check_positive, check_real

#: Intercept a of ln d_opt = a + b·L (Levine et al. 2020, §5 fit, as quoted by BigScience).
FIT_INTERCEPT = 5.039
#: Slope b of ln d_opt = a + b·L (same source).
FIT_SLOPE = 0.0555
#: Parameters per layer per d²: 4 (attention) + 8 (FFN, hidden 4d) (Kaplan et al. 2020).
PARAMS_PER_LAYER_PER_WIDTH2 = 12
#: L / L_opt(d) inside this band counts as near-optimal: within 10 % of the rule's
#: depth. A stated reading of the rule, not a number from the paper.
NEAR_OPTIMAL_BAND = (0.9, 1.1)

VERDICTS = ("depth-inefficient (too deep for its width)",
            "width-inefficient (too shallow for its width)",
            "near-optimal")


def _exp(what: str, exponent: float) -> float:
    """exp with a clear error instead of OverflowError (float64 ends near e^709)."""
    if exponent > 709:
        raise Overflow(f"{what} overflows float64 (exp({exponent:.3g})); the shape or fit "
                       f"is outside any meaningful range")
    return math.exp(exponent)


#: |ln d| beyond which a width leaves float64 (e^709.8 overflows, e^-745 underflows).
MAX_LOG_WIDTH = 700


@dataclass(frozen=True)
class AllocationFit:
    """The empirical fit ``ln d_opt = intercept + slope·L``; override to test alternatives."""

    intercept: float = FIT_INTERCEPT
    slope: float = FIT_SLOPE

    def __post_init__(self) -> None:
        check_real("intercept", self.intercept)
        check_positive("slope", self.slope)
        if not -MAX_LOG_WIDTH < self.intercept < MAX_LOG_WIDTH:
            raise InvalidParameter(f"intercept must lie in (-{MAX_LOG_WIDTH}, {MAX_LOG_WIDTH}): "
                                   f"e^intercept is the optimal width at depth 0 and leaves "
                                   f"float64 (0 or inf) outside it; got {self.intercept!r}")


DEFAULT_FIT = AllocationFit()


# ---------------------------------------------------------------- symbolic side

L_SYMBOL, N_SYMBOL, A_SYMBOL, B_SYMBOL, D_SYMBOL = sp.symbols("L N a b d", positive=True)


def parameter_count_expression() -> sp.Expr:
    """``12·L·d²`` (Kaplan et al. 2020 convention)."""
    return PARAMS_PER_LAYER_PER_WIDTH2 * L_SYMBOL * D_SYMBOL**2


def optimal_depth_expression() -> sp.Expr:
    """Solve ``12·L·exp(2a + 2bL) = N`` for L with SymPy; returns the LambertW form."""
    budget_equation = sp.Eq(PARAMS_PER_LAYER_PER_WIDTH2 * L_SYMBOL
                            * sp.exp(2 * A_SYMBOL + 2 * B_SYMBOL * L_SYMBOL), N_SYMBOL)
    solutions = sp.solve(budget_equation, L_SYMBOL)
    if len(solutions) != 1:
        raise RuntimeError(f"expected one positive root, SymPy gave {solutions}")
    return sp.simplify(solutions[0])


def closed_form_expression() -> sp.Expr:
    """The closed form stated in the module docstring, ``W₀(N b e^{−2a}/6)/(2b)``."""
    return sp.LambertW(N_SYMBOL * B_SYMBOL * sp.exp(-2 * A_SYMBOL) / 6) / (2 * B_SYMBOL)


def closed_form_matches_sympy() -> bool:
    """True when SymPy's own solution equals :func:`closed_form_expression`.

    Compared numerically at several exact rational points (LambertW identities
    are not always simplified to zero symbolically).
    """
    solved, stated = optimal_depth_expression(), closed_form_expression()
    points = [(sp.Rational(10) ** k, sp.Rational(5039, 1000), sp.Rational(555, 10000))
              for k in (6, 9, 12, 15)]
    for N, a, b in points:
        values = {N_SYMBOL: N, A_SYMBOL: a, B_SYMBOL: b}
        left, right = sp.N(solved.subs(values), 30), sp.N(stated.subs(values), 30)
        if abs(left - right) > sp.Float("1e-25") * abs(right):
            return False
    # The residual of the defining equation vanishes identically, using the
    # defining identity of W: exp(W(z)) = z / W(z).
    residual = (PARAMS_PER_LAYER_PER_WIDTH2 * stated
                * sp.exp(2 * A_SYMBOL + 2 * B_SYMBOL * stated) - N_SYMBOL)
    residual = sp.expand(sp.expand_power_exp(residual))
    lambert = next(iter(stated.atoms(sp.LambertW)))
    residual = residual.subs(sp.exp(lambert), lambert.args[0] / lambert)
    return sp.simplify(residual) == 0


# ----------------------------------------------------------------- numeric side


def parameter_count(depth: float, width: float, vocabulary: float = 0) -> float:
    """Non-embedding ``12·L·d²`` plus ``V·d`` embeddings."""
    depth = check_positive("depth", depth)
    width = check_positive("width", width)
    vocabulary = check_real("vocabulary", vocabulary, minimum=0)
    try:
        count = PARAMS_PER_LAYER_PER_WIDTH2 * depth * width * width + vocabulary * width
    except OverflowError:
        count = math.inf
    if not math.isfinite(count):
        raise Overflow(f"the parameter count of depth {depth:g} and width {width:g} "
                       f"overflows float64")
    return count


def _check_fit(fit: object) -> None:
    if not isinstance(fit, AllocationFit):
        raise InvalidType(f"fit must be an AllocationFit, got {type(fit).__name__}")


def optimal_width(depth: float, fit: AllocationFit = DEFAULT_FIT) -> float:
    """``d_opt(L) = exp(a + b·L)``."""
    _check_fit(fit)
    depth = check_positive("depth", depth)
    return _exp("the optimal width", fit.intercept + fit.slope * depth)


def optimal_depth_for_width(width: float, fit: AllocationFit = DEFAULT_FIT) -> float:
    """The depth at which ``width`` is optimal: ``(ln d − a)/b``.

    Raises ``ValueError`` for ``d ≤ e^a`` (≈ 154 with the default fit), where
    the fit gives no positive depth.
    """
    _check_fit(fit)
    width = check_positive("width", width)
    depth = (math.log(width) - fit.intercept) / fit.slope
    if not math.isfinite(depth):  # a slope near 0 (1e-320): no depth float64 can hold
        raise Overflow(f"the optimal depth for width {width:g} overflows float64 with the "
                       f"fit's slope b = {fit.slope:g}; the fit is outside any meaningful "
                       f"range")
    if depth <= 0:
        raise InvalidParameter(f"width must exceed e^a (a = {fit.intercept:g}) for the fit "
                               f"to give a positive optimal depth, got {width}")
    return depth


def budget_at_optimal_depth(depth: float, fit: AllocationFit = DEFAULT_FIT) -> float:
    """The budget at which ``depth`` is optimal: ``12·L·exp(2a + 2bL)``."""
    _check_fit(fit)
    return parameter_count(depth, optimal_width(depth, fit))


def smallest_budget(fit: AllocationFit = DEFAULT_FIT) -> float:
    """Budget of one optimal layer, ``12·e^{2a+2b}``: smaller budgets are rejected."""
    return budget_at_optimal_depth(1.0, fit)


def optimal_depth(budget: float, fit: AllocationFit = DEFAULT_FIT) -> float:
    """``L_opt(N) = W₀(N·b·e^{−2a}/6)/(2b)`` via ``scipy.special.lambertw``."""
    _check_fit(fit)
    budget = check_positive("budget", budget)
    floor = smallest_budget(fit)
    if budget < floor:
        raise InvalidParameter(f"budget must be at least one optimal layer, {floor:.4g} "
                               f"parameters, got {budget:.4g}")
    argument = budget * fit.slope * _exp("the Lambert-W argument", -2 * fit.intercept) / 6
    if not math.isfinite(argument):
        raise Overflow(f"budget {budget:.3g} with this fit overflows the Lambert-W argument")
    return float(lambertw(argument, 0).real) / (2 * fit.slope)


@dataclass(frozen=True)
class Plan:
    """An allocation answer. Unused fields are None.

    Keys match the ``attndepth plan --json`` output.
    """

    params: float
    depth_opt: float
    width_opt: float
    threshold_depth: float
    depth: float | None = None
    width: float | None = None
    ratio: float | None = None
    verdict: str | None = None
    alternative_depth: float | None = None
    alternative_width: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def plan_for_budget(budget: float, fit: AllocationFit = DEFAULT_FIT) -> Plan:
    """Optimal depth and width at a budget, and the threshold at that width."""
    _check_fit(fit)
    depth = optimal_depth(budget, fit)
    width = optimal_width(depth, fit)
    return Plan(params=float(budget), depth_opt=depth, width_opt=width,
                threshold_depth=threshold_depth(width))


def plan_for_width(width: float, fit: AllocationFit = DEFAULT_FIT) -> Plan:
    """The depth at which ``width`` is optimal, and its budget."""
    _check_fit(fit)
    depth = optimal_depth_for_width(width, fit)
    return Plan(params=parameter_count(depth, width), depth_opt=depth, width_opt=float(width),
                threshold_depth=threshold_depth(width))


def judge_shape(depth: float, width: float, fit: AllocationFit = DEFAULT_FIT) -> Plan:
    """Verdict for a (L, d): compare L with L_opt(d) and give the budget-matched optimum.

    ``ratio = L / L_opt(d)``: above :data:`NEAR_OPTIMAL_BAND` the network is
    depth-inefficient (too deep for its width), below it width-inefficient.
    The alternative shape is the optimum at the same budget ``12·L·d²``
    (None when that budget is below one optimal layer).
    """
    _check_fit(fit)
    depth = check_positive("depth", depth)
    width = check_positive("width", width)
    ratio = depth / optimal_depth_for_width(width, fit)
    budget = parameter_count(depth, width)
    alternative = plan_for_budget(budget, fit) if budget >= smallest_budget(fit) else None
    low, high = NEAR_OPTIMAL_BAND
    verdict = VERDICTS[0] if ratio > high else VERDICTS[1] if ratio < low else VERDICTS[2]
    return Plan(params=budget, depth_opt=optimal_depth_for_width(width, fit),
                width_opt=float(width), threshold_depth=threshold_depth(width),
                depth=float(depth), width=float(width), ratio=ratio, verdict=verdict,
                alternative_depth=alternative.depth_opt if alternative else None,
                alternative_width=alternative.width_opt if alternative else None)


#: The Depth Delusion's critical depth: D_crit = 16 layers at width W = 512 [fit] ...
DELUSION_DEPTH_AT_512 = 16.0
#: ... growing as W^0.44 [fit] (Fahim & Karim 2026, arXiv 2601.20994, abstract and Fig. 1b).
DELUSION_EXPONENT = 0.44


def delusion_critical_depth(width: float) -> float:
    """The critical depth of "The Depth Delusion" (Fahim & Karim 2026, arXiv 2601.20994):
    beyond it adding layers increases a trained model's loss.

    [fit] D_crit(W) = 16·(W/512)^0.44: the power law of the abstract (D_crit ∝ W^0.44,
    fitted to gradient decay in 30 trained transformers, 17M–7B parameters) through
    the paper's D_crit = 16 at W = 512 (Fig. 1b). It is one paper's fit on trained
    models, not a derivation; attndepth names it as a rival of the separation-rank
    threshold log₃ d (``levine.threshold``) and of the trained transition.

    Parameters
    ----------
    width : float
        W (the model width d), > 0.

    Returns
    -------
    float
        D_crit in layers.
    """
    width = check_positive("width", width)
    return DELUSION_DEPTH_AT_512 * (width / 512) ** DELUSION_EXPONENT
