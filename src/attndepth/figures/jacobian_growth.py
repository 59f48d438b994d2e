"""The input–output Jacobian's growth: pre-LN's power law against DyT's stretched exponential.

Draws the claim alekseev.jacobian-growth at initialisation (pre-norm blocks with attention
and the feed-forward branch). (a) ln A_ℓ, the APJN's logarithm, against depth for
LayerNorm and DyT (a₀ = ½, 1, 2), with the law ln A_ℓ = ln A_L + Σ_{L≤k<ℓ} ln(1 + c w_k)
(c fitted on the claim's first window L … 2L, dashed from there). (b) Each block's
log-gain ln(A_{ℓ+1}/A_ℓ) against the stream's rms σ_ℓ at its input, log-log: LayerNorm
follows σ^(−2) (a power law of depth), DyT its sech⁴ profile, which bends to σ^(−1) once
a₀σ ≫ 1 (a stretched exponential); lines: c w with each scheme's c.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attndepth.claims.presets import JACOBIAN_GROWTH
from attndepth.figures.style import (
    PALETTE,
    VARIANT_COLOURS,
    new_figure,
    styled,
    tidy,
)
from attndepth.simulations.measures.input_output_jacobian import jacobian_profile
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.jacobian_growth import dyt_weight, fitted_gain, norm_weight

NAME = "jacobian_growth"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 5, 2)
DESCRIPTION = "APJN against depth for pre-LN and DyT, and each block's log-gain against σ"
ALPHAS = (0.5, 1.0, 2.0)
#: The stacks run to this multiple of the claim's 4L blocks.
DEPTH_FACTOR = 2
COLOURS = {"LayerNorm": VARIANT_COLOURS["pre-ln"], 0.5: PALETTE[5], 1.0: PALETTE[2],
           2.0: PALETTE[4]}
MARKERS = {"LayerNorm": "s", 0.5: "o", 1.0: "^", 2.0: "D"}


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns per row: scheme ("LayerNorm" or "DyT"), a₀ (NaN for LayerNorm), depth ℓ,
    ln A_ℓ, σ²_ℓ, the law's ln A_ℓ (NaN before the window), the block's measured and
    predicted log-gain (NaN at the last depth), c, stacks."""
    size = JACOBIAN_GROWTH[preset]
    window = size["window"]
    depth = DEPTH_FACTOR * 4 * window
    common: dict[str, Any] = dict(variant="residual", norm="pre", ffn=True, depth=depth,
                                  tokens=size["tokens"], width=size["width"],
                                  causal=size["causal"])
    columns: dict[str, list] = {k: [] for k in (
        "scheme", "alpha", "depth", "log_apjn", "variance", "law", "gain", "predicted_gain",
        "c", "stacks")}
    for alpha in (math.nan, *ALPHAS):
        options: dict[str, Any] = {} if math.isnan(alpha) else dict(norm_kind="dyt",
                                                                     dyt_alpha=alpha)
        profile = jacobian_profile(StackConfig(**common, **options), size["batch"], seed,
                                   size["directions"])
        logs, variance = np.log(profile.apjn), profile.variance
        weights: np.ndarray = np.asarray(norm_weight(variance) if math.isnan(alpha)
                                         else dyt_weight(variance, alpha))
        c = fitted_gain(weights[window:2 * window], float(logs[2 * window] - logs[window]))
        law = np.full(depth + 1, math.nan)
        law[window:] = logs[window] + np.concatenate(
            [[0.0], np.cumsum(np.log1p(c * weights[window:depth]))])
        for ell in range(depth + 1):
            last = ell == depth
            for key, value in zip(columns, (
                    "LayerNorm" if math.isnan(alpha) else "DyT", alpha, ell, logs[ell],
                    variance[ell], law[ell],
                    math.nan if last else logs[ell + 1] - logs[ell],
                    math.nan if last else math.log1p(c * weights[ell]), c, size["batch"]),
                    strict=True):
                columns[key].append(value)
    return columns


def draw(data: dict[str, list]):
    figure, (left, right) = new_figure(columns=2, aspect=0.4, ncols=2)
    array = {k: np.array(v) for k, v in data.items()}
    alpha = array["alpha"].astype(float)
    with styled():
        for key in ("LayerNorm", *ALPHAS):
            rows = (array["scheme"] == "LayerNorm") if key == "LayerNorm" else (alpha == key)
            label = "pre-LN" if key == "LayerNorm" else rf"DyT, $a_0 = {key:g}$"
            ell = array["depth"][rows].astype(float)
            left.plot(ell[1:], array["log_apjn"][rows].astype(float)[1:], MARKERS[key],
                      color=COLOURS[key], markersize=2, label=label)
            left.plot(ell, array["law"][rows].astype(float), "--", color=COLOURS[key],
                      linewidth=0.8)
            sigma = np.sqrt(array["variance"][rows].astype(float))[:-1]
            right.plot(sigma, array["gain"][rows].astype(float)[:-1], MARKERS[key],
                       color=COLOURS[key], markersize=2, label=label)
            right.plot(sigma, array["predicted_gain"][rows].astype(float)[:-1], "-",
                       color=COLOURS[key], linewidth=0.8)
        left.plot([], [], "--", color="0.3", linewidth=0.8,
                  label="law, c fitted on the first window")
        left.set_xscale("log", base=2)
        left.set_xlabel(r"depth $\ell$")
        left.set_ylabel(r"$\ln A_\ell$ (APJN)")
        left.legend(loc="upper left")
        right.set_xscale("log")
        right.set_yscale("log")
        right.set_xlabel(r"rms of the stream $\sigma_\ell$")
        right.set_ylabel(r"gain of block $\ell$, $\ln(A_{\ell+1}/A_\ell)$ (log scale)")
        right.plot([], [], "-", color="0.3", linewidth=0.8,
                   label=r"$\ln(1 + c\,w_\ell)$: $\sigma^{-2}$; $a_0^2 E\,\mathrm{sech}^4$")
        right.legend(loc="lower left")
        stacks = int(array["stacks"][0])
        left.set_title(f"pre-norm blocks with attention and FFN, {stacks} stacks",
                       fontsize=6)
        right.set_title("each block's gain against the stream's size", fontsize=6)
    tidy(figure)
    return figure
