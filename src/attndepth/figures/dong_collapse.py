"""Dong et al.'s rank collapse: log e_{k+1} against log e_k (slope 3 = cubic).

Draws the claims dong.collapse and dong.skip-prevents with their preset
``presets.DONG``; the reference slopes are
:func:`attndepth.theory.rank_collapse.convergence_order` without and with a skip.
Left: both variants over the whole range. Right: the residual stacks, whose
points all lie near e = 1, on their own range, with both slopes drawn through
their median point (slope 1 predicted with a skip, slope 3 without).
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter

from attndepth.claims.presets import DONG
from attndepth.figures.style import new_figure, styled, tidy, variant_colour
from attndepth.simulations.measures.escalation import relative_residuals
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.rank_collapse import convergence_order

NAME = "dong_collapse"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (4, 1)
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
    figure, (whole, zoom) = new_figure(columns=2, aspect=0.42, ncols=2)
    variant = np.array(data["variant"])
    before, after = np.array(data["before"]), np.array(data["after"])
    pure, skip = convergence_order(skip=False), convergence_order(skip=True)
    with styled():
        # residual stacks as open triangles, so that where both kinds meet (e ≈ 1) each shows
        for name, marker, face in (("pure", "o", None), ("residual", "^", "none")):
            rows = variant == name
            whole.loglog(before[rows], after[rows], marker, color=variant_colour(name),
                         markersize=3, markerfacecolor=face, markeredgewidth=0.7,
                         label=f"{name} attention", alpha=0.8)
        grid = np.logspace(-6, 0, 50)
        whole.loglog(grid, grid**pure, "k--", linewidth=0.8,
                     label=rf"$e^{pure}$ (predicted, pure)")
        whole.loglog(grid, grid**skip, "k:", linewidth=0.8,
                     label=rf"$e^{skip}$ (predicted, skip)")
        whole.set_ylim(1e-15, 2)
        whole.set_xlabel(r"$e_k = \|\mathrm{res}(X_k)\|_F / \|X_k\|_F$")
        whole.set_ylabel(r"$e_{k+1}$")
        whole.legend()
        rows = variant == "residual"
        x, y = before[rows], after[rows]
        zoom.loglog(x, y, "^", color=variant_colour("residual"), markersize=3,
                    markerfacecolor="none", markeredgewidth=0.7, alpha=0.8,
                    label="residual attention")
        anchor_x, anchor_y = float(np.median(x)), float(np.median(y))
        span = np.geomspace(x.min(), x.max(), 20)
        zoom.loglog(span, anchor_y * (span / anchor_x) ** skip, "k:", linewidth=0.8,
                    label=f"slope {skip} (predicted, skip)")
        zoom.loglog(span, anchor_y * (span / anchor_x) ** pure, "k--", linewidth=0.8,
                    label=f"slope {pure} (pure)")
        plain = FuncFormatter(lambda value, _: f"{value:g}")  # 0.6, not 6×10⁻¹
        for ticks in (zoom.xaxis, zoom.yaxis):
            ticks.set_major_formatter(plain)
            ticks.set_minor_formatter(plain)
        zoom.set_xlabel(r"$e_k$ (residual stacks only)")
        zoom.set_ylabel(r"$e_{k+1}$")
        zoom.set_title("both slopes through the median point", fontsize=6.5)
        zoom.legend()
    tidy(figure)
    return figure
