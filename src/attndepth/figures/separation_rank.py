"""Separation rank against depth and heads (Levine et al. 2020; docs/theory.md §1).

Left: ln sep vs depth on a log axis, so that doubly exponential growth
(ln sep ∝ 3^L) is a straight line, drawn in grey, and exponential growth
(ln sep ∝ L) flattens; one P and one Q position (N = 2): certified exact
ranks as markers, the bigraded bound (d) as lines (exact where computed, the
conjectured value beyond), log_3 d marked per width. Right: exact rank
against the number of heads, with bound (d), at the head counts that divide
d only (evenly spaced: no line passes through a head count that does not).
Sizes are the presets of the claim levine.heads (``presets.HEADS``) and the
widths below; ranks are measured as the claims measure them (:func:`certified_rank`). Where the knee
of each curve lies is the figure ``threshold_knee``.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import HEADS
from attndepth.figures.style import (
    PALETTE,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.rank.grids import SeparationRankConfig, certified_rank
from attndepth.theory.separation_rank import (
    log_bigraded_bound,
    separation_rank_bounds,
    threshold_depth,
)

NAME = "separation_rank"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (1, 1)
DESCRIPTION = "ln sep vs depth (exact ranks, bounds, log_3 d) and rank vs heads"
#: Deepest L drawn for the bound lines (drawing extent only).
MAX_DEPTH = {"quick": 8, "full": 10}
#: Widths with certified ranks at depths 1 … 3 (N = 2), and widths drawn by bound only.
EXACT_WIDTHS, EXACT_DEPTHS = [2, 3], [1, 2, 3]
BOUND_WIDTHS = {"quick": [9, 27, 81], "full": [9, 27, 81, 243]}


def _exact(width: int, depth: int, heads: int, tokens: int, seed: int) -> int:
    bounds = separation_rank_bounds(width, depth, (tokens + 1) // 2, tokens // 2)
    config = SeparationRankConfig(width=width, depth=depth, heads=heads, tokens=tokens)
    return certified_rank(config, seed, bounds.best).rank


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: panel, series, width, x (depth or heads), value (ln sep or rank)."""
    heads_case = HEADS[preset]
    columns: dict[str, list] = {k: [] for k in ("panel", "series", "width", "x", "value")}

    def add(panel: str, series: str, width: int, x: float, value: float) -> None:
        for key, item in zip(columns, (panel, series, width, x, value), strict=True):
            columns[key].append(item)

    for width in EXACT_WIDTHS:
        for depth in EXACT_DEPTHS:
            add("depth", "exact", width, depth, math.log(_exact(width, depth, 1, 2, seed)))
    for width in [*EXACT_WIDTHS, *BOUND_WIDTHS[preset]]:
        for depth in range(1, MAX_DEPTH[preset] + 1):
            add("depth", "bound", width, depth, log_bigraded_bound(width, depth, side=1))
    width, depth, tokens = heads_case["width"], heads_case["depth"], heads_case["tokens"]
    bound = separation_rank_bounds(width, depth, (tokens + 1) // 2, tokens // 2).bigraded
    for heads in heads_case["heads"]:
        add("heads", "exact", width, heads, _exact(width, depth, heads, tokens, seed))
        add("heads", "bound", width, heads, bound)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.38, ncols=2)
    panel, series = np.array(data["panel"]), np.array(data["series"])
    width, x, value = (np.array(data[k], dtype=float) for k in ("width", "x", "value"))
    with styled():
        widths = sorted(set(width[panel == "depth"].astype(int)))
        for colour, w in zip(PALETTE, widths, strict=False):
            line = (panel == "depth") & (series == "bound") & (width == w)
            left.plot(x[line], value[line], color=colour, label=f"d = {w}")
            dots = (panel == "depth") & (series == "exact") & (width == w)
            if dots.any():
                left.plot(x[dots], value[dots], "o", color=colour, markerfacecolor="none")
            left.axvline(threshold_depth(w), color=colour, linestyle=":", linewidth=0.8)
        widest = (panel == "depth") & (series == "bound") & (width == widths[-1])
        guide_depths = x[widest][x[widest] <= 5]
        guide = value[widest][0] * 3.0 ** (guide_depths - guide_depths[0])
        left.plot(guide_depths, guide, "--", color="0.55", linewidth=0.8)
        left.set_yscale("log")
        left.set_xlabel("depth $L$")
        # the quantity is ln sep, drawn on a logarithmic axis: 3^L is then a straight line
        left.set_ylabel(r"$\ln \mathrm{sep}$, log scale  ($N = 2$)")
        # the styles' key above the axes (kept as an artist); the widths' legend is the
        # axes' own, which the layout makes room for wherever tidy() puts it
        keys = [style_key("bound (d)", color="k"),
                style_key(f"certified (d ≤ {max(EXACT_WIDTHS)})", color="k", marker="o",
                          linestyle="none", markerfacecolor="none"),
                style_key(r"$L_{th} = \log_3 d$", color="k", linestyle=":", linewidth=0.8),
                style_key(r"$\propto 3^L$", color="0.55", linestyle="--", linewidth=0.8)]
        widths_legend = left.legend(title="colour: width", loc="lower right")
        left.add_artist(left.legend([h for h, _ in keys], [label for _, label in keys],
                                    loc="lower left", bbox_to_anchor=(0.07, 1.0), ncols=4,
                                    handlelength=1.5, columnspacing=0.8))
        left.legend_ = widths_legend
        exact = (panel == "heads") & (series == "exact")
        bound = (panel == "heads") & (series == "bound")
        heads = x[exact].astype(int)
        slots = np.arange(heads.size)  # the divisors of d, evenly spaced
        # black and grey: the left panel's colours mean widths
        right.plot(slots, value[exact], "o-", color="k", markerfacecolor="none",
                   label="certified rank")
        right.plot(slots, value[bound], "--", color="0.5", label="bigraded bound")
        case = int(width[exact][0]) if exact.any() else 0
        right.set_xlabel("heads $H$ (divisors of $d$)")
        right.set_ylabel("separation rank")
        right.set_title(f"d = {case}, L = {HEADS['quick']['depth']}, "
                        f"N = {HEADS['quick']['tokens']}", fontsize=6.5)
        right.set_xticks(slots, [str(h) for h in heads])
        right.legend()
    tidy(figure)
    return figure
