"""Position bias: the cumulative attention of causal attention-only stacks collapses onto
the first token, at the decay mask's own rate.

Draws the claim wu.position-bias (Wu et al. 2025, arXiv 2502.01951) at initialisation:
attention-only causal stacks at the claim's sizes with decay masks m = 0, ½, 1, 2.
(a) The mean first-token deficit of P_L = A_L ⋯ A_1 (the mass positions 2 … n leave off
the first token; markers with 99 % intervals over the stacks) against the depth, with
the mask's own rollout M^L (lines): the decay delays the collapse and slows its rate,
ln(1 + e^{−m}) a layer, but does not stop it. (b) The last position's cumulative
attention over the input positions at m = 1, at depths 1, 4, 16 and 32 (markers: measured
means; lines: M^L's row): the front moves toward the first token at e^{−m}/(1 − e^{−m})
positions a layer and then piles up there.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import POSITION_BIAS
from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    interval_half_width,
    legend_with_keys,
    measured_and_predicted,
    measured_key,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.attention_rollout import (
    attention_rollout,
    first_token_deficit,
)
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.position_bias import mask_attention, rollout_deficits

NAME = "position_bias"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 7, 0, 1)
DESCRIPTION = "first-token deficit of causal attention rollout against depth, by decay mask"
DECAYS = (0.0, 0.5, 1.0, 2.0)
DEPTH = 48
#: The decay and depths of panel (b).
PROFILE_DECAY = 1.0
PROFILE_DEPTHS = (1, 4, 16, 32)
#: Their colours: none of panel (a)'s.
PROFILE_COLOURS = (PALETTE[4], PALETTE[5], "#808080", "#000000")
#: Deficits below this are not drawn (float64 sums of products reach ~1e-300, but the
#: axis would span nothing visible).
SMALLEST = 1e-7
COLUMNS = ("panel", "decay", "depth", "position", "measured", "error", "predicted", "stacks")


def compute(preset: str, seed: int) -> dict[str, list]:
    """Rows of panel ``deficit`` (per decay and depth) and ``profile`` (per depth and
    position): the measured mean, its standard error and M^L's value."""
    size = POSITION_BIAS[preset]
    tokens, batch = size["tokens"], size["batch"]
    columns: dict[str, list] = {key: [] for key in COLUMNS}

    def add(*row: object) -> None:
        for key, value in zip(COLUMNS, row, strict=True):
            columns[key].append(value)

    for decay in DECAYS:
        config = StackConfig(variant="pure", causal=True, decay=decay, depth=DEPTH,
                             tokens=tokens, width=size["width"],
                             temperature=size["temperature"])
        rollout = attention_rollout(config, batch, seed)
        deficit = first_token_deficit(rollout).mean(axis=2)  # (L + 1, batch)
        predicted = rollout_deficits(tokens, decay, DEPTH)
        for depth in range(DEPTH + 1):
            add("deficit", decay, depth, 0, float(deficit[depth].mean()),
                float(deficit[depth].std(ddof=1) / math.sqrt(batch)), predicted[depth],
                batch)
        if decay == PROFILE_DECAY:
            mask = np.asarray(mask_attention(tokens, decay))
            for depth in PROFILE_DEPTHS:
                row = rollout[depth, :, -1]  # (batch, n)
                expected = np.linalg.matrix_power(mask, depth)[-1]
                for position in range(tokens):
                    add("profile", decay, depth, position + 1, float(row[:, position].mean()),
                        float(row[:, position].std(ddof=1) / math.sqrt(batch)),
                        float(expected[position]), batch)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    array = {k: np.array(v) for k, v in data.items()}
    panel = array["panel"]
    error = interval_half_width(array["error"].astype(float), array["stacks"].astype(float))
    measured, predicted = array["measured"].astype(float), array["predicted"].astype(float)
    depth, decay = array["depth"].astype(int), array["decay"].astype(float)
    with styled():
        for index, (colour, m) in enumerate(zip(PALETTE, DECAYS, strict=False)):
            rows = (panel == "deficit") & (decay == m)
            # every other depth from L = 2, alternating between the decays: near L = 0
            # every deficit is close to 1 and the markers would coincide
            shown = rows & (measured > SMALLEST) & (depth >= 2) & (depth % 2 == index % 2)
            left.errorbar(depth[shown], measured[shown], yerr=error[shown], fmt="o",
                          color=colour, markersize=2.0, elinewidth=0.5,
                          label=f"$m$ = {m:g} (rate {math.log1p(math.exp(-m)):.3f})")
            line = rows & (predicted > SMALLEST)
            left.plot(depth[line], predicted[line], "-", color=colour, linewidth=0.8)
        left.set_yscale("log")
        left.set_ylim(SMALLEST, 1.5)
        left.set_xlabel("depth $L$")
        left.set_ylabel("first-token deficit of $P_L$ (log scale)")
        keys = [measured_key(), style_key("$M^L$", color="0.3", linestyle="-")]
        legend_with_keys(left, keys, loc="lower left", ncol=2)
        for colour, level in zip(PROFILE_COLOURS, PROFILE_DEPTHS, strict=True):
            rows = (panel == "profile") & (depth == level)
            position = array["position"][rows].astype(int)
            measured_and_predicted(right, position, measured[rows], error[rows],
                                   predicted[rows], colour, f"$L$ = {level}")
        right.set_xlabel("input position $j$")
        right.set_ylabel(r"$(P_L)_{nj}$, last position $n$")
        legend_with_keys(right, keys, loc="upper center")
        stacks = int(array["stacks"][0])
        left.set_title(f"attention-only causal stacks, {stacks} a point; {INTERVAL_TEXT}",
                       fontsize=6)
        right.set_title(f"$m$ = {PROFILE_DECAY:g}: markers measured, lines $M^L$",
                        fontsize=6)
    tidy(figure)
    return figure
