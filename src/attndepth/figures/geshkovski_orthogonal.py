"""Pairwise inner product γ(t) of tokens that start orthogonal, against the reduced ODE.

Draws the claim geshkovski.orthogonal-start (Geshkovski et al. 2023): markers
are the n-token flow on the sphere, lines the scalar ODE for γ, for several
n and β (dotted: the β = 0 closed form (1 − e^{−2t})/(1 + (n − 1)e^{−2t})).
"""

from __future__ import annotations

import numpy as np

from attndepth.claims.presets import GESHKOVSKI_ORTHOGONAL
from attndepth.figures.style import (
    PALETTE,
    legend_with_keys,
    new_figure,
    style_key,
    styled,
    tidy,
)
from attndepth.simulations.models.sphere_dynamics import (
    integrate_scalar,
    integrate_tokens,
    off_diagonal_inner_products,
    orthonormal_tokens,
)
from attndepth.theory.clustering import beta_zero_gamma, orthogonal_start_rate

NAME = "geshkovski_orthogonal"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (5, 1)
DESCRIPTION = "gamma(t) of orthogonal starts: token flow (markers) vs the reduced ODE (lines)"
#: (tokens, beta) per curve, the claim's (``presets.GESHKOVSKI_ORTHOGONAL``) among them;
#: drawn over HORIZON_FACTOR times the claim's horizon, so that every curve reaches its
#: plateau (n = 8, β = 4 is at γ = 0.33 at the claim's horizon).
HORIZON_FACTOR = 3
CASES = {"quick": ((2, 0.0), (4, 1.0), (8, 4.0)),
         "full": ((2, 0.0), (4, 1.0), (8, 4.0), (16, 8.0))}


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: tokens, beta, time, measured, ode, beta_zero (closed form; nan unless β = 0)."""
    times = np.linspace(0.0, HORIZON_FACTOR * GESHKOVSKI_ORTHOGONAL[preset]["horizon"], 61)
    columns: dict[str, list] = {k: [] for k in ("tokens", "beta", "time", "measured", "ode",
                                                "beta_zero")}
    for tokens, beta in CASES[preset]:
        X = integrate_tokens(orthonormal_tokens(tokens, tokens + 2, seed), beta, times)
        measured = off_diagonal_inner_products(X).mean(axis=1)
        ode = integrate_scalar(lambda g, n=tokens, b=beta: orthogonal_start_rate(g, n, b), times)
        for k, time in enumerate(times):
            columns["tokens"].append(tokens)
            columns["beta"].append(beta)
            columns["time"].append(float(time))
            columns["measured"].append(float(measured[k]))
            columns["ode"].append(float(ode[k]))
            columns["beta_zero"].append(beta_zero_gamma(float(time), tokens) if beta == 0
                                        else float("nan"))
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=1, aspect=0.8)
    tokens, beta = np.array(data["tokens"]), np.array(data["beta"])
    time = np.array(data["time"])
    with styled():
        for colour, case in zip(PALETTE, dict.fromkeys(zip(data["tokens"], data["beta"],
                                                           strict=True)), strict=False):
            rows = (tokens == case[0]) & (beta == case[1])
            axis.plot(time[rows], np.array(data["ode"])[rows], color=colour,
                      label=rf"$n={case[0]},\ \beta={case[1]:g}$")
            axis.plot(time[rows][::5], np.array(data["measured"])[rows][::5], "o",
                      color=colour, markerfacecolor="none")
            closed = np.array(data["beta_zero"])[rows]
            if np.isfinite(closed).any():  # on top of its curve, which it matches
                axis.plot(time[rows], closed, ":", color="k", linewidth=1.4, zorder=3)
        axis.set_xlabel("time $t$")
        axis.set_ylabel(r"$\gamma(t) = \langle x_i(t), x_j(t)\rangle$")
        axis.legend(loc="center right", title="colour: case")
        legend_with_keys(axis, [style_key("ODE for γ", color="0.3"),
                                style_key("token flow", color="0.3", marker="o", linestyle="none",
                                    markerfacecolor="none"),
                                style_key("β = 0 closed form", color="k", linestyle=":",
                                    linewidth=1.4)],
                         separate=True, loc="lower right")
    tidy(figure)
    return figure
