"""The spectral gap of attention at initialisation, and rank collapse in width.

Draws the claim naderi.spectral-gap (Naderi, Nait Saada & Tanner 2024). Left:
s₂(A) against T for random Markov matrices at two logit scales s (markers)
with the predicted edge 2κ/√T (lines), and key-query attention of width d
(squares), which does not follow it. Right: stable ranks of X, AX and
(A − Π)X against T for the random Markov model at s = 1, with the predicted
level 1 + κ² of AX.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

from attndepth.claims.presets import NADERI
from attndepth.figures.style import (
    PALETTE,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.spectral_gap import spectrum_sample
from attndepth.theory.spectral_gap import bulk_edge, collapsed_stable_rank

NAME = "naderi_spectral_gap"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 3)
DESCRIPTION = "s2 of attention vs T (random Markov vs key-query) and rank collapse in width"
#: The sequence lengths drawn; width, samples and scale are the claim's (``presets.NADERI``).
TOKENS = {"quick": (16, 32, 64, 128, 256, 512, 1024),
          "full": (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)}
#: Scales of the random Markov ensemble drawn (the claim's scale and a smaller one).
SCALES = (0.5, NADERI["quick"]["scale"])


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: ensemble, scale, tokens, s2, edge, sr_input, sr_attended, sr_removed, level."""
    size = dict(NADERI[preset], tokens=TOKENS[preset])
    columns: dict[str, list] = {k: [] for k in ("ensemble", "scale", "tokens", "s2", "edge",
                                                "sr_input", "sr_attended", "sr_removed",
                                                "level")}
    for ensemble, scales in (("markov", SCALES), ("key-query", (size["scale"],))):
        for scale in scales:
            for T in size["tokens"]:
                row = spectrum_sample(ensemble, T, size["width"], scale, seed, size["samples"])
                for key, value in (("ensemble", ensemble), ("scale", scale), ("tokens", T),
                                   ("s2", row.s2), ("edge", bulk_edge(T, scale)),
                                   ("sr_input", row.stable_rank_input),
                                   ("sr_attended", row.stable_rank_attended),
                                   ("sr_removed", row.stable_rank_outlier_removed),
                                   ("level", collapsed_stable_rank(scale))):
                    columns[key].append(value)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    ensemble, scale = np.array(data["ensemble"]), np.array(data["scale"], dtype=float)
    T = np.array(data["tokens"], dtype=float)
    with styled():
        for colour, s in zip(PALETTE, SCALES, strict=False):
            rows = (ensemble == "markov") & (scale == s)
            left.loglog(T[rows], np.array(data["edge"])[rows], color=colour,
                        label=rf"$2\kappa/\sqrt{{T}}$, $s={s:g}$")
            left.loglog(T[rows], np.array(data["s2"])[rows], "o", color=colour,
                        markerfacecolor="none", markersize=3.5)
        rows = ensemble == "key-query"
        left.loglog(T[rows], np.array(data["s2"])[rows], "s-", color=PALETTE[2], markersize=3,
                    linewidth=0.7, label="key-query, $d=64$")
        left.set_xlabel("tokens $T$")
        left.set_ylabel(r"$s_2(A)$")
        legend_with_keys(left, [style_key("random Markov $A$ (measured)", color="0.3", marker="o",
                                    linestyle="none", markerfacecolor="none",
                                    markersize=3.5)])
        rows = (ensemble == "markov") & (scale == 1.0)
        # colours of their own: in (a) the palette's first three mean s and the key-query case
        for key, colour, marker, label in (("sr_input", "k", "o", "$X$"),
                                           ("sr_removed", PALETTE[3], "s", r"$(A-\Pi)X$"),
                                           ("sr_attended", PALETTE[4], "^", "$AX$")):
            right.loglog(T[rows], np.array(data[key])[rows], f"{marker}-", color=colour,
                         markersize=3, linewidth=0.8, label=label)
        right.axhline(np.array(data["level"])[rows][0], color=PALETTE[4], linestyle=":",
                      linewidth=0.8, label=r"$1+\kappa^2$ (predicted for $AX$)")
        right.set_xlabel("tokens $T$")
        right.set_ylabel("stable rank")
        right.set_title("random Markov $A$, $s=1$, $d=64$", fontsize=6.5)
        right.legend(title="stable rank of", loc="lower right", bbox_to_anchor=(1.0, 0.1))
        # up to the next 1-2-5 value above the data, so that the top is labelled
        top = right.get_ylim()[1]
        right.set_ylim(top=1.05 * min(m * 10.0**e for e in range(-3, 7) for m in (1, 2, 5)
                                      if m * 10.0**e >= top))
        sizes = np.unique(T)
        for axis in (left, right):  # plain numbers: T at its sizes, y at 1, 2, 5 a decade
            axis.set_xticks(sizes, [f"{size:g}" for size in sizes])
            axis.xaxis.set_minor_locator(NullLocator())
            axis.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            axis.yaxis.set_minor_formatter(NullFormatter())
    tidy(figure)
    return figure
