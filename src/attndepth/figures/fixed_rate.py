"""log t_div vs depth for a fixed attention matrix, with the predicted 2·log|λ₂| slopes.

Draws the claim yuzhang.linear-rate-fixed (Yu & Zhang 2023, §3; rate derived
in :func:`attndepth.theory.similarity.fixed_matrix_rate`) with its preset
``presets.FIXED_MATRIX``; the first :data:`SHOWN` stacks are drawn.
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import FIXED_MATRIX
from attndepth.figures.style import (
    PALETTE,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.escalation import fixed_matrix_decay
from attndepth.theory.similarity import fixed_matrix_slope

NAME = "fixed_rate"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (3, 2)
DESCRIPTION = "log t_div for X <- P X with one P, and slopes 2 log|lambda_2| (dashed)"
#: Stacks drawn (of the claim's batch): more lines would not be told apart.
SHOWN = 5
#: Where the drawn curves stop: float64 round-off of t_div.
FLOOR = 1e-24
#: The layer the claim's fit starts at (its presets' ``skip``): each line is anchored there.
FIT_FROM = FIXED_MATRIX["quick"]["skip"]


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: stack, lambda2, depth, log_t_div (natural log, floored), predicted_slope."""
    size = FIXED_MATRIX[preset]
    decay = fixed_matrix_decay(size["tokens"], size["width"], size["depth"], size["batch"],
                               seed, size["temperature"])
    log_div = np.log(np.maximum(decay.diversity, np.finfo(float).tiny))
    columns: dict[str, list] = {"stack": [], "lambda2": [], "depth": [], "log_t_div": [],
                                "predicted_slope": []}
    for k in range(min(SHOWN, size["batch"])):
        slope = fixed_matrix_slope(float(decay.lambda2[k]))
        for layer, value in enumerate(log_div[:, k]):
            columns["stack"].append(k)
            columns["lambda2"].append(float(decay.lambda2[k]))
            columns["depth"].append(layer)
            columns["log_t_div"].append(float(value))
            columns["predicted_slope"].append(slope)
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.8)
    stack, depth = np.array(data["stack"]), np.array(data["depth"])
    value, slope = np.array(data["log_t_div"]), np.array(data["predicted_slope"])
    lambda2 = np.array(data["lambda2"])
    order = sorted(set(stack.tolist()), key=lambda k: lambda2[stack == k][0])
    with styled():
        for colour, k in zip(PALETTE, order, strict=False):
            rows = (stack == k) & (value > np.log(FLOOR))
            # measured as markers (every third layer), the prediction as a line over them
            axis.plot(depth[rows][::3], value[rows][::3] / np.log(10), "o", color=colour,
                      markersize=2.5, markerfacecolor="none", markeredgewidth=0.7,
                      label=rf"$|\lambda_2| = {lambda2[stack == k][0]:.2f}$")
            anchor = np.flatnonzero(rows)[min(FIT_FROM, rows.sum() - 1)]
            line = value[anchor] + slope[anchor] * (depth[rows] - depth[anchor])
            axis.plot(depth[rows], line / np.log(10), "-", color=colour, linewidth=0.9,
                      zorder=3)
        axis.axhline(np.log10(FLOOR), color="0.6", linewidth=0.6)
        axis.annotate("floor: no fit below", (0.0, np.log10(FLOOR)), textcoords="offset points",
                      xytext=(2, 2), fontsize=6, color="0.4")
        axis.set_xlabel("depth $l$ (same $P$ every layer)")
        axis.set_ylabel(r"$\log_{10} t_{\mathrm{div}}$")
        axis.legend(title="one $P$ each")
        legend_with_keys(axis, [style_key("measured", color="0.3", marker="o",
                                          linestyle="none", markerfacecolor="none",
                                          markersize=2.5),
                                style_key(r"slope $2\log|\lambda_2(P)|$", color="0.3")],
                         separate=True, loc="lower right", bbox_to_anchor=(1.0, 0.17))
    tidy(figure)
    return figure
