"""How far a pre-LN stack moves its input at initialisation, against depth, per scheme.

Draws the claim dey.depth-scaled-residuals (Dey et al. 2025; Yang et al. 2023): the
displacement D = ‖h_L − h_0‖²/‖h_0‖² (mean over stacks, bars its 99 % interval)
against the depth L on log-log axes for branches scaled by L^(−α) — CompleteP (α = 1),
depth-µP (α = ½), none (α = 0) — and by GPT-2's 1/√(2L). Dashed lines: the law's slope
1 − 2α through each scheme's first point (the law gives the exponent, not the
constant); α = 0 lies outside the law and has none.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import DEPTH_SCALING
from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    interval_half_width,
    new_figure,
    styled,
    tidy,
)
from attndepth.simulations.measures.displacement import stream_displacement
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.depth_scaling import branch_scale, displacement_exponent

NAME = "depth_scaling"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 5)
DESCRIPTION = "stream displacement vs depth for CompleteP, depth-muP, SP and GPT-2 scalings"
#: The depths drawn; every other size is the claim's (``presets.DEPTH_SCALING``).
DEPTHS = {"quick": (4, 8, 16, 32, 64), "full": (4, 8, 16, 32, 64, 128)}
#: The schemes drawn: name -> (α of the law or None, the branch scale at depth L).
DRAWN: dict[str, tuple[float | None, str]] = {
    "CompleteP": (1.0, r"$L^{-1}$"), "depth-muP": (0.5, r"$L^{-1/2}$"),
    "GPT-2": (0.5, r"$1/\sqrt{2L}$"), "SP": (None, "1")}


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: scheme, depth, measured (mean D), error (its standard error), predicted
    (the law through the scheme's first point; NaN for SP), and the sizes tokens, width,
    batch."""
    size = DEPTH_SCALING[preset]
    columns: dict[str, list] = {k: [] for k in ("scheme", "depth", "measured", "error",
                                                "predicted", "tokens", "width", "batch")}
    for name, (alpha, _) in DRAWN.items():
        first = math.nan
        for depth in DEPTHS[preset]:
            config = StackConfig(variant="pre-ln", depth=depth, tokens=size["tokens"],
                                 width=size["width"], ffn=size["ffn"],
                                 residual_scale=branch_scale(name, depth), sampling="law")
            moved = stream_displacement(config, size["batch"], seed)
            mean = float(moved.mean())
            first = mean if math.isnan(first) else first
            predicted = (math.nan if alpha is None else first * (
                depth / DEPTHS[preset][0]) ** displacement_exponent(alpha))
            row = (name, depth, mean, float(moved.std(ddof=1) / math.sqrt(moved.size)),
                   predicted, size["tokens"], size["width"], size["batch"])
            for key, value in zip(columns, row, strict=True):
                columns[key].append(value)
    return columns


def draw(data: dict[str, list]):
    figure, axes = new_figure(columns=1, aspect=1.15)  # room for the legend below
    scheme = np.array(data["scheme"])
    depth = np.array(data["depth"], dtype=float)
    measured, error = (np.array(data[k], dtype=float) for k in ("measured", "error"))
    predicted = np.array(data["predicted"], dtype=float)
    bars = interval_half_width(error, np.array(data["batch"], dtype=float))
    with styled():
        for colour, (name, (alpha, scale)) in zip(PALETTE, DRAWN.items(), strict=False):
            rows = scheme == name
            law = "" if alpha is None else rf", slope ${displacement_exponent(alpha):+g}$"
            axes.errorbar(depth[rows], measured[rows], yerr=bars[rows], fmt="o",
                          color=colour, markersize=3.5, elinewidth=0.6, capsize=1.5,
                          label=f"{name}: branch × {scale}{law}")
            if alpha is not None:
                axes.plot(depth[rows], predicted[rows], "--", color=colour, linewidth=0.8)
            else:  # the law's slope at α = 0, outside its domain: how far SP departs
                axes.plot(depth[rows], measured[rows][0] * depth[rows] / depth[rows][0], ":",
                          color="0.5", linewidth=0.8,
                          label=r"slope $+1$ (the law at $\alpha=0$, outside it)")
        axes.plot([], [], "--", color="0.3", linewidth=0.8,
                  label=r"the law: slope $1-2\alpha$ through the first point")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        depths = sorted(set(depth))
        axes.set_xticks(depths, [f"{d:g}" for d in depths])
        axes.minorticks_off()
        axes.set_xlabel("depth $L$")
        axes.set_ylabel(r"$\|h_L - h_0\|^2 / \|h_0\|^2$")
        tokens, width, batch = (int(data[k][0]) for k in ("tokens", "width", "batch"))
        axes.set_title(f"pre-LN + FFN at initialisation\nn = {tokens}, d = {width}, "
                       f"{batch} stacks a point, {INTERVAL_TEXT}", fontsize=6)
        axes.legend(loc="upper left")  # where it covers no point, else below (tidy)
    tidy(figure)
    return figure
