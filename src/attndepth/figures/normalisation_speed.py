"""Normalisation as speed regulation: five schemes, one trajectory of token directions.

Draws the claim karagodin.speed-regulation (Karagodin et al. 2025, arXiv 2510.22026) at
initialisation. (a) The tokens' mean cosine against depth for post-LN, pre-LN, Mix-LN,
Peri-LN and nGPT (the claim's reference step, a = 0.3) blocks at the claim's sizes:
post-LN (and Mix-LN's post-LN quarter) aligns the tokens in a few blocks, Peri-LN moves
fastest at first and then slows, nGPT moves at a constant speed. (b) The same cosines
against each scheme's clock: nGPT's T = ℓ ln(1 + a²/(1 − a)²) for a = 0.1 and 0.2, Peri-LN's derived
T = ln(1 + ℓβ²/s) for β = ½, 1 and 2, pre-LN's measured ln(r²_ℓ/r²_0): one curve.
Dotted: Peri-LN (β = 1) on the paper's aligned clock 2 ln(1 + ℓβ/√s), which it leaves.
A large first Peri-LN step (h = β²/(s + β²)) lags the continuous clock; from there on
the points follow nGPT's curve (the claim fits the clock's slope from ℓ = L/4).
Intervals: 99 % over the stacks' mean cosines.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attndepth.claims.presets import NORMALISATION_SPEED
from attndepth.figures.style import (
    INTERVAL_TEXT,
    PALETTE,
    VARIANT_COLOURS,
    interval_half_width,
    new_figure,
    styled,
    tidy,
)
from attndepth.simulations.measures.token_speed import mean_cosine, squared_radius
from attndepth.simulations.models.stacks import StackConfig, run_stack
from attndepth.theory.normalisation_speed import aligned_time, ngpt_time, peri_time

NAME = "normalisation_speed"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 5, 1)
DESCRIPTION = "token cosine vs depth for five normalisation schemes, and vs each one's clock"
#: Panel (a): the schemes as block options (nGPT's step is the claim's reference step).
SCHEMES: dict[str, dict[str, Any]] = {
    "post-LN": dict(norm="post"), "pre-LN": dict(norm="pre"), "Mix-LN": dict(norm="mix"),
    "Peri-LN": dict(norm="peri"), "nGPT": dict(norm="ngpt")}
#: Each scheme's colour (post-LN and pre-LN as in every figure) and marker.
COLOURS = {"post-LN": VARIANT_COLOURS["post-ln"], "pre-LN": VARIANT_COLOURS["pre-ln"],
           "Mix-LN": "0.45", "Peri-LN": PALETTE[5], "nGPT": PALETTE[2]}
MARKERS = {"post-LN": "o", "pre-LN": "s", "Mix-LN": "x", "Peri-LN": "^", "nGPT": "D"}
#: Panel (b): Peri-LN's branch scales and nGPT's steps.
BETAS = (0.5, 1.0, 2.0)
STEPS = (0.1, 0.2)
#: The depth of panel (a) and of every Peri-LN and pre-LN stack, as a multiple of the
#: claim's depth; the nGPT stacks run as far on their clock as Peri-LN (β = 2) does.
DEPTH_FACTOR = 2


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns per row: panel ("a" or "b"), scheme, parameter (β or a; NaN where none),
    depth ℓ, clock (T; NaN in panel a), cosine (mean over stacks), error (its standard
    error), stacks."""
    size = NORMALISATION_SPEED[preset]
    depth = DEPTH_FACTOR * size["depth"]
    common: dict[str, Any] = dict(variant="residual", norm_kind=size["norm_kind"],
                                  tokens=size["tokens"], width=size["width"],
                                  causal=size["causal"])
    batch = size["batch"]
    columns: dict[str, list] = {k: [] for k in (
        "panel", "scheme", "parameter", "depth", "clock", "cosine", "error", "stacks")}

    def add(panel: str, scheme: str, parameter: float, states: np.ndarray,
            clocks: list[float] | None) -> None:
        cosine = mean_cosine(states)
        for ell in range(states.shape[0]):
            for key, value in zip(columns, (
                    panel, scheme, parameter, ell,
                    math.nan if clocks is None else clocks[ell],
                    float(cosine[ell].mean()),
                    float(cosine[ell].std(ddof=1) / math.sqrt(batch)), batch), strict=True):
                columns[key].append(value)

    step = size["reference_step"]
    for scheme, options in SCHEMES.items():
        extra = dict(ngpt_step=step) if scheme == "nGPT" else {}
        states = run_stack(StackConfig(depth=depth, **common, **options, **extra), batch,
                           seed).states
        add("a", scheme, step if scheme == "nGPT" else math.nan, states, None)
    longest = 0.0
    for beta in BETAS:
        states = run_stack(StackConfig(norm="peri", residual_scale=beta, depth=depth,
                                       **common), batch, seed).states
        start = float(squared_radius(states)[0].mean())
        clocks = [peri_time(ell, beta, start) for ell in range(depth + 1)]
        longest = max(longest, clocks[-1])
        add("b", "Peri-LN", beta, states, clocks)
        if beta == 1.0:
            add("b", "Peri-LN, aligned clock", beta, states,
                [aligned_time(ell, beta, start) for ell in range(depth + 1)])
    states = run_stack(StackConfig(norm="pre", depth=depth, **common), batch, seed).states
    radius = squared_radius(states).mean(axis=1)
    add("b", "pre-LN", math.nan, states, [math.log(r / radius[0]) for r in radius])
    for a in STEPS:
        blocks = math.ceil(longest / ngpt_time(1, a))
        states = run_stack(StackConfig(norm="ngpt", ngpt_step=a, depth=blocks, **common),
                           batch, seed).states
        add("b", "nGPT", a, states, [ngpt_time(ell, a) for ell in range(blocks + 1)])
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    array = {k: np.array(v) for k, v in data.items()}
    error = interval_half_width(array["error"].astype(float), array["stacks"].astype(float))
    parameter = array["parameter"].astype(float)
    with styled():
        for scheme in SCHEMES:
            rows = (array["panel"] == "a") & (array["scheme"] == scheme)
            ell = array["depth"][rows].astype(float)
            left.errorbar(ell[1:], array["cosine"][rows].astype(float)[1:],
                          yerr=error[rows][1:], fmt=MARKERS[scheme] + "-",
                          color=COLOURS[scheme], markersize=1.8, linewidth=0.7,
                          elinewidth=0.4, label=scheme, markevery=4)
        left.set_xscale("log", base=2)
        left.set_xlabel(r"depth $\ell$")
        left.set_ylabel("mean cosine of the tokens")
        left.legend(loc="upper left", ncols=3)

        for value, line in zip(STEPS, ("-", "--"), strict=True):
            chosen = ((array["panel"] == "b") & (array["scheme"] == "nGPT")
                      & (parameter == value))
            right.plot(array["clock"][chosen].astype(float),
                       array["cosine"][chosen].astype(float), line, color=COLOURS["nGPT"],
                       linewidth=1.0, label=rf"nGPT, $a = {value:g}$")
        markers = {0.5: "v", 1.0: "^", 2.0: "<"}
        for value in BETAS:
            chosen = ((array["panel"] == "b") & (array["scheme"] == "Peri-LN")
                      & (parameter == value))
            right.errorbar(array["clock"][chosen].astype(float),
                           array["cosine"][chosen].astype(float), yerr=error[chosen],
                           fmt=markers[value], color=COLOURS["Peri-LN"], markersize=2.2,
                           elinewidth=0.4, linestyle="none",
                           label=rf"Peri-LN, $\beta = {value:g}$")
        chosen = (array["panel"] == "b") & (array["scheme"] == "pre-LN")
        right.errorbar(array["clock"][chosen].astype(float),
                       array["cosine"][chosen].astype(float), yerr=error[chosen], fmt="s",
                       color=COLOURS["pre-LN"], markersize=1.8, elinewidth=0.4,
                       linestyle="none", label="pre-LN")
        rows = (array["panel"] == "b") & (array["scheme"] == "Peri-LN, aligned clock")
        right.plot(array["clock"][rows].astype(float), array["cosine"][rows].astype(float),
                   ":", color="0.35", linewidth=0.8,
                   label=r"Peri-LN ($\beta = 1$), aligned clock")
        right.set_xlabel(r"clock $T$: $\ell\ln(1+a^2/(1-a)^2)$, $\ln(1+\ell\beta^2/s)$, "
                         r"$\ln(r_\ell^2/r_0^2)$")
        right.set_ylabel("mean cosine of the tokens")
        right.legend(loc="lower right", ncols=2)
        size = int(array["stacks"][0])
        left.set_title(f"at initialisation, {size} stacks a point; {INTERVAL_TEXT}",
                       fontsize=6)
        right.set_title("one trajectory on each scheme's clock", fontsize=6)
    tidy(figure)
    return figure
