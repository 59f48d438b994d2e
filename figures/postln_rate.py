"""Post-LN log-odds against depth with the derived residual rate (THEORY §3 [derived])."""

from __future__ import annotations

import numpy as np
import sympy as sp
from attndepth.figures.style import PALETTE, new_figure, styled
from attndepth.simulations.escalation import escalation_trace
from attndepth.simulations.stacks import StackConfig
from attndepth.theory.similarity import postln_rate_expression, s_realised, width_symbol

NAME = "postln_rate"
DESCRIPTION = "post-LN and de-escalated log-odds vs depth, with the derived rates"
SIZES = {"quick": dict(depth=96, tokens=16, width=64, batch=8),
         "full": dict(depth=128, tokens=32, width=128, batch=32)}
CURVES = (("post-ln", "post-ln", 1.0), ("post-ln-deesc-a", "deesc-a", 0.5),
          ("post-ln-deesc-b", "deesc-b", 0.5), ("pre-ln", None, 1.0))


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: curve, depth, median, q10, q90, predicted (derived line; nan where none)."""
    size = SIZES[preset]
    columns: dict[str, list] = {k: [] for k in ("curve", "depth", "median", "q10", "q90",
                                                "predicted")}
    for variant, placement, tau in CURVES:
        config = StackConfig(variant=variant, depth=size["depth"], tokens=size["tokens"],
                             width=size["width"], tau=tau)
        trace = escalation_trace(config, size["batch"], seed)
        q10, median, q90 = np.quantile(trace.log_odds, [0.1, 0.5, 0.9], axis=1)
        predicted = np.full(median.shape, np.nan)
        if placement is not None:
            rate = sp.lambdify((s_realised, width_symbol),
                               postln_rate_expression(placement, sp.Float(tau)))
            s = np.sqrt(np.median(trace.contraction, axis=1))
            steps = np.array([rate(value, size["width"]) for value in s])
            start = int(np.argmax(median >= 3.0)) if np.any(median >= 3.0) else 0
            predicted[start:] = median[start] + np.concatenate([[0], np.cumsum(steps[start:])])
        label = f"{variant} (τ={tau:g})" if "deesc" in variant else variant
        for layer in range(median.size):
            for key, value in zip(columns, (label, layer, median[layer], q10[layer],
                                            q90[layer], predicted[layer]), strict=True):
                columns[key].append(float(value) if key != "curve" else value)
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.8)
    curve = np.array(data["curve"])
    with styled():
        for colour, name in zip(PALETTE, dict.fromkeys(data["curve"]), strict=False):
            rows = curve == name
            depth = np.array(data["depth"])[rows]
            axis.plot(depth, np.array(data["median"])[rows], color=colour, label=name)
            axis.fill_between(depth, np.array(data["q10"])[rows], np.array(data["q90"])[rows],
                              color=colour, alpha=0.2, linewidth=0)
            predicted = np.array(data["predicted"])[rows]
            if np.isfinite(predicted).any():
                axis.plot(depth, predicted, ":", color="k", linewidth=0.8)
        axis.set_ylim(-12, 60)
        axis.set_xlabel("depth $l$")
        axis.set_ylabel(r"log-odds $\ln(t_{\mathrm{sim}}/t_{\mathrm{div}})$")
        axis.set_title("dotted: derived rate from the first aligned layer", fontsize=7)
        axis.legend(frameon=False, fontsize=6)
    return figure
