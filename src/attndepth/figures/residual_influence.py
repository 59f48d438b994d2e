"""Residual connections against the first-token collapse: the influence of each input
token on the last, pre-LN against post-LN, with the influence Gram recursion.

Draws the claim herasimchyk.residual-influence (Herasimchyk et al. 2026, arXiv
2602.16837) at initialisation: causal stacks at the claim's sizes (near-uniform
attention). (a) The non-first share of the last token's influence ‖∂x_n^L/∂x_j^0‖²_F/d
against the depth, log-log: pre-LN (a power of L) and post-LN (exponential), measured
(markers: mean over seeds, 99 % intervals) on the recursion's lines; dashed, the
attention-only rollout's non-first mass (Wu et al. 2025) and dotted the fixed-skip
rollout ½I + ½A (Abnar & Zuidema 2020). (b) The pre-LN influence profile over the input
positions at three depths, normalised to sum 1: the first token's share grows, the last
keeps its skip path, the middle is lowest — U-shaped at every finite depth.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import RESIDUAL_INFLUENCE
from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    VARIANT_COLOURS,
    VARIANT_NAMES,
    interval_half_width,
    legend_with_keys,
    measured_and_predicted,
    measured_key,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.measures.token_influence import last_token_influence
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.position_bias import mask_attention
from attndepth.theory.residual_influence import influence_profile, non_first_share

NAME = "residual_influence"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 7, 0, 2)
DESCRIPTION = "non-first share of the last token's influence against depth, pre-LN and post-LN"
DEPTH = 32
VARIANTS = ("pre-ln", "post-ln")
SEEDS = 6
#: The depths of panel (b), and their colours (none of panel (a)'s).
PROFILE_DEPTHS = (2, 8, 32)
PROFILE_COLOURS = (PALETTE[4], PALETTE[5], "#000000")
#: Shares below this are not drawn (post-LN's reach 1e-5 at L = 32).
SMALLEST = 1e-4
COLUMNS = ("panel", "variant", "depth", "position", "measured", "error", "predicted", "seeds")


def compute(preset: str, seed: int) -> dict[str, list]:
    """Rows of panel ``share`` (per variant and depth) and ``profile`` (pre-LN, per depth
    and input position): the mean over seeds, its standard error and the recursion's."""
    size = RESIDUAL_INFLUENCE[preset]
    tokens, width = size["tokens"], size["width"]
    columns: dict[str, list] = {key: [] for key in COLUMNS}

    def add(*row: object) -> None:
        for key, value in zip(COLUMNS, row, strict=True):
            columns[key].append(value)

    depths = tuple(range(DEPTH + 1))
    for variant in VARIANTS:
        config = StackConfig(variant=variant, causal=True, temperature=size["temperature"],
                             width=width, tokens=tokens, depth=DEPTH)
        runs = np.array([last_token_influence(config, size["batch"], seed + k,
                                              size["directions"]) for k in range(SEEDS)])
        shares = runs[:, :, 1:].sum(axis=2) / runs.sum(axis=2)  # (seeds, L + 1)
        predicted = influence_profile(tokens, width, depths, placement=variant[:-3])
        for depth in range(1, DEPTH + 1):
            add("share", variant, depth, 0, float(shares[:, depth].mean()),
                float(shares[:, depth].std(ddof=1) / math.sqrt(SEEDS)),
                non_first_share(predicted[depth]), SEEDS)
        if variant == "pre-ln":
            profile = runs / runs.sum(axis=2, keepdims=True)
            for depth in PROFILE_DEPTHS:
                expected = np.asarray(predicted[depth]) / sum(predicted[depth])
                for position in range(tokens):
                    add("profile", variant, depth, position + 1,
                        float(profile[:, depth, position].mean()),
                        float(profile[:, depth, position].std(ddof=1) / math.sqrt(SEEDS)),
                        float(expected[position]), SEEDS)
    mask = np.asarray(mask_attention(tokens, 0.0))
    for name, step in (("attention-only", mask),
                       ("fixed skip", 0.5 * np.eye(tokens) + 0.5 * mask)):
        power = np.eye(tokens)
        for depth in range(1, DEPTH + 1):
            power = step @ power
            add("rollout", name, depth, 0, math.nan, math.nan, float(power[-1, 1:].sum()), 0)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    array = {k: np.array(v) for k, v in data.items()}
    panel, variant = array["panel"], array["variant"]
    depth = array["depth"].astype(int)
    measured, predicted = array["measured"].astype(float), array["predicted"].astype(float)
    error = np.zeros_like(measured)
    seeds = array["seeds"].astype(float)
    counted = seeds > 1
    error[counted] = interval_half_width(array["error"].astype(float)[counted],
                                         seeds[counted])
    with styled():
        for name in VARIANTS:
            rows = (panel == "share") & (variant == name)
            colour = VARIANT_COLOURS[name]
            shown = rows & (measured > SMALLEST)
            left.errorbar(depth[shown], measured[shown], yerr=error[shown], fmt="o",
                          color=colour, markersize=2.0, elinewidth=0.5,
                          label=VARIANT_NAMES[name])
            line = rows & (predicted > SMALLEST)
            left.plot(depth[line], predicted[line], "-", color=colour, linewidth=0.8)
        for name, line in (("attention-only", "--"), ("fixed skip", ":")):
            rows = (panel == "rollout") & (variant == name) & (predicted > SMALLEST)
            left.plot(depth[rows], predicted[rows], line, color="0.35", linewidth=0.8)
        left.set_xscale("log", base=2)
        left.set_yscale("log")
        left.set_ylim(SMALLEST, 1.5)
        left.set_xlabel("depth $L$")
        left.set_ylabel("non-first share of the influence (log scale)")
        recursion = style_key("recursion", color="0.3", linestyle="-")
        legend_with_keys(left, [
            measured_key(), recursion,
            style_key("attention-only rollout", color="0.35", linestyle="--"),
            style_key("rollout ½I + ½A", color="0.35", linestyle=":")],
            loc="lower left")
        for colour, level in zip(PROFILE_COLOURS, PROFILE_DEPTHS, strict=True):
            rows = (panel == "profile") & (depth == level)
            position = array["position"][rows].astype(int)
            measured_and_predicted(right, position, measured[rows], error[rows],
                                   predicted[rows], colour, f"$L$ = {level}")
        right.set_yscale("log")
        right.set_xlabel("input position $j$")
        right.set_ylabel("share of the last token's influence (log scale)")
        legend_with_keys(right, [measured_key(), recursion], loc="upper center")
        count = int(seeds[counted][0])
        left.set_title(f"causal stacks, near-uniform attention; {count} seeds, "
                       f"{INTERVAL_TEXT}", fontsize=6)
        right.set_title("pre-LN: first token up, last token kept, middle lowest",
                        fontsize=6)
    tidy(figure)
    return figure
