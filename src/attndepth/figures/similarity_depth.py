"""Token similarity t_sim against depth for every block variant (Yu & Zhang 2023).

Median and 10–90 % band over independent stacks (seeds spawned from one base
seed), at the preset of the claim yuzhang.escalation (``presets.ESCALATION``).
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import ESCALATION
from attndepth.figures.style import new_figure, styled, variant_colour
from attndepth.simulations.measures.similarity import token_similarity
from attndepth.simulations.models.stacks import VARIANTS, StackConfig, run_stack

NAME = "similarity_depth"
DESCRIPTION = "t_sim vs depth, all block variants (median, 10-90% band over seeds)"


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: variant, depth, median, q10, q90 (one row per variant and depth)."""
    size = ESCALATION[preset]
    columns: dict[str, list] = {"variant": [], "depth": [], "median": [], "q10": [], "q90": []}
    for variant in VARIANTS:
        config = StackConfig(variant=variant, depth=size["depth"], tokens=size["tokens"],
                             width=size["width"], heads=size["heads"], tau=1.0)
        similarity = token_similarity(run_stack(config, size["batch"], seed).states)
        q10, median, q90 = np.quantile(similarity, [0.1, 0.5, 0.9], axis=1)
        columns["variant"] += [variant] * len(median)
        columns["depth"] += list(range(len(median)))
        columns["median"] += median.tolist()
        columns["q10"] += q10.tolist()
        columns["q90"] += q90.tolist()
    return columns


def draw(data: dict[str, list]):
    """One line and band per variant, log-odds-friendly linear axes."""
    figure, axis = new_figure(columns=1, aspect=0.8)
    variant_column = np.array(data["variant"])
    with styled():
        for variant in dict.fromkeys(data["variant"]):
            rows = variant_column == variant
            depth = np.array(data["depth"])[rows]
            colour = variant_colour(variant)
            axis.plot(depth, np.array(data["median"])[rows], color=colour, label=variant)
            axis.fill_between(depth, np.array(data["q10"])[rows], np.array(data["q90"])[rows],
                              color=colour, alpha=0.2, linewidth=0)
        axis.set_xlabel("depth $l$")
        axis.set_ylabel(r"token similarity $t_{\mathrm{sim}}$")
        axis.set_ylim(-0.02, 1.02)
        axis.legend(ncols=2, loc="center right")
    return figure
