"""One attention layer as a map of token overlaps, and how slowly it reaches its limit.

Draws the claim giorlandino.correlation-map (Giorlandino & Goldt 2025). Left:
the excess (q′ − p)/(q − p) = E Y₂ against β/β_c for two overlaps p: markers
are wide random layers (T = 256, d = 1024), the dashed line the random energy
model at the same T (quadrature), the solid line the reported T → ∞ map
(1 − β_c/β)₊. Right: the REM participation against ln T up to T = 1e300 for
three β/β_c, converging to the map (dotted levels).
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import GIORLANDINO
from attndepth.figures.style import (
    PALETTE,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.fitting import standard_error
from attndepth.simulations.measures.rem import rem_participation, wide_layer_map
from attndepth.theory.correlation_map import critical_beta, energy_scale, limit_participation

NAME = "giorlandino_correlation_map"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 8)
DESCRIPTION = "one-layer correlation map: wide layers, finite-T REM and the T -> infinity map"
#: The ratios β/β_c drawn, at the claim's tokens, samples and widest width
#: (``presets.GIORLANDINO``).
RATIOS = {"quick": (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0),
          "full": (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0)}
#: Overlaps drawn: orthogonal tokens and the claim's overlap.
OVERLAPS = (0.0, GIORLANDINO["quick"]["overlap"])
LOG_TOKENS = (2.0, 4.0, 16.0, 64.0, 256.0, 690.0)
CONVERGENCE_RATIOS = (1.0, 2.0, 4.0)


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: panel, overlap, ratio, x (β/β_c or ln T), layer, layer_error, rem, limit."""
    claim = GIORLANDINO[preset]
    size = dict(tokens=claim["tokens"], width=max(claim["widths"]), samples=claim["samples"],
                ratios=RATIOS[preset])
    columns: dict[str, list] = {k: [] for k in ("panel", "overlap", "ratio", "x", "layer",
                                                "layer_error", "rem", "limit")}

    def add(*row):
        for key, item in zip(columns, row, strict=True):
            columns[key].append(item)

    T = size["tokens"]
    # λ = (β/β_c)·√(2 ln T) whatever p: one quadrature per ratio
    finite = {ratio: rem_participation(T, ratio * math.sqrt(2 * math.log(T)))
              for ratio in size["ratios"]}
    for p in OVERLAPS:
        for ratio in size["ratios"]:
            beta = ratio * critical_beta(p)
            assert math.isclose(energy_scale(p, beta, T), ratio * math.sqrt(2 * math.log(T)))
            layer = wide_layer_map(T, size["width"], p, beta, seed, size["samples"])
            error = standard_error(layer.excess)
            add("map", p, ratio, ratio, float(layer.excess.mean()), error, finite[ratio],
                limit_participation(p, beta))
    for ratio in CONVERGENCE_RATIOS:
        for log_tokens in LOG_TOKENS:
            scale = ratio * math.sqrt(2 * log_tokens)  # λ = (β/β_c)·√(2 ln T), any p
            add("convergence", float("nan"), ratio, log_tokens, float("nan"), float("nan"),
                rem_participation(math.exp(log_tokens), scale), max(0.0, 1 - 1 / ratio))
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    panel = np.array(data["panel"])
    overlap, ratio = np.array(data["overlap"], dtype=float), np.array(data["ratio"], dtype=float)
    x = np.array(data["x"], dtype=float)
    layer, error = np.array(data["layer"], dtype=float), np.array(data["layer_error"], dtype=float)
    rem, limit = np.array(data["rem"], dtype=float), np.array(data["limit"], dtype=float)
    with styled():
        fine = np.linspace(0.2, x[panel == "map"].max(), 200)
        left.plot(fine, np.maximum(0, 1 - 1 / fine), color="k", label=r"$(1-\beta_c/\beta)_+$")
        rows = (panel == "map") & (overlap == OVERLAPS[0])
        left.plot(x[rows], rem[rows], "--", color="0.45", linewidth=0.9,
                  label="random-energy model, $T=256$ (any $p$)")
        # the overlaps' points nearly coincide: each is shifted a little sideways
        shifts = np.linspace(-0.04, 0.04, len(OVERLAPS)) if len(OVERLAPS) > 1 else [0.0]
        for colour, p, shift in zip(PALETTE, OVERLAPS, shifts, strict=False):
            rows = (panel == "map") & (overlap == p)
            left.errorbar(x[rows] + shift, layer[rows], yerr=error[rows], fmt="o",
                          color=colour, markerfacecolor="none", markersize=3,
                          elinewidth=0.8, capsize=1.5, zorder=3,
                          label=f"layers ($d = 1024$), $p={p:g}$")
        left.axvline(1.0, color="0.6", linewidth=0.6, linestyle=":")
        left.set_xlabel(r"$\beta/\beta_c$")
        left.set_ylabel(r"$(q'-p)/(q-p)$")
        left.legend(loc="lower right")
        for colour, value in zip(PALETTE[2:], CONVERGENCE_RATIOS, strict=False):
            rows = (panel == "convergence") & (ratio == value)
            right.semilogx(x[rows], rem[rows], "o-", color=colour, markersize=3, linewidth=0.8,
                           label=rf"$\beta/\beta_c={value:g}$")
            right.axhline(limit[rows][0], color=colour, linestyle=":", linewidth=0.8)
        right.set_xlabel("tokens $T$")
        right.set_ylabel("participation $\\mathbb{E}\\,Y_2$\n(random-energy model)")
        legend_with_keys(right, [style_key(r"limit $T \to \infty$ (the map)", color="0.3",
                                     linestyle=":", linewidth=0.8)])
    tidy(figure)
    return figure
