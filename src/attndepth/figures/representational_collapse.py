"""Representational collapse: repeating the last token moves it by O(1/n).

Draws the claim barbero.representational-collapse (Barbero et al. 2024, arXiv 2406.04267)
at initialisation: causal stacks at the claim's width with the feed-forward branch,
pre-LN and post-LN, at depths 1 and 4. (a) Δ_L(n)/‖y_n‖, how far repeating the last
token moves the last representation (geometric mean over the stacks, 99 % intervals
of the mean logarithm), against the length n, log-log; dotted: slope −1. (b) n·Δ_L(n),
which stays level within its intervals: the shift falls as 1/n.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import REPRESENTATIONAL_COLLAPSE
from attndepth.figures.style import (
    INTERVAL_TEXT,
    VARIANT_COLOURS,
    VARIANT_NAMES,
    interval_half_width,
    new_figure,
    styled,
    tidy,
)
from attndepth.simulations.measures.repeated_token import repeat_shift
from attndepth.simulations.models.stacks import StackConfig

NAME = "representational_collapse"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 7, 0)
DESCRIPTION = "shift of the last representation when the last token is repeated, against n"
LENGTHS = (8, 16, 32, 64, 128, 256, 512)
DEPTHS = (1, 4)
VARIANTS = ("pre-ln", "post-ln")


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns per row: variant, depth, n, the mean ln Δ_L(n)/‖y_n‖, its standard error,
    stacks."""
    size = REPRESENTATIONAL_COLLAPSE[preset]
    columns: dict[str, list] = {k: [] for k in ("variant", "depth", "tokens", "log_shift",
                                                "error", "stacks")}
    for variant in VARIANTS:
        for depth in DEPTHS:
            config = StackConfig(variant=variant, depth=depth, width=size["width"],
                                 ffn=size["ffn"], heads=size["heads"], causal=True)
            logs = np.log(repeat_shift(config, LENGTHS, size["batch"], seed))
            for n, row in zip(LENGTHS, logs, strict=True):
                for key, value in zip(columns, (
                        variant, depth, n, float(row.mean()),
                        float(row.std(ddof=1) / math.sqrt(row.size)), size["batch"]),
                        strict=True):
                    columns[key].append(value)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    array = {k: np.array(v) for k, v in data.items()}
    error = interval_half_width(array["error"].astype(float), array["stacks"].astype(float))
    with styled():
        for variant in VARIANTS:
            for depth, marker, line in zip(DEPTHS, ("o", "s"), ("-", "--"), strict=True):
                rows = (array["variant"] == variant) & (array["depth"].astype(int) == depth)
                n = array["tokens"][rows].astype(float)
                mean = array["log_shift"][rows].astype(float)
                low, high = np.exp(mean - error[rows]), np.exp(mean + error[rows])
                label = f"{VARIANT_NAMES[variant]}, L = {depth}"
                colour = VARIANT_COLOURS[variant]
                left.errorbar(n, np.exp(mean), yerr=[np.exp(mean) - low, high - np.exp(mean)],
                              fmt=marker + line, color=colour, markersize=2.5, linewidth=0.8,
                              elinewidth=0.5, label=label)
                right.errorbar(n, n * np.exp(mean),
                               yerr=[n * (np.exp(mean) - low), n * (high - np.exp(mean))],
                               fmt=marker + line, color=colour, markersize=2.5,
                               linewidth=0.8, elinewidth=0.5, label=label)
        n = np.array(LENGTHS, dtype=float)
        anchor = float(np.exp(array["log_shift"].astype(float)).max())
        left.plot(n, anchor * n[0] / n, ":", color="0.35", linewidth=0.8, label="slope −1")
        for axes in (left, right):
            axes.set_xscale("log", base=2)
            axes.set_xlabel("tokens $n$")
        left.set_yscale("log")
        left.set_ylabel(r"shift $\Delta_L(n)/\|y_n\|$")
        right.set_ylabel(r"$n\,\Delta_L(n)/\|y_n\|$")
        left.legend(loc="lower left")
        right.legend(loc="lower right")
        stacks = int(array["stacks"][0])
        left.set_title(f"causal stacks with FFN, {stacks} stacks a point; {INTERVAL_TEXT}",
                       fontsize=6)
        right.set_title("n times the shift stays level: it falls as 1/n", fontsize=6)
    tidy(figure)
    return figure
