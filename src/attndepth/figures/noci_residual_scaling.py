"""Token alignment against depth for three residual scalings.

Draws the claim noci.residual-scaling (Noci et al. 2022). Left: growth of the
token log-odds over a whole stack of depth L, for α = 1, 1/√L and 1/L
(markers: residual stacks at temperature 10, i.e. near-uniform attention;
lines: the finite-width growth L[ln(1 + α²) − 2α²/(d(1 + α²))]); the α = 1
points at the default temperature 1 are drawn as crosses; bars: the 99 % interval
of the mean growth (the verdicts' level). Middle: the mean
pairwise cosine layer by layer in stacks of depth 64 for the three scalings.
Right: the finite-width term measured on its own — d times the Jensen gap
ln E r − E ln r of the per-block odds ratios (α = 1, the claim's depth) against
the width, with the coefficients of (**) (1), of a single value matrix (3/4) and
of a recursion without the gap (0).
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import NOCI
from attndepth.figures.style import (
    PALETTE,
    interval_half_width,
    legend_below,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.alignment import alignment_sample
from attndepth.simulations.measures.similarity import mean_pairwise_cosine
from attndepth.simulations.models.stacks import StackConfig, run_stack
from attndepth.theory.residual_scaling import (
    SCALINGS,
    finite_width_growth,
    finite_width_term,
    residual_scale,
)

NAME = "noci_residual_scaling"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 4)
DESCRIPTION = ("log-odds growth and cosine vs depth for residual scales 1, 1/sqrt(L), 1/L; the "
               "finite-width term (Jensen gap) vs width")
#: The depths drawn; every other size is the claim's (``presets.NOCI``).
DEPTHS = {"quick": (2, 4, 8, 16, 32, 64), "full": (2, 4, 8, 16, 32, 64, 128)}
PROFILE_DEPTH = 64
#: Widths of the Jensen-gap panel, and its stacks per width (one stack's d × gap scatters by
#: about 0.28: 64 stacks resolve ±0.1 at 99 %, under half the gap from 1 to 3/4).
JENSEN_WIDTHS = {"quick": (16, 32, 64), "full": (16, 32, 64, 128)}
JENSEN_STACKS = 64


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: panel, scaling, temperature, x (depth, layer or width), measured, error
    (standard error of the mean; NaN for the cosine), predicted, stacks (the sample's
    size)."""
    size = dict(NOCI[preset], depths=DEPTHS[preset])
    hot = size["temperature"]
    columns: dict[str, list] = {k: [] for k in ("panel", "scaling", "temperature", "x",
                                                "measured", "error", "predicted", "stacks")}

    def add(*row):
        for key, item in zip(columns, row, strict=True):
            columns[key].append(item)

    shape = dict(variant="residual", tokens=size["tokens"], width=size["width"],
                 sampling="law")
    for name in SCALINGS:
        for temperature in (hot, 1.0) if name == "1" else (hot,):
            for depth in size["depths"]:
                alpha = residual_scale(name, depth)
                config = StackConfig(depth=depth, temperature=temperature,
                                     residual_scale=alpha, **shape)
                sample = alignment_sample(config, size["batch"], seed)
                add("growth", name, temperature, depth, sample.mean_growth,
                    sample.growth_error, finite_width_growth(depth, alpha, size["width"]),
                    size["batch"])
        config = StackConfig(depth=PROFILE_DEPTH, temperature=hot,
                             residual_scale=residual_scale(name, PROFILE_DEPTH), **shape)
        cosine = mean_pairwise_cosine(run_stack(config, size["batch"], seed).states).mean(axis=1)
        for layer, value in enumerate(cosine):
            add("cosine", name, hot, layer, float(value), float("nan"), float("nan"),
                size["batch"])
    for width in JENSEN_WIDTHS[preset]:
        config = StackConfig(depth=NOCI[preset]["depths"][-1], temperature=hot,
                             **dict(shape, width=width))
        gap = width * alignment_sample(config, JENSEN_STACKS, seed).jensen_gap
        add("jensen", "1", hot, width, float(gap.mean()),
            float(gap.std(ddof=1) / np.sqrt(gap.size)), width * finite_width_term(1.0, width),
            JENSEN_STACKS)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right, term) = new_figure(columns=2, aspect=0.42, ncols=3)
    left.get_gridspec().set_width_ratios([1.5, 1, 1])  # room for the growth's legend
    panel, scaling = np.array(data["panel"]), np.array(data["scaling"])
    temperature = np.array(data["temperature"], dtype=float)
    x, measured = np.array(data["x"], dtype=float), np.array(data["measured"], dtype=float)
    predicted = np.array(data["predicted"], dtype=float)
    # 99 % Student-t intervals of the mean growth, the verdicts' level
    stacks = np.array(data["stacks"], dtype=float)
    error = interval_half_width(np.array(data["error"], dtype=float), stacks)
    hot = float(max(temperature))  # the claim's temperature; 1 is the departure shown
    labels = {"1": r"$\alpha=1$", "1/sqrt(L)": r"$\alpha=1/\sqrt{L}$", "1/L": r"$\alpha=1/L$"}
    with styled():
        for colour, name in zip(PALETTE, SCALINGS, strict=False):
            rows = (panel == "growth") & (scaling == name) & (temperature == hot)
            left.loglog(x[rows], predicted[rows], color=colour, label=labels[name])
            shown = np.maximum(measured[rows], 1e-3)
            # the 99 % interval of the mean growth; the lower bar stops above 0 (log axis)
            lower = np.minimum(error[rows], 0.9 * shown)
            left.errorbar(x[rows], shown, yerr=(lower, error[rows]), fmt="o", color=colour,
                          markerfacecolor="none", markersize=3.5, elinewidth=0.6, capsize=1.5)
            profile = (panel == "cosine") & (scaling == name)
            right.plot(x[profile], measured[profile], color=colour, label=labels[name])
        rows = (panel == "growth") & (scaling == "1") & (temperature == 1.0)
        # beside the circles of α = 1, not over them (a log axis: a factor, not a shift)
        left.loglog(x[rows] * 1.06, measured[rows], "x", color=PALETTE[0], markersize=4,
                    label=r"$\alpha=1$, temperature 1")
        depths = sorted(set(x[panel == "growth"]))
        left.set_xticks(depths, [f"{d:g}" for d in depths])
        left.minorticks_off()
        left.set_xlabel("depth $L$")
        left.set_ylabel(r"log-odds growth $\ell_L-\ell_0$")
        legend_with_keys(left, [
            style_key(r"$L[\ln(1+\alpha^2) - 2\alpha^2/(d(1+\alpha^2))]$", color="0.3"),
            style_key(rf"measured, temperature {hot:g} (99 %)", color="0.3",
                      marker="o", linestyle="none", markerfacecolor="none")])
        right.set_xlabel("depth $l$")
        right.set_ylabel("mean pairwise cosine")
        right.set_ylim(-0.05, 1.05)
        right.set_title(f"stacks of depth {PROFILE_DEPTH}, temperature {hot:g}",
                        fontsize=6.5)
        right.legend()
        rows = panel == "jensen"
        widths = x[rows]
        for level, text, style in ((1.0, "(**): 1", "-"), (0.75, "one value matrix: 3/4", "--"),
                                   (0.0, "no Jensen gap: 0", ":")):
            term.axhline(level, color="0.3", linestyle=style, linewidth=0.8, label=text)
        term.errorbar(widths, measured[rows], yerr=error[rows], fmt="o", color=PALETTE[0],
                      markerfacecolor="none", markersize=3.5, elinewidth=0.6, capsize=1.5,
                      label=r"$\alpha=1$, measured (99 %)")
        term.set_xscale("log", base=2)
        term.set_xticks(widths, [f"{w:g}" for w in widths])
        term.minorticks_off()
        term.set_ylim(-0.1, 1.25)
        term.set_xlabel("width $d$")
        term.set_ylabel(r"$d\times$ Jensen gap per block")
        term.set_title(rf"$\alpha=1$, {int(stacks[rows][0])} stacks a width", fontsize=6.5)
        legend_below(term)  # its reference lines cross the whole panel
    tidy(figure)
    return figure
