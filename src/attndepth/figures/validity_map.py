"""The validity map of a claim: its error with intervals against one parameter.

Drawn by ``attndepth map`` from the numbers :mod:`attndepth.framework.validity`
computes (this module only draws): the mean error of the claim's prediction at
each grid point with its confidence interval, the tolerance band shaded, points
outside the claim's family open, and the fitted ``|error| ≈ c·x^(−k)`` dashed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attndepth.figures.style import (
    PALETTE,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)

#: Each verdict's marker and colour on a map (a point without a verdict: the first colour):
#: green holds, vermilion fails, grey inconclusive.
VERDICT_STYLES: dict[str, tuple[str, str]] = {
    "holds": ("o", PALETTE[2]), "fails": ("X", PALETTE[1]),
    "inconclusive": ("s", "0.55"), "indistinguishable": ("D", PALETTE[4]),
    "consistent": ("o", PALETTE[2]), "inconsistent": ("X", PALETTE[1]),
    "error": ("x", "0.3"),
}


def draw_validity_map(x: Sequence[float], mean: Sequence[float], low: Sequence[float],
                      high: Sequence[float], in_family: Sequence[bool | None], *,
                      parameter: str, label: str, claim: str,
                      band: tuple[float, float] | None = None,
                      scaling: tuple[float, float] | None = None, log_x: bool = True,
                      verdicts: Sequence[str] | None = None):
    """Draw one validity map; returns the matplotlib figure.

    Parameters
    ----------
    x : (n,) values of the mapped parameter.
    mean, low, high : (n,) the mean error and its interval at each point.
    in_family : (n,) whether each point lies in the claim's family.
    parameter, label, claim : axis label, error label and title.
    band : (low, high), optional
        The tolerance band. A one-sided band (one infinite edge: a margin that must stay
        above or below a value) is shaded from its finite edge to the axes' edge and
        labelled as a bound; the y axis spans the points and the finite edges, never the
        infinite one.
    scaling : (c, k), optional
        ``|error| ≈ c·x^(−k)``, drawn with the sign of the errors; not drawn with a
        one-sided band (a margin has no power law to approach 0 by).
    log_x : bool
        A logarithmic x axis (widths, token counts).
    verdicts : (n,) str, optional
        Each point's verdict: drawn in its own marker and colour (:data:`VERDICT_STYLES`),
        so that a point that holds never looks like one that is inconclusive.
    """
    drawn = np.isfinite(np.asarray(mean, dtype=float))  # points that raised have no number
    xs, ms, lows, highs = (np.asarray(v, dtype=float)[drawn] for v in (x, mean, low, high))
    inside = np.array([flag is not False for flag in in_family], dtype=bool)[drawn]
    one_sided = band is not None and not all(np.isfinite(band))
    if one_sided:
        scaling = None
    # the y range: the intervals, 0 and the band's finite edges, with a margin
    spans = [*lows[np.isfinite(lows)], *highs[np.isfinite(highs)], 0.0,
             *(edge for edge in (band or ()) if np.isfinite(edge))]
    bottom, top = min(spans), max(spans)
    pad = 0.08 * (top - bottom) if top > bottom else 1.0
    bottom, top = bottom - pad, top + pad
    with styled():
        figure, axes = new_figure(1, aspect=0.7)
        if band is not None:
            lo, hi = band
            name = ("tolerance band" if not one_sided else
                    f"tolerance: above {lo:g}" if np.isfinite(lo) else f"tolerance: below {hi:g}")
            axes.axhspan(max(lo, bottom), min(hi, top), color="0.9", zorder=0, label=name)
        axes.axhline(0, color="0.5", linewidth=0.6, zorder=1)
        words = (np.array(["" for _ in xs], dtype=object) if verdicts is None else
                 np.array([str(v) for v in verdicts], dtype=object)[drawn])
        for word in dict.fromkeys(words):
            marker, colour = VERDICT_STYLES.get(word, ("o", PALETTE[0]))
            for mask, face in ((inside & (words == word), None),
                               (~inside & (words == word), "white")):
                if mask.any():
                    axes.errorbar(xs[mask], ms[mask], yerr=[ms[mask] - lows[mask],
                                                            highs[mask] - ms[mask]],
                                  fmt=marker, color=colour, markerfacecolor=face, capsize=2,
                                  label=(word or "in the family") if face is None or not (
                                      inside & (words == word)).any() else None, zorder=3)
        if (~inside).any():
            legend_keys = [style_key("open: outside the family", color="0.3", marker="o",
                                     linestyle="none", markerfacecolor="white")]
        else:
            legend_keys = []
        if scaling is not None:
            c, k = scaling
            grid = np.geomspace(xs.min(), xs.max(), 100) if log_x else np.linspace(
                xs.min(), xs.max(), 100)
            sign = 1.0 if np.mean(ms) >= 0 else -1.0
            axes.plot(grid, sign * c * grid ** (-k), "--", color="0.3",
                      label=f"fit {c:.2g}·{parameter}$^{{-{k:.2f}}}$", zorder=2)
        if log_x:
            axes.set_xscale("log", base=2)
        axes.set_ylim(bottom, top)
        axes.set_xlabel(parameter)
        axes.set_ylabel(label)
        axes.set_title(claim)
        legend_with_keys(axes, legend_keys)
    tidy(figure)
    return figure
