"""One hemisphere, one cluster (Geshkovski et al. 2023; Wendel 1962).

Left: the probability that n uniform tokens on S^{d−1} lie in one open
hemisphere — Wendel's formula (lines) and Monte Carlo fractions with their
99.99 % Clopper–Pearson intervals (markers; the claim's level: a true probability falls
outside once in 10⁴). Right: the largest pairwise distance of tokens started in one
hemisphere against time, for several β: the larger β, the longer the tokens sit in
metastable clusters before they merge; the dotted line is the claim's "one cluster"
diameter. The β curves take the palette's second half and a line style each, so that
no colour means a width in one panel and a β in the other, and β = 0 and 1, which
nearly coincide, stay apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import binomtest

from attndepth.claims.presets import CLUSTER_DIAMETER, DIAMETER_RESOLUTION, WENDEL_LEVEL
from attndepth.figures.style import (
    PALETTE,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.models.sphere_dynamics import (
    cluster_diameter,
    hemisphere_fraction,
    hemisphere_tokens,
    integrate_tokens,
)
from attndepth.theory.clustering import wendel_probability

NAME = "geshkovski_cluster"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 2)
DESCRIPTION = "P(one hemisphere): Wendel vs Monte Carlo; cluster diameter vs time for several beta"
#: What the figure draws beyond the claim (``presets.GESHKOVSKI_CLUSTER``, one (n, d) and
#: one β): every n up to max_tokens at several d, and several β. Fewer trials per point
#: than the claim's (a point costs about 1 s per 1,000 trials here, and the figure draws 30).
SIZES: dict[str, dict[str, Any]] = {"quick": dict(trials=400, max_tokens=10, dimensions=(2, 3, 4),
                       betas=(0.0, 1.0, 4.0, 9.0), flow_tokens=8, flow_dimension=4),
         "full": dict(trials=4000, max_tokens=16, dimensions=(2, 3, 4, 6),
                      betas=(0.0, 1.0, 4.0, 9.0), flow_tokens=8, flow_dimension=4)}
#: Line styles of the β curves, in order.
BETA_STYLES = ("-", "--", "-.", ":")
#: Their palette entries: pink, orange, sky blue, black (none used for d on the left).
BETA_COLOURS = (3, 4, 5, 7)


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: panel, series, x, value, low, high (interval; nan where none), trials."""
    size = SIZES[preset]
    columns: dict[str, list] = {k: [] for k in ("panel", "series", "x", "value", "low", "high",
                                                "trials")}

    def add(panel, series, x, value, low=float("nan"), high=float("nan")):
        for key, item in zip(columns, (panel, series, x, value, low, high, size["trials"]),
                             strict=True):
            columns[key].append(item)

    for d in size["dimensions"]:
        for n in range(1, size["max_tokens"] + 1):
            add("wendel", f"d={d}", n, float(wendel_probability(n, d)))
            hits = hemisphere_fraction(n, d, size["trials"], seed + n)
            ci = binomtest(hits, size["trials"]).proportion_ci(confidence_level=WENDEL_LEVEL)
            add("monte-carlo", f"d={d}", n, hits / size["trials"], ci.low, ci.high)
    times = np.logspace(-1, 4, 161)
    X0 = hemisphere_tokens(size["flow_tokens"], size["flow_dimension"], seed)
    for beta in size["betas"]:
        diameter = cluster_diameter(integrate_tokens(X0, beta, np.concatenate([[0], times])))
        for t, value in zip(times, diameter[1:], strict=True):
            add("diameter", f"β={beta:g}", float(t), float(value))
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    panel, series = np.array(data["panel"]), np.array(data["series"])
    x, value = np.array(data["x"], dtype=float), np.array(data["value"], dtype=float)
    low, high = np.array(data["low"], dtype=float), np.array(data["high"], dtype=float)
    with styled():
        for colour, name in zip(PALETTE, dict.fromkeys(series[panel == "wendel"]), strict=False):
            line = (panel == "wendel") & (series == name)
            left.plot(x[line], value[line], color=colour, label=name)
            dots = (panel == "monte-carlo") & (series == name)
            left.errorbar(x[dots], value[dots], yerr=[value[dots] - low[dots],
                                                      high[dots] - value[dots]],
                          fmt="o", color=colour, markerfacecolor="none", markersize=3,
                          elinewidth=0.6, capsize=0)
        left.set_xlabel("tokens $n$")
        left.set_ylabel("P(one open hemisphere)")
        trials = int(data["trials"][0]) if "trials" in data else None
        left.set_title((f"{trials} trials a point; " if trials else "")
                       + f"{WENDEL_LEVEL:.2%} Clopper–Pearson intervals", fontsize=6)
        legend_with_keys(left, [
            style_key("Wendel's formula", color="0.3"),
            style_key("Monte Carlo", color="0.3", marker="o", markerfacecolor="none",
                      linestyle="none", markersize=3)])
        names = dict.fromkeys(series[panel == "diameter"])
        beta_colours = [PALETTE[i] for i in BETA_COLOURS]
        for colour, style, name in zip(beta_colours, BETA_STYLES, names, strict=False):
            rows = (panel == "diameter") & (series == name)
            # below the resolution only "collapsed" is known: clip there
            right.loglog(x[rows], np.maximum(value[rows], DIAMETER_RESOLUTION), color=colour,
                         linestyle=style, label=name)
        right.axhline(CLUSTER_DIAMETER, color="0.4", linewidth=0.6, linestyle=":",
                      label=f"one cluster, {CLUSTER_DIAMETER:g}")
        right.axhspan(1e-12, DIAMETER_RESOLUTION, color="0.92", linewidth=0)
        right.text(2e2, 2e-11, "integration error", fontsize=6, color="0.4")
        right.set_ylim(1e-12, 1e2)
        right.set_xlabel("time $t$")
        right.set_ylabel(r"$\max_{i,j} \|x_i - x_j\|$")
        right.set_title("tokens from one hemisphere: metastable, then one cluster",
                        fontsize=6.5)
        right.set_yticks([1e-12, 1e-9, 1e-6, 1e-3, 1e0])
        right.legend(loc="upper right", ncols=2)
    tidy(figure)
    return figure
