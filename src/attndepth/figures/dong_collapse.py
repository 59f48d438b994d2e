"""Dong et al.'s rank collapse: log e_{k+1} against log e_k (slope 3 = cubic).

Draws the claims dong.collapse and dong.skip-prevents with their preset
``presets.DONG``; the reference slopes are
:func:`attndepth.theory.rank_collapse.convergence_order` without and with a skip.
"""

from __future__ import annotations

import numpy as np

from attndepth.figures.style import PALETTE, new_figure, styled
from attndepth.simulations.measures.escalation import relative_residuals
from attndepth.simulations.models.stacks import StackConfig
from attndepth.simulations.presets import DONG
from attndepth.theory.rank_collapse import convergence_order

NAME = "dong_collapse"
DESCRIPTION = "relative residual e_{k+1} vs e_k, pure vs residual stacks (log-log)"


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: variant, before, after (consecutive ‖res(X)‖/‖X‖ above round-off)."""
    size = DONG[preset]
    columns: dict[str, list] = {"variant": [], "before": [], "after": []}
    for variant in ("pure", "residual"):
        config = StackConfig(variant=variant, depth=size["depth"], tokens=size["tokens"],
                             width=size["width"], temperature=size["temperature"])
        e = relative_residuals(config, size["batch"], seed)["frobenius"]
        keep = (e[1:] > 1e-14) & (e[:-1] > 1e-14)
        columns["variant"] += [variant] * int(keep.sum())
        columns["before"] += e[:-1][keep].tolist()
        columns["after"] += e[1:][keep].tolist()
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.85)
    variant = np.array(data["variant"])
    before, after = np.array(data["before"]), np.array(data["after"])
    with styled():
        for colour, name in zip(PALETTE, ("pure", "residual"), strict=False):
            rows = variant == name
            axis.loglog(before[rows], after[rows], "o", color=colour, markersize=2.5,
                        label=f"{name} attention", alpha=0.7)
        grid = np.logspace(-6, 0, 50)
        pure, skip = convergence_order(skip=False), convergence_order(skip=True)
        axis.loglog(grid, grid**pure, "k--", linewidth=0.8,
                    label=rf"$e^{pure}$ (predicted, pure)")
        axis.loglog(grid, grid**skip, "k:", linewidth=0.8,
                    label=rf"$e^{skip}$ (predicted, skip)")
        axis.set_ylim(1e-15, 2)
        axis.set_xlabel(r"$e_k = \|\mathrm{res}(X_k)\|_F / \|X_k\|_F$")
        axis.set_ylabel(r"$e_{k+1}$")
        axis.legend()
    return figure
