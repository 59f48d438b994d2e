"""log t_div vs depth for a fixed attention matrix, with the predicted 2·log|λ₂| slopes.

Yu & Zhang 2023 (spectral gaps set the linear rate); THEORY §3 [derived].
"""

from __future__ import annotations

import numpy as np
from attndepth.figures.style import PALETTE, new_figure, styled
from attndepth.simulations.escalation import fixed_matrix_decay

NAME = "fixed_rate"
DESCRIPTION = "log t_div for X <- P X with one P, and slopes 2 log|lambda_2| (dashed)"
SIZES = {"quick": dict(tokens=12, width=16, depth=40, batch=5, temperature=0.5),
         "full": dict(tokens=32, width=64, depth=120, batch=6, temperature=0.5)}


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: stack, depth, log_t_div (natural log, floored), predicted_slope."""
    size = SIZES[preset]
    decay = fixed_matrix_decay(size["tokens"], size["width"], size["depth"], size["batch"],
                               seed, size["temperature"])
    log_div = np.log(np.maximum(decay.diversity, np.finfo(float).tiny))
    columns: dict[str, list] = {"stack": [], "depth": [], "log_t_div": [], "predicted_slope": []}
    for k in range(size["batch"]):
        for layer, value in enumerate(log_div[:, k]):
            columns["stack"].append(k)
            columns["depth"].append(layer)
            columns["log_t_div"].append(float(value))
            columns["predicted_slope"].append(float(2 * np.log(decay.lambda2[k])))
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.8)
    stack, depth = np.array(data["stack"]), np.array(data["depth"])
    value, slope = np.array(data["log_t_div"]), np.array(data["predicted_slope"])
    with styled():
        for colour, k in zip(PALETTE, sorted(set(stack)), strict=False):
            rows = (stack == k) & (value > np.log(1e-30))
            axis.plot(depth[rows], value[rows] / np.log(10), color=colour)
            anchor = np.flatnonzero(rows)[min(5, rows.sum() - 1)]
            line = value[anchor] + slope[anchor] * (depth[rows] - depth[anchor])
            axis.plot(depth[rows], line / np.log(10), "--", color=colour, linewidth=0.8)
        axis.axhline(-24, color="0.6", linewidth=0.6)
        axis.set_xlabel("depth $l$ (same $P$ every layer)")
        axis.set_ylabel(r"$\log_{10} t_{\mathrm{div}}$")
        axis.set_title(r"solid: measured; dashed: slope $2\log|\lambda_2(P)|$", fontsize=7)
    return figure
