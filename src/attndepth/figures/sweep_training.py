"""Trained networks from a training sweep's store (``measurement = "train"``).

Experiment A of Yu & Zhang 2023 as a figure: left, the final validation loss
against depth for every block variant (median over seeds, bars from the
smallest to the largest seed, the chance loss ln 16 dotted); right, the final
t_sim of every layer at the deepest depth of the sweep, per variant — the
token similarity the trained networks ended with.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.ticker import MaxNLocator

from attndepth.errors import InvalidParameter
from attndepth.figures.style import new_figure, styled, tidy, variant_colour, variant_name
from attndepth.simulations.sweeps.store import finished_rows

NAME = "sweep_training"
DESCRIPTION = "validation loss vs depth and t_sim per layer from a training sweep store"
#: Chance loss of associative recall with 16 values.
CHANCE = float(np.log(16))


def variant_label(config: dict) -> str:
    """post-ln, pre-ln, or a de-escalation with its τ (the figures' legend names)."""
    name = config["variant"]
    return f"{name} τ={config.get('tau', 1.0):g}" if "deesc" in name else name


def compute_from_store(path: str | Path) -> dict[str, list]:
    """Columns: panel, variant, x (depth or layer), median, low, high, seeds."""
    rows = [row for row in finished_rows(path, "train") if not row["config"].get("budget")]
    if not rows:
        raise InvalidParameter(f"store {path} holds no training rows of a given width")
    losses: dict[tuple[str, int], list[float]] = {}
    similarity: dict[tuple[str, int], list[list[float]]] = {}
    for row in rows:
        key = (variant_label(row["config"]), int(row["config"]["depth"]))
        losses.setdefault(key, []).append(row["metrics"]["validation_loss_final"])
        similarity.setdefault(key, []).append(row["metrics"]["t_sim_per_layer"])
    deepest = max(depth for _, depth in losses)
    columns: dict[str, list] = {k: [] for k in ("panel", "variant", "x", "median", "low",
                                                "high", "seeds")}

    def add(*row):
        for key, item in zip(columns, row, strict=True):
            columns[key].append(item)

    for variant, depth in sorted(losses):
        values = np.array(losses[variant, depth])
        add("loss", variant, depth, float(np.median(values)), float(values.min()),
            float(values.max()), values.size)
        if depth == deepest:
            per_layer = np.array(similarity[variant, depth])
            for layer in range(per_layer.shape[1]):
                column = per_layer[:, layer]
                add("similarity", variant, layer, float(np.median(column)),
                    float(column.min()), float(column.max()), column.size)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    panel, variant = np.array(data["panel"]), np.array(data["variant"])
    x, median = np.array(data["x"], dtype=float), np.array(data["median"], dtype=float)
    low, high = np.array(data["low"], dtype=float), np.array(data["high"], dtype=float)
    names = list(dict.fromkeys(data["variant"]))
    with styled():
        for name in names:
            colour = variant_colour(name)  # the variant's colour in every figure
            rows = (panel == "loss") & (variant == name)
            left.errorbar(x[rows], median[rows], yerr=[median[rows] - low[rows],
                                                       high[rows] - median[rows]],
                          fmt="o-", color=colour, markersize=3, linewidth=0.8,
                          elinewidth=0.6, capsize=0, label=variant_name(name))
            rows = (panel == "similarity") & (variant == name)
            right.plot(x[rows], median[rows], "o-", color=colour, markersize=2.5,
                       linewidth=0.8, label=variant_name(name))
        left.axhline(CHANCE, color="0.5", linestyle=":", linewidth=0.8)
        left.text(x[panel == "loss"].min(), CHANCE, " chance", va="bottom", fontsize=6,
                  color="0.4")
        depths = sorted(set(x[panel == "loss"]))
        left.set_xticks(depths, [f"{d:g}" for d in depths])
        left.set_xlabel("depth $L$")
        left.set_ylabel("final validation loss")
        left.set_title(f"median over {max(data['seeds'])} seeds, bars: smallest–largest",
                       fontsize=6.5)
        left.legend()
        deepest = int(x[panel == "loss"].max())
        right.xaxis.set_major_locator(MaxNLocator(integer=True))
        right.set_xlabel("depth $l$")
        right.set_ylabel(r"final $t_{\mathrm{sim}}$")
        right.set_title(f"trained networks of depth {deepest}", fontsize=6.5)
    tidy(figure)
    return figure
