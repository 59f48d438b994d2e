"""Token similarity t_sim against depth for every block variant (Yu & Zhang 2023).

Mean over independent stacks (seeds spawned from one base seed) with its 99 % Student-t
interval — the verdicts' kind of interval — at the preset of the claim
yuzhang.escalation (``presets.ESCALATION``). The depth axis is linear to 1 and
logarithmic beyond, so that the first blocks, where the variants part, are not crowded;
the residual stack is drawn dashed, since it runs close to post-LN.
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import ESCALATION
from attndepth.figures.style import (
    INTERVAL_TEXT,
    interval_half_width,
    new_figure,
    styled,
    tidy,
    variant_colour,
    variant_name,
)
from attndepth.simulations.measures.similarity import token_similarity
from attndepth.simulations.models.stacks import VARIANTS, StackConfig, run_stack

NAME = "similarity_depth"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (3, 1)
DESCRIPTION = "t_sim vs depth, all block variants (mean and its 99% interval over stacks)"
#: Line style per variant where the default (solid) would hide one under another.
DASHED = {"residual": "--"}


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: variant, depth, mean, low, high (the 99 % interval of the mean), and the
    sizes tokens, width, heads, batch (one row per variant and depth)."""
    size = ESCALATION[preset]
    columns: dict[str, list] = {k: [] for k in ("variant", "depth", "mean", "low", "high",
                                                "tokens", "width", "heads", "batch")}
    for variant in VARIANTS:
        config = StackConfig(variant=variant, depth=size["depth"], tokens=size["tokens"],
                             width=size["width"], heads=size["heads"], tau=1.0,
                             sampling="law")
        similarity = token_similarity(run_stack(config, size["batch"], seed).states)
        mean = similarity.mean(axis=1)
        half = interval_half_width(similarity.std(axis=1, ddof=1) / np.sqrt(size["batch"]),
                                   size["batch"])
        rows = len(mean)
        columns["variant"] += [variant] * rows
        columns["depth"] += list(range(rows))
        columns["mean"] += mean.tolist()
        columns["low"] += (mean - half).tolist()
        columns["high"] += (mean + half).tolist()
        for key in ("tokens", "width", "heads", "batch"):
            columns[key] += [size[key]] * rows
    return columns


def draw(data: dict[str, list]):
    """One line and interval band per variant; depth linear to 1, logarithmic beyond."""
    figure, axis = new_figure(columns=1, aspect=0.8)
    variant_column = np.array(data["variant"])
    with styled():
        for variant in dict.fromkeys(data["variant"]):
            rows = variant_column == variant
            depth = np.array(data["depth"])[rows]
            colour = variant_colour(variant)
            axis.plot(depth, np.array(data["mean"])[rows], DASHED.get(variant, "-"),
                      color=colour, label=variant_name(variant))
            axis.fill_between(depth, np.array(data["low"])[rows], np.array(data["high"])[rows],
                              color=colour, alpha=0.25, linewidth=0)
        axis.set_xscale("symlog", linthresh=1.0, linscale=0.4)
        ticks = [0, 1, 2, 4, 8, 16, 32]
        ticks = [t for t in ticks if t <= max(data["depth"])]
        axis.set_xticks(ticks, [str(t) for t in ticks])
        axis.minorticks_off()
        axis.set_xlabel("depth $l$ (linear to 1, log beyond)")
        axis.set_ylabel(r"token similarity $t_{\mathrm{sim}}$")
        axis.set_ylim(-0.02, 1.02)
        axis.legend(loc="center right", bbox_to_anchor=(1.0, 0.3))
        tokens, width, heads, batch = (int(data[k][0]) for k in ("tokens", "width", "heads",
                                                                  "batch"))
        axis.set_title(f"n = {tokens}, d = {width}, H = {heads}, {batch} stacks; "
                       f"{INTERVAL_TEXT} of the mean", fontsize=6)
    tidy(figure)
    return figure
