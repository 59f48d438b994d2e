"""The curse of depth at initialisation: variance growth and near-identity blocks.

Draws the claims sun.variance-growth and sun.near-identity (Sun et al. 2025, arXiv
2502.05795) on pre-LN stacks with their feed-forward branch, with and without LayerNorm
scaling (LNS, block ℓ reads LN(x)/√ℓ). (a) The growth of the stream's mean square,
D_ℓ − D_0, against ℓ (mean over stacks, bars its 99 % interval); shaded, the law's
range Σ s_ℓ² c_ℓ with c_ℓ ∈ [1, 2] (ℓ to 2ℓ for pre-LN, H_ℓ to 2H_ℓ with LNS). (b) Each
block's distance from the identity, δ_ℓ = ‖(J_ℓ − I)u‖/‖u‖, against ℓ on log-log axes;
dashed, (**) δ_ℓ = k s_ℓ/σ_ℓ with σ_ℓ the measured rms of the block's input and k
matched at the claim's first probe, ℓ = L (the claims test L against 2L).
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import CURSE_OF_DEPTH
from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    VARIANT_COLOURS,
    interval_half_width,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.block_jacobian import depth_profile
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.curse_of_depth import SCALINGS, growth_sum, input_scale

NAME = "curse_of_depth"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 6)
DESCRIPTION = "variance growth and blocks' distance from the identity, pre-LN and LNS"
#: One colour per block input (pre-LN's of every figure; LNS one no variant has); every
#: block up to 2L of the claim's preset is drawn.
COLOURS = {"pre-LN": VARIANT_COLOURS["pre-ln"], "LNS": PALETTE[5]}


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns per (scaling, block ℓ): growth D_ℓ − D_0 and its standard error, the law's
    range (low, high), δ_ℓ and its standard error, the (**) line, and the sizes."""
    size = CURSE_OF_DEPTH[preset]
    last = 2 * size["depth"]
    blocks = range(1, last + 1)
    columns: dict[str, list] = {k: [] for k in (
        "scaling", "block", "growth", "growth_error", "low", "high", "deviation",
        "deviation_error", "law", "tokens", "width", "batch")}
    for scaling in SCALINGS:
        config = StackConfig(variant="pre-ln", depth=last, tokens=size["tokens"],
                             width=size["width"], ffn=True, norm_scaling=scaling == "LNS")
        profile = depth_profile(config, size["batch"], seed, probes=blocks)
        growth = profile.variance - profile.variance[0]
        power = 0.0 if scaling == "pre-LN" else 1.0
        rms = np.sqrt(profile.variance.mean(axis=1))
        ratio = [input_scale(scaling, ell) / rms[ell - 1] for ell in blocks]
        k = float(profile.deviation[size["depth"]].mean()) / ratio[size["depth"] - 1]
        for ell in blocks:
            deviation = profile.deviation[ell]
            row = (scaling, ell, float(growth[ell].mean()),
                   float(growth[ell].std(ddof=1) / np.sqrt(growth.shape[1])),
                   growth_sum(power, ell), 2 * growth_sum(power, ell), float(deviation.mean()),
                   float(deviation.std(ddof=1) / np.sqrt(deviation.size)), k * ratio[ell - 1],
                   size["tokens"], size["width"], size["batch"])
            for key, value in zip(columns, row, strict=True):
                columns[key].append(value)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    scaling = np.array(data["scaling"])
    block = np.array(data["block"], dtype=float)
    stacks = np.array(data["batch"], dtype=float)
    growth_bars = interval_half_width(np.array(data["growth_error"], dtype=float), stacks)
    deviation_bars = interval_half_width(np.array(data["deviation_error"], dtype=float), stacks)
    with styled():
        for name, colour in COLOURS.items():
            rows = scaling == name
            label = "pre-LN" if name == "pre-LN" else r"LNS, LN$(x)/\sqrt{\ell}$"
            left.fill_between(block[rows], np.array(data["low"])[rows],
                              np.array(data["high"])[rows], color=colour, alpha=0.18,
                              linewidth=0)
            left.errorbar(block[rows], np.array(data["growth"])[rows],
                          yerr=growth_bars[rows], fmt="o", color=colour,
                          markersize=2.5, elinewidth=0.6, capsize=1.2, label=label)
            right.errorbar(block[rows], np.array(data["deviation"])[rows],
                           yerr=deviation_bars[rows], fmt="o",
                           color=colour, markersize=2.5, elinewidth=0.6, capsize=1.2,
                           label=label)
            right.plot(block[rows], np.array(data["law"])[rows], "--", color=colour,
                       linewidth=0.8)
        # the band's key in each band's colour, side by side (a grey patch would name a
        # band no series has)
        from matplotlib.legend_handler import HandlerTuple
        from matplotlib.patches import Patch

        bands = tuple(Patch(color=COLOURS[scaling], alpha=0.25) for scaling in SCALINGS)
        handles, labels = left.get_legend_handles_labels()
        left.legend([*handles, bands], [*labels, r"the law's range, $c_\ell \in [1, 2]$"],
                    handler_map={tuple: HandlerTuple(ndivide=None, pad=0.0)},
                    loc="upper left")
        left.set_xlabel(r"block $\ell$")
        left.set_ylabel(r"$D_\ell - D_0$, $D_\ell = \|x_\ell\|^2/(nd)$")
        legend_with_keys(right, [style_key(r"$k\,s_\ell/\sigma_\ell$ (measured $\sigma_\ell$)",
                                           linestyle="--", color="0.3", linewidth=0.8)],
                         loc="lower left")
        right.set_xscale("log", base=2)
        right.set_yscale("log")
        ticks = [2**k for k in range(int(np.log2(block.max())) + 1)]
        right.set_xticks(ticks, [f"{t:g}" for t in ticks])
        right.minorticks_off()
        right.set_xlabel(r"block $\ell$")
        right.set_ylabel(r"$\delta_\ell = \|(J_\ell - I)u\|/\|u\|$")
        tokens, width, batch = (int(data[k][0]) for k in ("tokens", "width", "batch"))
        left.set_title(f"pre-LN + FFN at initialisation, n = {tokens}, d = {width}",
                       fontsize=6)
        right.set_title(f"{batch} stacks a point, {INTERVAL_TEXT}; $k$ matched at "
                        f"$\\ell = {int(block.max()) // 2}$", fontsize=6)
    tidy(figure)
    return figure
