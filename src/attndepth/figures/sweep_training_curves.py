"""t_sim of every layer during training, from a training sweep's store (Experiment A).

One small panel per block variant at the deepest depth of the sweep: the
training step runs along x, the layer along y, and the colour is the median
over seeds of t_sim (the token similarity of
:func:`attndepth.simulations.measures.similarity.token_similarity`, median over the
validation batch) at each evaluation. Plain post-LN lights up to t_sim ≈ 1
in the upper layers; what de-escalation does to it during training is the
question of Yu & Zhang 2023. Rows recorded before the per-evaluation curves
were stored (no ``t_sim_curves``) are skipped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.figures.style import new_figure, styled, tidy, variant_name
from attndepth.figures.sweep_training import variant_label
from attndepth.simulations.sweeps.store import finished_rows

NAME = "sweep_training_curves"
DESCRIPTION = "t_sim of every layer during training, per variant, from a training sweep store"


def compute_from_store(path: str | Path) -> dict[str, list]:
    """Columns: variant, depth, step, layer, t_sim (median over seeds), seeds."""
    rows = [row for row in finished_rows(path, "train")
            if "t_sim_curves" in row["metrics"] and not row["config"].get("budget")]
    if not rows:
        raise InvalidParameter(f"store {path} holds no training rows with t_sim curves (rows of "
                               f"a width, recorded by this version)")
    deepest = max(int(row["config"]["depth"]) for row in rows)
    curves: dict[str, list[np.ndarray]] = {}
    steps: dict[str, list[int]] = {}
    for row in rows:
        if int(row["config"]["depth"]) != deepest:
            continue
        name = variant_label(row["config"])
        curves.setdefault(name, []).append(np.array(row["metrics"]["t_sim_curves"]))
        steps[name] = row["metrics"]["steps"]
    columns: dict[str, list] = {k: [] for k in ("variant", "depth", "step", "layer", "t_sim",
                                                "seeds")}
    for name, runs in curves.items():
        median = np.median(np.stack(runs), axis=0)  # (evaluations, layers)
        for k, step in enumerate(steps[name]):
            for layer, value in enumerate(median[k]):
                for key, item in zip(columns, (name, deepest, step, layer, float(value),
                                               len(runs)), strict=True):
                    columns[key].append(item)
    return columns


def draw(data: dict[str, list]):
    # plain post-LN, pre-LN, then the de-escalations by name
    names = sorted(dict.fromkeys(data["variant"]),
                   key=lambda name: ({"post-ln": 0, "pre-ln": 1}.get(name, 2), name))
    ncols = min(3, len(names))
    nrows = -(-len(names) // ncols)
    figure, axes = new_figure(columns=2, aspect=0.3 * nrows, ncols=ncols, nrows=nrows)
    axes = np.atleast_1d(axes).ravel()
    variant = np.array(data["variant"])
    step, layer = np.array(data["step"]), np.array(data["layer"])
    value = np.array(data["t_sim"], dtype=float)
    with styled():
        image = None
        for axis, name in zip(axes, names, strict=False):
            rows = variant == name
            steps, layers = np.unique(step[rows]), np.unique(layer[rows])
            grid = np.full((layers.size, steps.size), np.nan)
            grid[layer[rows], np.searchsorted(steps, step[rows])] = value[rows]
            image = axis.imshow(grid, origin="lower", aspect="auto", vmin=0, vmax=1,
                                cmap="viridis", interpolation="nearest",
                                extent=(0.5, steps.size + 0.5, -0.5, layers.size - 0.5))
            ticks = np.arange(1, steps.size + 1)
            shown = ticks[:: max(1, steps.size // 4)]
            axis.set_xticks(shown, [str(steps[k - 1]) for k in shown])
            axis.set_title(variant_name(name), fontsize=6.5)
            axis.set_xlabel("training step", fontsize=6)
            axis.set_ylabel("layer", fontsize=6)
        for axis in axes[len(names):]:
            axis.set_visible(False)
        colourbar = figure.colorbar(image, ax=axes.tolist(), shrink=0.9)
        colourbar.set_label(r"$t_{\mathrm{sim}}$ (median over seeds)")
        figure.suptitle(f"token similarity during training, depth {max(data['depth'])}",
                        fontsize=7)
    tidy(figure)
    return figure
