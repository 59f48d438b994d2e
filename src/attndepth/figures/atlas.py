"""The atlas at a glance: rank / split bound over every size class (theory document §1).

The split bound is bound (d) of §1 (the degree-by-degree minimum; ρ = 1: the
staircase bound). One marker per atlas class (d, L, H, ρ, |P|, |Q|) below it, at its
bound (log scale) and its rank / bound; colour and marker shape are the depth L, filled
markers one head, hollow markers H > 1. The classes that meet the bound (ratio 1) would
pile up on one line: they are drawn instead as ticks in a strip above the axes' top,
one row per depth. Left: ρ = 0, right: ρ = 1. Rows that are only lower bounds are drawn
as small grey crosses. Every point below 1 is a deficit the conjectures of
:mod:`attndepth.claims.rank_conjectures` must account for. The data are the shipped
atlas (:func:`attndepth.atlas`): the figure computes nothing, so both presets draw the
same.
"""

from __future__ import annotations

import numpy as np

from attndepth.figures.style import PALETTE, new_figure, styled, tidy
from attndepth.rank.atlas_table import atlas

NAME = "atlas"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (1, 2)
DESCRIPTION = "rank / split bound of every atlas class, by depth, heads and residual"
DEPTHS = (1, 2, 3, 4, 5)
#: One marker shape per depth, so that neighbouring colours are told apart by shape too.
MARKERS = ("o", "s", "^", "D", "p")
#: Where the strip of classes at the bound starts, and its row spacing per depth.
STRIP_BASE, STRIP_STEP = 1.03, 0.018
COLUMNS = ("width", "depth", "heads", "residual", "rank", "bound", "decided")


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns :data:`COLUMNS`, one entry per atlas row (preset and seed unused: the
    atlas is data)."""
    rows = list(atlas())
    return {"width": [r.width for r in rows], "depth": [r.depth for r in rows],
            "heads": [r.heads for r in rows], "residual": [r.residual for r in rows],
            "rank": [r.rank for r in rows], "bound": [r.bound_bigraded for r in rows],
            "decided": [r.decided for r in rows]}


def draw(data: dict[str, list]):
    figure, axes = new_figure(columns=2, aspect=0.46, ncols=2)
    depth, heads = np.array(data["depth"]), np.array(data["heads"])
    residual, decided = np.array(data["residual"]), np.array(data["decided"], dtype=bool)
    bound = np.array(data["bound"], dtype=float)
    ratio = np.array(data["rank"], dtype=float) / bound
    with styled():
        for axis, rho in zip(axes, (0, 1), strict=True):
            here = residual == rho
            for colour, marker, L in zip(PALETTE, MARKERS, DEPTHS, strict=False):
                for one_head in (True, False):
                    rows = here & decided & (depth == L) & ((heads == 1) == one_head) \
                        & (ratio < 1)
                    axis.scatter(bound[rows], ratio[rows], s=10, linewidths=0.7,
                                 marker=marker, edgecolors=colour,
                                 facecolors=colour if one_head else "none",
                                 label=f"$L = {L}$" if one_head else None)
                met = here & decided & (depth == L) & (ratio == 1)
                axis.scatter(bound[met], np.full(met.sum(), STRIP_BASE + STRIP_STEP * L),
                             s=12, marker="|", linewidths=0.6, color=colour)
            lower = here & ~decided
            axis.scatter(bound[lower], ratio[lower], s=8, marker="x", color="0.6",
                         linewidths=0.6, label="lower bound only" if lower.any() else None)
            short = here & decided & (ratio < 1)
            met = here & decided & (ratio == 1)
            only_lower = f", {lower.sum()} lower bounds" if lower.any() else ""
            axis.set_title(f"$\\rho = {rho}$: {here.sum()} classes\n{met.sum()} at the bound "
                           f"(ticks), {short.sum()} below{only_lower}", fontsize=6)
            axis.set_xscale("log")
            axis.axhline(1.0, color="0.5", linewidth=0.6, linestyle=":")
            axis.set_ylim(top=STRIP_BASE + STRIP_STEP * (len(DEPTHS) + 1))
            ticks = [t for t in axis.get_yticks() if t <= 1.0]
            strip = STRIP_BASE + STRIP_STEP * (len(DEPTHS) + 1) / 2
            axis.set_yticks([*ticks, strip], [f"{t:g}" for t in ticks] + ["= 1 (ticks)"])
            axis.set_xlabel("split bound (d)")
        axes[0].set_ylabel("rank / split bound")
        # one legend for both panels: the lower bounds may stand in either
        entries = {label: handle for axis in axes
                   for handle, label in zip(*axis.get_legend_handles_labels(), strict=True)}
        axes[0].legend(entries.values(), entries.keys(), loc="lower left",
                       title="filled: $H = 1$, hollow: $H > 1$")
    tidy(figure)
    return figure
