"""Check your own derivation: the escalation rate of a DeepNorm-style post-LN stack.

The block is x ← LN(α·x + A(x)) (Wang et al. 2022 take α > 1), built with
``StackConfig(variant="post-ln", skip_scale=α)``. The derivation (docs/tutorial.md):
repeating the post-LN argument with α on the skip path, the mean token's
squared norm grows by α² + (1 − 1/d) per block and the diversity by
α² + s²(1 − 1/d), with a second-order (Jensen) correction, so

    rate(α) = ln(α² + k) − ln(α² + s²k) − (4α² + 2)/(2d(α² + k)²),   k = 1 − 1/d,

which falls as α grows. Two claims state it: the number (``mine.deepnorm-rate``)
and the relation across members (``mine.deepnorm-slows``); one figure draws it.

    attndepth verify --claims examples/deepnorm/deepnorm_claims.py
    attndepth verify --claims examples/deepnorm/deepnorm_claims.py --search --draws 0
    attndepth map mine.deepnorm-rate --claims examples/deepnorm/deepnorm_claims.py \\
        --grid alpha=1.5,2,3 --grid width=32
    attndepth figures --claims examples/deepnorm/deepnorm_claims.py --out figs
    pytest --attndepth-claims examples/deepnorm/deepnorm_claims.py
"""

import math

import numpy as np
import sympy as sp

from attndepth import (
    Estimate,
    Family,
    Outcome,
    Rival,
    StackConfig,
    Theory,
    claim,
    figure,
    monotone_margin,
    subsets,
)
from attndepth.figures.style import PALETTE, new_figure
from attndepth.simulations.measures.escalation import escalation_trace
from attndepth.simulations.measures.fitting import escalation_layers, escalation_rates

# ---------------------------------------------------------------- the derivation
alpha, s, d = sp.symbols("alpha s d", positive=True)
k = 1 - 1 / d
MEAN = alpha**2 + k
RATE = sp.log(MEAN) - sp.log(alpha**2 + s**2 * k) - (4 * alpha**2 + 2) / (2 * d * MEAN**2)
deepnorm_rate = sp.lambdify((s, d, alpha), RATE, "math")
#: The rate's d → ∞, s → 0 limit, ln(1 + 1/α²): the rival a reader would reach for.
limit_rate = sp.lambdify(alpha, sp.limit(sp.limit(RATE, d, sp.oo), s, 0), "math")
#: The rate without the Jensen term: the naive finite-width formula.
naive_rate = sp.lambdify((s, d, alpha), sp.log(MEAN) - sp.log(alpha**2 + s**2 * k), "math")

TOLERANCE = 0.02  # relative error of the slope, chosen before measuring
DIRECTION = "decreasing"  # the relation: the rate decreases in α


def depth_for(skip_scale: float) -> int:
    """Enough blocks for the log-odds to cross the fit window [3, 50] at about the limit rate."""
    return math.ceil(60 / math.log(1 + 1 / skip_scale**2))


#: Weights one seed's stacks may hold at once (the toolkit refuses more than 2 GiB).
MAX_WEIGHTS = 2**28


