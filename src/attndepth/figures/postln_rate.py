"""Post-LN log-odds against depth with the derived residual rate (theory document §3).

Draws the claims yuzhang.linear-rate-postln and yuzhang.deescalation with
their preset (``presets.POSTLN_RATE``), fit window and derived rate.
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import POSTLN_RATE
from attndepth.figures.style import (
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
    variant_colour,
    variant_name,
)
from attndepth.simulations.measures.escalation import escalation_trace
from attndepth.simulations.measures.fitting import ESCALATION_WINDOW
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.similarity import postln_rate

NAME = "postln_rate"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (3, 3)
DESCRIPTION = "post-LN and de-escalated log-odds vs depth, with the derived rates"
CURVES = (("post-ln", "post-ln", 1.0), ("post-ln-deesc-a", "deesc-a", 0.5),
          ("post-ln-deesc-b", "deesc-b", 0.5), ("pre-ln", None, 1.0))


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: curve, depth, median, q10, q90, predicted (derived line; nan where none)."""
    size = POSTLN_RATE[preset]
    columns: dict[str, list] = {k: [] for k in ("curve", "depth", "median", "q10", "q90",
                                                "predicted")}
    for variant, placement, tau in CURVES:
        config = StackConfig(variant=variant, depth=size["depth"], tokens=size["tokens"],
                             width=size["width"], tau=tau, sampling="law")
        trace = escalation_trace(config, size["batch"], seed)
        q10, median, q90 = np.quantile(trace.log_odds, [0.1, 0.5, 0.9], axis=1)
        predicted = np.full(median.shape, np.nan)
        if placement is not None:
            s = np.sqrt(np.median(trace.contraction, axis=1))
            steps = np.array([postln_rate(float(value), size["width"], placement, tau)
                              for value in s])
            aligned = median >= ESCALATION_WINDOW[0]
            start = int(np.argmax(aligned)) if aligned.any() else 0
            predicted[start:] = median[start] + np.concatenate([[0], np.cumsum(steps[start:])])
        label = f"{variant} (τ={tau:g})" if "deesc" in variant else variant
        for layer in range(median.size):
            for key, value in zip(columns, (label, layer, median[layer], q10[layer],
                                            q90[layer], predicted[layer]), strict=True):
                columns[key].append(float(value) if key != "curve" else value)
    return columns


#: The lowest log-odds shown (the top is the data's); a prediction is drawn only where it
#: lies inside the axes.
BOTTOM = -12.0


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=1.05)  # room for the legend below
    top = float(np.nanmax(data["q90"])) * 1.04
    limits = (BOTTOM, top)
    curve = np.array(data["curve"])
    with styled():
        for name in dict.fromkeys(data["curve"]):
            colour = variant_colour(name)
            rows = curve == name
            depth = np.array(data["depth"])[rows]
            axis.plot(depth, np.array(data["median"])[rows], color=colour,
                      label=variant_name(name))
            axis.fill_between(depth, np.array(data["q10"])[rows], np.array(data["q90"])[rows],
                              color=colour, alpha=0.2, linewidth=0)
            predicted = np.array(data["predicted"], dtype=float)[rows]
            # each prediction in its variant's colour, dotted, cut where it leaves the axes
            predicted[(predicted < limits[0]) | (predicted > limits[1])] = np.nan
            if np.isfinite(predicted).any():
                axis.plot(depth, predicted, ":", color=colour, linewidth=1.0)
        axis.set_ylim(*limits)
        axis.set_xlabel("depth $l$")
        axis.set_ylabel(r"log-odds $\ln(t_{\mathrm{sim}}/t_{\mathrm{div}})$")
        legend_with_keys(axis, [style_key("derived rate (post-LN variants)", linestyle=":",
                                    color="k", linewidth=1.0)])
    tidy(figure)
    return figure
