"""ε-separation rank against ε, per depth, for softmax stacks (theory document §1,
``levine.softmax-epsilon-rank``).

Each panel is one stack (d = 3, N = 2: one P and one Q position), its first L
blocks for L = 1 … 4; markers are r_ε of a converged grid, open markers lower
bounds (the grid stopped at its size limit). Left: pure attention, whose ε-rank
stops growing after two blocks; right: pre-LN. The linear-attention network of
the same width and L = 2, the method's oracle, is drawn grey: its ε-rank climbs
to its exact GF(p) rank (dotted) and stays there. The two stack panels share their
y range; each depth has its own marker, and the markers of one ε are dodged sideways
(by a factor 1.07 between neighbouring depths) so that equal ranks stay visible.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attndepth.figures.style import PALETTE, new_figure, styled, tidy
from attndepth.rank.epsilon_rank import (
    linear_epsilon_ranks,
    softmax_epsilon_ranks,
)
from attndepth.rank.grids import SeparationRankConfig, rank_from_grids
from attndepth.simulations.models.stacks import StackConfig

NAME = "softmax_epsilon_rank"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (1, 4)
DESCRIPTION = "epsilon-rank vs epsilon of softmax stacks per depth (pure, pre-LN; d = 3)"
WIDTH = 3
DEPTHS = (1, 2, 3, 4)
VARIANTS = ("pure", "pre-ln")
SIZES: dict[str, dict[str, Any]] = {"quick": dict(epsilons=(0.3, 0.1, 0.03, 0.01), max_points=256),
         "full": dict(epsilons=(0.3, 0.1, 0.03, 0.01, 0.003, 1e-3, 3e-4, 1e-4),
                      max_points=1536)}
#: Depth of the oracle's linear-attention network (d = WIDTH, N = 2).
ORACLE_DEPTH = 2
#: One marker per depth, and the sideways dodge between neighbouring depths.
MARKERS = ("o", "s", "^", "D")
DODGE = 1.07


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: series (variant, "linear", or "exact": the oracle's GF(p) rank), depth,
    epsilon, rank, converged."""
    size = SIZES[preset]
    columns: dict[str, list] = {k: [] for k in ("series", "depth", "epsilon", "rank",
                                                "converged")}

    def add(series: str, depth: int, curve) -> None:
        for epsilon, rank, converged in zip(curve.epsilons, curve.ranks, curve.converged,
                                            strict=True):
            for key, item in zip(columns, (series, depth, epsilon, rank, converged),
                                 strict=True):
                columns[key].append(item)

    for variant in VARIANTS:
        for depth in DEPTHS:
            config = StackConfig(variant=variant, depth=depth, tokens=2, width=WIDTH)
            add(variant, depth, softmax_epsilon_ranks(config, seed, size["epsilons"],
                                                      max_points=size["max_points"],
                                                      draw_depth=max(DEPTHS)))
    oracle_epsilons = (0.1, 1e-2, 1e-3, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12)
    oracle = linear_epsilon_ranks(WIDTH, ORACLE_DEPTH, 2, seed, oracle_epsilons)
    add("linear", ORACLE_DEPTH, oracle)
    exact = rank_from_grids(SeparationRankConfig(width=WIDTH, depth=ORACLE_DEPTH, tokens=2),
                            seed)
    for key, item in zip(columns, ("exact", ORACLE_DEPTH, float("nan"), exact.rank,
                                   exact.saturated), strict=True):
        columns[key].append(item)
    return columns


def draw(data: dict[str, list]):
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    figure, axes = new_figure(columns=2, aspect=0.36, ncols=3)
    series, depth = np.array(data["series"]), np.array(data["depth"])
    epsilon = np.array(data["epsilon"], dtype=float)
    rank = np.array([np.nan if r is None else r for r in data["rank"]], dtype=float)
    converged = np.array(data["converged"], dtype=bool)
    titles = {"pure": "pure attention", "pre-ln": "pre-LN"}
    with styled():
        for axis, variant in zip(axes, VARIANTS, strict=False):
            for index, (colour, marker, L) in enumerate(zip(PALETTE, MARKERS, DEPTHS,
                                                            strict=False)):
                rows = (series == variant) & (depth == L)
                dodged = epsilon * DODGE ** (index - (len(DEPTHS) - 1) / 2)
                axis.plot(dodged[rows], rank[rows], "-", color=colour, linewidth=0.9,
                          marker=marker, markersize=3, label=f"$L = {L}$")
                bound = rows & ~converged
                axis.plot(dodged[bound], rank[bound], marker, color=colour, markersize=3,
                          markerfacecolor="white")
            axis.set_title(f"{titles[variant]}, $d = {WIDTH}$ (open: lower bound)",
                           fontsize=6.5)
            axis.legend(loc="upper left")
        stacks = np.isin(series, VARIANTS)
        for axis in axes[1:len(VARIANTS)]:  # one scale for the variants: compare them
            axis.sharey(axes[0])
        for axis in axes[:len(VARIANTS)]:
            axis.set_ylim(1.5, np.nanmax(rank[stacks]) * 1.3)
            ticks = sorted(set(epsilon[stacks]), reverse=True)
            axis.set_xscale("log")
            axis.set_xticks(ticks, [f"{t:g}" for t in ticks])
            axis.xaxis.set_minor_formatter(NullFormatter())
        oracle, last = series == "linear", axes[-1]
        last.plot(epsilon[oracle], rank[oracle], "s-", color="0.4", markersize=2.5,
                  label=f"ε-rank, $L = {ORACLE_DEPTH}$")
        exact = rank[series == "exact"][0]
        last.axhline(exact, color="0.4", linestyle=":", linewidth=0.8,
                     label=f"exact rank {exact:.0f} (GF($p$))")
        last.set_title(f"oracle: linear attention, $d = {WIDTH}$", fontsize=6.5)
        last.set_xscale("log")
        last.set_ylim(top=exact * 1.8)
        last.legend(loc="lower right")
        for axis in axes:
            axis.set_yscale("log")
            axis.yaxis.set_major_locator(FixedLocator([1, 2, 5, 10, 20, 50, 100, 200, 500]))
            axis.yaxis.set_major_formatter(ScalarFormatter())
            axis.yaxis.set_minor_formatter(NullFormatter())
            axis.invert_xaxis()
            axis.set_xlabel(r"tolerance $\varepsilon$")
            axis.set_ylabel(r"$\varepsilon$-rank $r_\varepsilon$ ($N = 2$)")
    tidy(figure)
    return figure
