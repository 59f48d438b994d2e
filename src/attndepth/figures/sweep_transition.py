"""Experiment B from a training sweep's store: validation loss against depth at fixed budgets.

For every budget N of the sweep's rows (``budget`` given instead of a width:
d = √(N/(12L)) rounded to the heads), the final validation loss against depth
(median over seeds, bars from the smallest to the largest seed), with the
predicted transition depths marked in the budget's colour: L*(N) of Levine
et al.'s log₃ d (dashed) and of the corrected knee log₃(2D + 1) (dotted), both
from :mod:`attndepth.theory.trained_transition`. Chance (ln 16) is dotted grey.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.figures.style import PALETTE, new_figure, styled, tidy
from attndepth.simulations.sweeps.store import finished_rows
from attndepth.simulations.training.tasks import RecallTask
from attndepth.theory.trained_transition import (
    corrected_knee_law,
    paper_knee,
    transition_depth,
)

NAME = "sweep_transition"
DESCRIPTION = "validation loss vs depth at fixed budgets, transitions marked (Experiment B)"
CHANCE = math.log(16)


def compute_from_store(path: str | Path) -> dict[str, list]:
    """Columns: budget, depth, width, median, low, high, seeds, paper, corrected."""
    rows = [row for row in finished_rows(path, "train") if row["config"].get("budget")]
    if not rows:
        raise InvalidParameter(f"store {path} holds no training rows of a budget (Experiment B)")
    losses: dict[tuple[int, int], list[float]] = {}
    widths: dict[tuple[int, int], int] = {}
    pairs: dict[int, int] = {}
    for row in rows:
        key = (int(row["config"]["budget"]), int(row["config"]["depth"]))
        losses.setdefault(key, []).append(row["metrics"]["validation_loss_final"])
        widths[key] = int(row["metrics"]["width"])
        pairs[key[0]] = int(row["config"].get("pairs", 4))
    columns: dict[str, list] = {k: [] for k in ("budget", "depth", "width", "median", "low",
                                                "high", "seeds", "paper", "corrected")}
    for budget, depth in sorted(losses):
        values = np.array(losses[budget, depth])
        tokens = RecallTask.standard(pairs[budget]).length
        entries = (budget, depth, widths[budget, depth], float(np.median(values)),
                   float(values.min()), float(values.max()), values.size,
                   transition_depth(budget, paper_knee),
                   transition_depth(budget, corrected_knee_law(tokens // 2)))
        for name, item in zip(columns, entries, strict=True):
            columns[name].append(item)
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.8)
    budget = np.array(data["budget"])
    depth, median = np.array(data["depth"], dtype=float), np.array(data["median"], dtype=float)
    low, high = np.array(data["low"], dtype=float), np.array(data["high"], dtype=float)
    with styled():
        for k, value in enumerate(dict.fromkeys(data["budget"])):
            colour = PALETTE[k % len(PALETTE)]
            rows = budget == value
            axis.errorbar(depth[rows], median[rows],
                          yerr=[median[rows] - low[rows], high[rows] - median[rows]],
                          fmt="o-", color=colour, markersize=3, linewidth=0.8, elinewidth=0.6,
                          capsize=0, label=f"N = {value:,}")
            first = int(np.flatnonzero(rows)[0])
            axis.axvline(data["paper"][first], color=colour, linestyle="--", linewidth=0.7)
            axis.axvline(data["corrected"][first], color=colour, linestyle=":", linewidth=0.9)
        axis.axhline(CHANCE, color="0.5", linestyle=":", linewidth=0.8)
        axis.text(depth.min(), CHANCE, " chance", va="bottom", fontsize=6, color="0.4")
        axis.set_xscale("log", base=2)
        ticks = sorted(set(depth))
        axis.set_xticks(ticks, [f"{d:g}" for d in ticks])
        axis.minorticks_off()
        axis.set_xlabel("depth $L$ (width $d = \\sqrt{N/12L}$)")
        axis.set_ylabel("final validation loss")
        axis.plot([], [], color="0.3", linestyle="--", linewidth=0.7,
                  label=r"$L^*$: $L = \log_3 d$")
        axis.plot([], [], color="0.3", linestyle=":", linewidth=0.9,
                  label=r"$L^*$: corrected knee")
        axis.legend()
        axis.set_title(f"median over {max(data['seeds'])} seeds, bars: smallest–largest",
                       fontsize=6.5)
    tidy(figure)
    return figure
