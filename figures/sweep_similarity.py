"""t_sim against depth from a similarity sweep's store (``attndepth sweep``).

One line per configuration (variant, depth, tokens, width, heads, tau): the
median over the sweep's seeds of each stack batch's median t_sim.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attndepth.figures.style import new_figure, styled
from attndepth.simulations.store import open_store

NAME = "sweep_similarity"
DESCRIPTION = "t_sim vs depth drawn from a similarity sweep store (attndepth figures --store)"
CONFIG_KEYS = ("variant", "depth", "tokens", "width", "heads", "tau")


def compute_from_store(path: str | Path) -> dict[str, list]:
    """Columns: config (label), layer, median, seeds — from the store's ok rows."""
    if not Path(path).is_file():
        raise ValueError(f"store {path} does not exist")
    with open_store(path) as store:
        rows = [r for r in store.rows("similarity") if r["status"] == "ok"]
    if not rows:
        raise ValueError(f"store {path} holds no finished similarity points")
    curves: dict[str, list[list[float]]] = {}
    for row in rows:
        label = ", ".join(f"{k}={row['config'][k]}" for k in CONFIG_KEYS if k in row["config"])
        curves.setdefault(label, []).append(row["metrics"]["t_sim"])
    columns: dict[str, list] = {"config": [], "layer": [], "median": [], "seeds": []}
    for label, runs in curves.items():
        median = np.median(np.array(runs), axis=0)
        for layer, value in enumerate(median):
            columns["config"].append(label)
            columns["layer"].append(layer)
            columns["median"].append(float(value))
            columns["seeds"].append(len(runs))
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.8)
    config = np.array(data["config"])
    with styled():
        for label in dict.fromkeys(data["config"]):
            rows = config == label
            axis.plot(np.array(data["layer"])[rows], np.array(data["median"])[rows],
                      label=label.replace("variant=", ""))
        axis.set_xlabel("depth $l$")
        axis.set_ylabel(r"token similarity $t_{\mathrm{sim}}$ (median over seeds)")
        axis.set_ylim(-0.02, 1.02)
        axis.legend(frameon=False, fontsize=5)
    return figure
