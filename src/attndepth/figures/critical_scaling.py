"""Critical attention scaling: the half point of one attention layer against n.

Draws the claim chen.critical-scaling (Chen et al. 2025, arXiv 2510.05554): unit tokens
near a simplex of overlap ρ, scores β⟨y_i, y_j⟩. (a) γ_½/γ_c = β_½(1 − ρ)/ln n, where a
token's self weight is ½ (mean over tokens: at least the claim's count at every n, in 8
sets or more), against the sequence length n from the claim's shortest, for three
overlaps at d = 64 (filled) and d = 256 (open); solid and dotted: the finite-d formula;
dashed: the paper's limit, ln(n − 1)/ln n for every ρ.
(b) The mean self weight against γ = β/ln n at ρ = ½, d = 256, for three lengths: the
transition sharpens around γ_c = 2 as n grows.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import CRITICAL_SCALING
from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    interval_half_width,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.self_weight import (
    half_points,
    near_simplex_tokens,
    self_weights,
)
from attndepth.theory.attention_scaling import bare_half_point, critical_gamma, half_point

NAME = "critical_scaling"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 7)
DESCRIPTION = "half point of one attention layer vs sequence length; self weight vs gamma"
OVERLAPS = (0.25, 0.5, 0.75)
WIDTHS = (64, 256)
#: Panel (b): its overlap, width and lengths, and the γ grid.
CURVE_OVERLAP, CURVE_WIDTH, CURVE_LENGTHS = 0.5, 256, (16, 128, 1024)
#: Fewest token sets a point: its interval is a t-interval over the sets (over the
#: claim's 2 sets of the longest sequence, t with one degree of freedom is 64).
MIN_SETS = 8
GAMMAS = np.linspace(1.0, 3.0, 21)


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns per row: panel ("a" or "b"), overlap, width, tokens, x (n or γ), measured
    (γ_½/γ_c or the mean self weight), error (standard error over the sets), formula and
    limit (panel a; NaN in b), and the claim's batch."""
    size = CRITICAL_SCALING[preset]
    largest = size["largest"]
    # powers of two from the claim's shortest sequence (where ln(n − 1) and ln n part)
    lengths = [2**k for k in range(int(math.log2(size["smallest"])),
                                   int(math.log2(largest)) + 1)]
    columns: dict[str, list] = {k: [] for k in (
        "panel", "overlap", "width", "tokens", "x", "measured", "error", "formula", "limit",
        "sets", "batch")}

    def add(*row) -> None:  # the row, then the claim's batch
        for key, value in zip(columns, (*row, size["batch"]), strict=True):
            columns[key].append(value)

    for width in WIDTHS:
        for overlap in OVERLAPS:
            for n in lengths:
                sets = max(MIN_SETS, size["batch"] * largest // n)
                scale = critical_gamma(overlap) * math.log(n)  # β_½ → γ_½/γ_c
                per_set = half_points(near_simplex_tokens(n, width, overlap, sets,
                                                          seed)).mean(axis=1) / scale
                add("a", overlap, width, n, n, float(per_set.mean()),
                    float(per_set.std(ddof=1) / math.sqrt(sets)),
                    half_point(overlap, n, width) / scale, bare_half_point(overlap, n) / scale,
                    sets)
    for n in CURVE_LENGTHS:
        sets = max(MIN_SETS, size["batch"] * max(CURVE_LENGTHS) // n)
        Y = near_simplex_tokens(n, CURVE_WIDTH, CURVE_OVERLAP, sets, seed)
        for gamma in GAMMAS:
            weights = self_weights(Y, float(gamma * math.log(n))).mean(axis=1)
            add("b", CURVE_OVERLAP, CURVE_WIDTH, n, float(gamma), float(weights.mean()),
                float(weights.std(ddof=1) / math.sqrt(sets)), math.nan, math.nan, sets)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    array = {k: np.array(v) for k, v in data.items()}
    array["error"] = interval_half_width(array["error"].astype(float),
                                         array["sets"].astype(float))
    with styled():
        for colour, overlap in zip(PALETTE, OVERLAPS, strict=False):
            for width, face, line in zip(WIDTHS, (colour, "white"), ("-", ":"), strict=True):
                rows = ((array["panel"] == "a") & (array["overlap"] == overlap)
                        & (array["width"] == width))
                n = array["x"][rows].astype(float)
                left.errorbar(n, array["measured"][rows].astype(float),
                              yerr=array["error"][rows].astype(float), fmt="o",
                              color=colour, markerfacecolor=face, markersize=3,
                              elinewidth=0.6, capsize=1.2,
                              label=rf"$\rho = {overlap:g}$" if width == WIDTHS[0] else None)
                left.plot(n, array["formula"][rows].astype(float), line, color=colour,
                          linewidth=0.8)
        rows = (array["panel"] == "a") & (array["overlap"] == OVERLAPS[0]) & (
            array["width"] == WIDTHS[0])
        n = array["x"][rows].astype(float)
        left.plot(n, array["limit"][rows].astype(float), "--", color="0.3", linewidth=0.7)
        legend_with_keys(left, [
            style_key(f"d = {WIDTHS[0]}: measured, formula", color="0.3", marker="o",
                      linestyle="-", markersize=3, linewidth=0.8),
            style_key(f"d = {WIDTHS[1]}", color="0.3", marker="o", markerfacecolor="white",
                      linestyle=":", markersize=3, linewidth=0.8),
            style_key(r"the paper's limit $\ln(n-1)/\ln n$", color="0.3",
                      linestyle="--", linewidth=0.7)], loc="upper left", ncols=2)
        left.set_xscale("log", base=2)
        left.set_xticks(n, [f"{int(t)}" for t in n])
        left.minorticks_off()
        left.set_xlabel("tokens $n$")
        left.set_ylabel(r"$\gamma_{1/2}/\gamma_c = \beta_{1/2}(1-\rho)/\ln n$")

        for colour, n in zip(PALETTE[3:], CURVE_LENGTHS, strict=False):
            rows = (array["panel"] == "b") & (array["tokens"] == n)
            gamma = array["x"][rows].astype(float)
            right.errorbar(gamma, array["measured"][rows].astype(float),
                           yerr=array["error"][rows].astype(float), fmt="o-", color=colour,
                           markersize=2, linewidth=0.7, elinewidth=0.5, label=f"n = {n}")
        right.axvline(critical_gamma(CURVE_OVERLAP), color="0.4", linestyle="--",
                      linewidth=0.7, label=r"$\gamma_c = 1/(1-\rho)$")
        right.set_xlabel(r"$\gamma = \beta/\ln n$")
        right.set_ylabel("mean self weight")
        right.legend(loc="upper left")
        rows = array["panel"] == "a"
        counted = int(array["batch"][0]) * int(array["x"][rows].astype(float).max())
        left.set_title(f"near-simplex unit tokens, at least {counted} a point "
                       f"({MIN_SETS} sets or more); {INTERVAL_TEXT}",
                       fontsize=6)
        right.set_title(rf"$\rho = {CURVE_OVERLAP:g}$, d = {CURVE_WIDTH}",
                        fontsize=6)
    tidy(figure)
    return figure
