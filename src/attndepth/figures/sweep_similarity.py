"""t_sim against depth from a similarity sweep's store (``attndepth sweep``).

One curve per configuration: the median over the sweep's seeds of each stack
batch's median t_sim, with a band from the 10th to the 90th percentile over
seeds. The legend names only the parameters that vary between curves, in
sorted order; colour tells the block variant (its colour in every figure), line
style the rest.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attndepth.figures.style import new_figure, styled, tidy, variant_colour, variant_name
from attndepth.simulations.sweeps.store import finished_rows

NAME = "sweep_similarity"
DESCRIPTION = "t_sim vs depth drawn from a similarity sweep store (attndepth figures --store)"
CONFIG_KEYS = ("variant", "depth", "tokens", "width", "heads", "tau", "temperature", "batch",
               "dtype")
LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 3)))


def compute_from_store(path: str | Path) -> dict[str, list]:
    """Columns: variant, label, layer, median, q10, q90, seeds — from the store's ok rows.

    ``label`` holds the parameters other than the variant that vary between
    configurations (empty when only the variant varies).
    """
    rows = finished_rows(path, "similarity")
    keys = [k for k in CONFIG_KEYS if any(k in r["config"] for r in rows)]
    varying = [k for k in keys if len({repr(r["config"].get(k)) for r in rows}) > 1]
    curves: dict[tuple, list[list[float]]] = {}
    for row in rows:
        config = tuple(row["config"].get(k) for k in keys)
        curves.setdefault(config, []).append(row["metrics"]["t_sim"])
    columns: dict[str, list] = {k: [] for k in ("variant", "label", "layer", "median", "q10",
                                                "q90", "seeds")}
    for config in sorted(curves, key=lambda c: [str(v) if isinstance(v, str) else v
                                                for v in c]):
        values = dict(zip(keys, config, strict=True))
        label = ", ".join(f"{k}={values[k]}" for k in varying if k != "variant")
        runs = np.array(curves[config])
        q10, median, q90 = np.quantile(runs, [0.1, 0.5, 0.9], axis=0)
        for layer in range(median.size):
            for key, value in (("variant", values.get("variant", "")), ("label", label),
                               ("layer", layer), ("median", float(median[layer])),
                               ("q10", float(q10[layer])), ("q90", float(q90[layer])),
                               ("seeds", len(runs))):
                columns[key].append(value)
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.8)
    variant, label = np.array(data["variant"]), np.array(data["label"])
    layer = np.array(data["layer"])
    # colour: the variant (the same in every figure); line style: the other parameters
    styles = {name: LINE_STYLES[k % len(LINE_STYLES)]
              for k, name in enumerate(dict.fromkeys(label))}
    with styled():
        for curve in dict.fromkeys(zip(data["variant"], data["label"], strict=True)):
            rows = (variant == curve[0]) & (label == curve[1])
            text = ", ".join(part for part in (variant_name(curve[0]), curve[1]) if part)
            colour = variant_colour(curve[0])
            axis.plot(layer[rows], np.array(data["median"])[rows], color=colour,
                      linestyle=styles[curve[1]], label=text)
            axis.fill_between(layer[rows], np.array(data["q10"])[rows],
                              np.array(data["q90"])[rows], color=colour, alpha=0.15,
                              linewidth=0)
        seeds = sorted(set(data["seeds"]))
        axis.set_xlabel("depth $l$")
        axis.set_ylabel(r"token similarity $t_{\mathrm{sim}}$")
        axis.set_ylim(-0.02, 1.02)
        axis.set_title(f"median over {'/'.join(map(str, seeds))} seeds, band 10–90 %",
                       fontsize=7)
        axis.legend()
    tidy(figure)
    return figure
