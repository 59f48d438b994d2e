"""Optimal depth vs parameter budget (Levine et al. 2020, §5; docs/theory.md §2).

The empirical rule's L_opt(N) with the band its fit's slope b spans at ±10 % (the
rivals ``attndepth verify`` tests the allocation claims against), the theoretical
threshold log_3 d_opt(N) at the same budget (a minimal depth, far below the empirical
optimum), and the model zoo at its published (parameters, layers). A model's label sits
on the side of its point away from the curve, so that no label covers it.
"""

from __future__ import annotations

import numpy as np

from attndepth.figures.style import PALETTE, new_figure, separate_labels, styled, tidy
from attndepth.theory.depth_width import (
    DEFAULT_FIT,
    AllocationFit,
    optimal_depth,
    optimal_width,
    parameter_count,
    threshold_depth,
)
from attndepth.theory.zoo import load_zoo

NAME = "allocation"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (2, 1)
DESCRIPTION = "optimal depth vs budget: empirical rule, log_3 d threshold, model zoo"
BUDGET_RANGE = (1e7, 1e13)
#: The factors on the fit's slope b that bound the drawn band (the verdicts' rivals).
SLOPE_FACTORS = (0.9, 1.1)


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: kind (rule / model), label, params, depth, threshold_depth, and the
    depths with the fit's slope b × 0.9 and × 1.1 (``band_low``, ``band_high``; NaN for
    models).

    Models are placed at 12·L·d² (the rule's own parameter convention), and
    models of the same shape share one labelled point.
    """
    points = 200 if preset == "full" else 60
    budgets = np.logspace(np.log10(BUDGET_RANGE[0]), np.log10(BUDGET_RANGE[1]), points)
    depths = [optimal_depth(n) for n in budgets]
    thresholds = [threshold_depth(optimal_width(L)) for L in depths]
    band = [[optimal_depth(n, AllocationFit(DEFAULT_FIT.intercept, DEFAULT_FIT.slope * f))
             for n in budgets] for f in SLOPE_FACTORS]
    shapes: dict[tuple[int, int], list[str]] = {}
    for model in load_zoo():
        shapes.setdefault((model.layers, model.width), []).append(model.name)
    return {
        "kind": ["rule"] * points + ["model"] * len(shapes),
        "label": [""] * points + [" / ".join(names) for names in shapes.values()],
        "params": budgets.tolist() + [parameter_count(L, d) for L, d in shapes],
        "depth": depths + [float(L) for L, _ in shapes],
        "threshold_depth": thresholds + [threshold_depth(d) for _, d in shapes],
        # a larger slope b gives a shallower optimum: the band's low edge is b × 1.1
        "band_low": band[1] + [float("nan")] * len(shapes),
        "band_high": band[0] + [float("nan")] * len(shapes),
    }


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=2, aspect=0.45)
    kind = np.array(data["kind"])
    params, depth = np.array(data["params"]), np.array(data["depth"])
    threshold = np.array(data["threshold_depth"])
    rule = kind == "rule"
    with styled():
        axis.plot(params[rule], depth[rule], color=PALETTE[0],
                  label=r"empirical optimum: $12L\,e^{2(a+bL)} = N$")
        axis.fill_between(params[rule], np.array(data["band_low"])[rule],
                          np.array(data["band_high"])[rule], color=PALETTE[0], alpha=0.15,
                          linewidth=0, label=r"its fit's slope $b \pm 10\,\%$ (the rivals)")
        axis.plot(params[rule], threshold[rule], color=PALETTE[1], linestyle="--",
                  label=r"threshold $\log_3 d_{\mathrm{opt}}(N)$")
        models = ~rule
        axis.scatter(params[models], depth[models], s=10, color=PALETTE[7], zorder=3,
                     label="published models")
        labelled = sorted(zip(params[models], depth[models], np.array(data["label"])[models],
                              strict=True))
        curve = np.interp(np.log(params[models]), np.log(params[rule]), depth[rule])
        above = dict(zip(params[models], depth[models] > curve, strict=True))
        texts = []
        for x, y, text in labelled:
            # the side away from the curve: left of a point above it, right of one below
            # (the curve rises); separate_labels removes what still overlaps
            offset, align = ((-3, 1), "right") if above[x] else ((3, -1), "left")
            texts.append(axis.annotate(text, (x, y), textcoords="offset points", xytext=offset,
                                       fontsize=5.5, ha=align, va="center", zorder=4,
                                       bbox=dict(boxstyle="square,pad=0.1", fc="white",
                                                 ec="none", alpha=0.85)))
        axis.set_xscale("log")
        axis.set_xlabel(r"non-embedding parameters $N = 12Ld^2$")
        axis.set_ylabel("depth $L$ (layers)")
        axis.set_ylim(0, None)
        axis.legend(loc="upper left")
        separate_labels(figure, texts)
    tidy(figure)
    return figure
