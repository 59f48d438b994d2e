"""Collapse rate of pure attention against the mask's window and radius.

Draws the claim wu.masks (Wu et al. 2024). Left: the median token log-odds
against depth for band windows of several widths (full attention for
reference). Right: the fitted collapse rate against the mask radius r, for
band and causal sliding windows (error bars: 99 % intervals of the mean rate over stacks).
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import WU_MASKS
from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    interval_half_width,
    new_figure,
    separate_labels,
    styled,
    tidy,
)
from attndepth.simulations.measures.collapse import collapse_sample
from attndepth.simulations.measures.similarity import log_odds
from attndepth.simulations.models.stacks import StackConfig, run_stack
from attndepth.theory.masks import mask_radius

NAME = "wu_masks"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 9)
DESCRIPTION = "rank collapse of pure attention under local masks: log-odds and rate vs radius"
#: The windows drawn; tokens, width, depth and batch are the claim's (``presets.WU_MASKS``).
WINDOWS = {"quick": (2, 3, 4, 6, 8), "full": (2, 3, 4, 6, 8, 12, 16)}
PROFILE_WINDOWS = (2, 4, 8, None)


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: panel, causal, window (0 = none), x (layer or radius), value, error (the
    standard error of a mean rate), stacks."""
    size = dict(WU_MASKS[preset], windows=WINDOWS[preset])
    columns: dict[str, list] = {k: [] for k in ("panel", "causal", "window", "x", "value",
                                                "error", "stacks")}

    def add(*row):
        for key, item in zip(columns, row, strict=True):
            columns[key].append(item)

    shape = dict(variant="pure", depth=size["depth"], tokens=size["tokens"], width=size["width"],
                 sampling="law")
    for window in PROFILE_WINDOWS:
        states = run_stack(StackConfig(window=window, **shape), size["batch"], seed).states
        for layer, value in enumerate(np.median(log_odds(states), axis=1)):
            add("profile", False, window or 0, layer, float(value), float("nan"),
                size["batch"])
    for causal in (False, True):
        for window in size["windows"]:
            sample = collapse_sample(StackConfig(window=window, causal=causal, **shape),
                                     size["batch"], seed)
            add("rate", causal, window, mask_radius(size["tokens"], window, causal),
                sample.mean_rate, sample.rate_error, size["batch"])
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    panel, causal = np.array(data["panel"]), np.array(data["causal"], dtype=bool)
    window = np.array(data["window"], dtype=int)
    x, value = np.array(data["x"], dtype=float), np.array(data["value"], dtype=float)
    error = interval_half_width(np.array(data["error"], dtype=float),
                                np.array(data["stacks"], dtype=float))
    with styled():
        # one colour per mask kind in both panels (band: the first); windows by line style
        for style, w in zip((":", "--", "-."), [w for w in PROFILE_WINDOWS if w], strict=True):
            rows = (panel == "profile") & (window == w)
            left.plot(x[rows], value[rows], style, color=PALETTE[0], label=f"band window $w={w}$")
        rows = (panel == "profile") & (window == 0)
        left.plot(x[rows], value[rows], "-", color="k", label="full attention")
        left.set_xlabel("depth $l$")
        left.set_ylabel(r"median log-odds $\ln(t_{\mathrm{sim}}/t_{\mathrm{div}})$")
        left.set_title("pure attention: local masks slow the collapse", fontsize=6.5)
        plateau = value[rows][-1] if rows.any() else None
        if plateau is not None:  # full attention stops where float64 stops resolving t_div
            left.annotate(r"float64 floor of $t_{\mathrm{div}}$", (x[rows][-1], plateau),
                          textcoords="offset points", xytext=(-4, -9), ha="right",
                          fontsize=6, color="0.3")
        # beside the rise of full attention, not over it
        left.legend(loc="upper left", bbox_to_anchor=(0.12, 0.9))
        labels = []
        for colour, kind in zip(PALETTE, (False, True), strict=False):
            rows = (panel == "rate") & (causal == kind)
            order = np.argsort(x[rows])
            right.errorbar(x[rows][order], value[rows][order], yerr=error[rows][order],
                           fmt="o-", color=colour, markersize=3, linewidth=0.8,
                           elinewidth=0.6, capsize=0,
                           label="causal sliding window" if kind else "band window")
            for radius, rate, w in zip(x[rows], value[rows], window[rows], strict=True):
                labels.append(right.annotate(f"$w={w}$", (radius, rate),
                                             textcoords="offset points", xytext=(4, 2),
                                             fontsize=5, color=colour))
        right.set_xscale("log", base=2)
        right.set_yscale("log")
        right.margins(y=0.12)  # room for the labels of the fastest windows
        right.set_xlabel("mask radius $r$")
        right.set_ylabel("collapse rate (log-odds per layer)")
        right.set_title(f"rate falls with r within a mask kind, not across kinds; "
                        f"{INTERVAL_TEXT}", fontsize=6)
        right.legend(loc="lower left")
        separate_labels(figure, labels, step_points=2.5)
    tidy(figure)
    return figure