def measure(seed: int, width: int, skip_scale: float, tokens: int, batch: int,
            rate=deepnorm_rate) -> dict:
    """Slopes of the stacks (one each), their mean, and the derived ``rate`` with the
    realised s.

    Wide, deep stacks run fewer stacks a seed (at least 2) so their weights fit in memory.
    """
    depth = depth_for(skip_scale)
    batch = max(2, min(batch, MAX_WEIGHTS // (4 * depth * width**2)))
    config = StackConfig(variant="post-ln", skip_scale=skip_scale, depth=depth,
                         tokens=tokens, width=width)
    trace = escalation_trace(config, batch, seed)
    layers = escalation_layers(trace.log_odds)
    slopes = escalation_rates(trace.log_odds)
    s_window = np.sqrt(np.median(trace.contraction, axis=1)[layers[:-1]])
    predicted = float(np.mean([rate(float(v), width, skip_scale) for v in s_window]))
    naive = float(np.mean([naive_rate(float(v), width, skip_scale) for v in s_window]))
    return {"slope": float(slopes.mean()), "predicted": predicted, "naive": naive,
            "standard_error": float(slopes.std(ddof=1) / math.sqrt(batch)),
            "window": [int(layers[0]), int(layers[-1])], "stacks": batch}


# ---------------------------------------------------------------- the number
@claim("mine.deepnorm-rate", source="docs/tutorial.md, the derivation",
       statement="DeepNorm post-LN log-odds grow at rate(α) = ln(α² + k) − ln(α² + s²k) − "
                 "(4α² + 2)/(2d(α² + k)²) per layer.",
       presets={"quick": {"width": 64, "alpha": 2.0}, "full": {"width": 128, "alpha": 3.0}},
       # the derivation's domain is every width and α > 0; the search checks these
       family=Family(parameters={"width": (32, 64), "alpha": (1.5, 2.0, 3.0)},
                     beyond={"width": (16, 128), "alpha": (1.0, 4.0)},
                     fixed={"tokens": 16, "batch": 16}),
       estimate=Estimate("slope", "predicted", (-TOLERANCE, TOLERANCE), seeds=(4, 16),
                         label="rel. error of the slope"),
       rivals=(Rival("ln(1 + 1/α²)", "the derivation's d → ∞, s → 0 limit",
                     predicted=lambda values, params: limit_rate(params["alpha"])),
               Rival("no Jensen term", "ln(α² + k) − ln(α² + s²k): the naive finite-width rate",
                     predicted=lambda values, params: values["naive"])),
       theory=Theory(deepnorm_rate=deepnorm_rate),
       # the wrong theory forgets α: the plain post-LN rate (the derivation at α = 1)
       wrong_theory={"deepnorm_rate": lambda s, d, alpha, rate=deepnorm_rate: rate(s, d, 1.0)},
       figure="mine.deepnorm-rate")
def verify_rate(seed: int, theory: Theory, width: int, alpha: float, tokens: int = 16,
                batch: int = 16) -> Outcome:
    """Mean slope over the stacks of one seed against the derived rate."""
    m = measure(seed, width, alpha, tokens, batch, theory.deepnorm_rate)
    error = m["slope"] / m["predicted"] - 1
    return Outcome(f"slope {m['predicted']:.4f}",
                   f"slope {m['slope']:.4f} ± {m['standard_error']:.4f} ({error:+.2%})",
                   note=f"d={width}, α={alpha}, {m['stacks']} stacks, fit window layers "
                        f"{m['window']}",
                   values=m)


# ---------------------------------------------------------------- the relation
@claim("mine.deepnorm-slows", source="docs/tutorial.md, the derivation",
       statement="A larger skip scale α makes post-LN similarity escalate more slowly.",
       presets={"quick": {"alphas": (1.0, 1.5, 2.0)}, "full": {"alphas": (1.0, 2.0, 3.0)}},
       family=Family(parameters={"alphas": subsets((1.0, 1.5, 2.0, 3.0), 3)},
                     beyond={"alphas": tuple(set_ for set_ in subsets((1.0, 1.5, 2.0, 3.0, 4.0),
                                                                      3) if 4.0 in set_)},
                     fixed={"width": 32, "tokens": 16, "batch": 8}),
       estimate=Estimate("margin", "zero", (0.0, math.inf), relative=False, seeds=(4, 8),
                         label="smallest relative step of the slope"),
       theory=Theory(DIRECTION=DIRECTION), wrong_theory={"DIRECTION": "increasing"})
def verify_slows(seed: int, theory: Theory, alphas, width: int = 32, tokens: int = 16,
                 batch: int = 8) -> Outcome:
    """Slopes at every α of the set and their smallest relative step (the estimate: the
    relation holds when every step is a decrease)."""
    slopes = [measure(seed, width, float(a), tokens, batch)["slope"] for a in alphas]
    margin = monotone_margin(alphas, slopes, theory.DIRECTION, relative=True)
    return Outcome(f"slopes {theory.DIRECTION} in α over {list(alphas)}",
                   "slopes " + ", ".join(f"{v:.3f}" for v in slopes),
                   values={"margin": margin, "zero": 0.0, "slopes": slopes})


# ---------------------------------------------------------------- the figure
def draw(data: dict[str, list]):
    """Left: slopes (mean ± 2 SE) against α with the derived rate and the limit rival.
    Right: each relative to the derived rate, with the claim's tolerance band."""
    fig, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    alphas, slope = np.asarray(data["alpha"]), np.asarray(data["slope"])
    predicted, error = np.asarray(data["predicted"]), 2 * np.asarray(data["standard_error"])
    left.errorbar(alphas, slope, yerr=error, fmt="o", color=PALETTE[0],
                  label="measured (mean ± 2 SE)")
    left.plot(alphas, predicted, "-", color=PALETTE[1], label="derived rate")
    left.plot(alphas, data["limit"], ":", color=PALETTE[2], label=r"$\ln(1 + 1/\alpha^2)$")
    left.set_xlabel(r"skip scale $\alpha$")
    left.set_ylabel("log-odds slope per layer")
    left.legend()
    right.axhspan(-100 * TOLERANCE, 100 * TOLERANCE, color="0.9", label="tolerance")
    right.axhline(0, color=PALETTE[1], lw=1)
    right.errorbar(alphas, 100 * (slope / predicted - 1), yerr=100 * error / predicted,
                   fmt="o", color=PALETTE[0], label="measured")
    right.plot(alphas, 100 * (np.asarray(data["limit"]) / predicted - 1), ":",
               color=PALETTE[2], label=r"$\ln(1 + 1/\alpha^2)$")
    right.set_xlabel(r"skip scale $\alpha$")
    right.set_ylabel("relative to the derived rate (%)")
    low, high = right.get_ylim()
    right.set_ylim(low, high + 0.35 * (high - low))  # room for the legend above the data
    right.legend(loc="upper left", ncol=3, fontsize="small")
    return fig


@figure("mine.deepnorm-rate", description="DeepNorm: log-odds slope against the skip scale α",
        draw=draw)
def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns alpha, slope, standard_error, predicted, limit at width 32 (quick) or 64."""
    width = 32 if preset == "quick" else 64
    columns: dict[str, list] = {key: [] for key in ("alpha", "slope", "standard_error",
                                                    "predicted", "limit")}
    for skip_scale in (1.0, 1.5, 2.0, 3.0):
        m = measure(seed, width, skip_scale, 16, 16)
        for key, value in (("alpha", skip_scale), ("slope", m["slope"]),
                           ("standard_error", m["standard_error"]),
                           ("predicted", m["predicted"]), ("limit", limit_rate(skip_scale))):
            columns[key].append(value)
    return columns
