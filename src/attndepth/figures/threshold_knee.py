"""The knee of ln sep against log_3 d, per regime |P| = |Q| = q (Levine et al. 2020, §4).

Filled markers (one shape per regime, shifted slightly apart): knees decided
from certified ranks and proved bounds (``attndepth.rank.knee.measure_knee``,
the regimes of the claim levine.threshold); one Q position above d = 9 from the
proved rank C(K + d, d), as the claim decides it.
Open markers: the knee bound (d) would have if it were the rank (conjectured
rank = bound), for one Q position and for long sequences (|Q| ≥ d) up to
d = 3^5. Solid step line: for one Q position bound (d) is C(K + d, d) in
closed form (``attndepth.theory.rank_closed_forms``), and its knee is drawn
at every width of a fine grid — proved as the knee of the upper bound, the
knee of the rank where rank = bound. Lines: Levine et al.'s L_th = log_3 d
(black) and the corrected law log_3(2D + 1) [conjecture], D the dimension of
the matrices M_Q can be.
"""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims.presets import CLOSED_FORM_ABOVE, THRESHOLD
from attndepth.errors import InvalidParameter
from attndepth.figures.style import PALETTE, new_figure, styled, tidy
from attndepth.rank.knee import KNEE_RATIO, measure_knee
from attndepth.theory.rank_closed_forms import single_position_knee
from attndepth.theory.separation_rank import corrected_knee, log_bigraded_bound, regime_bounds

NAME = "threshold_knee"
#: Where the theory document draws it (section, place): figures are listed in that order.
SECTION = (1, 3)
DESCRIPTION = "knee of ln sep vs log_3 d: decided (certified) and bound-based, two laws"
#: Widths whose bound-based knee is drawn (one Q position and long sequences).
BOUND_WIDTHS = {"quick": [2, 3, 4, 6, 9, 13, 27, 40, 81],
                "full": [2, 3, 4, 6, 9, 13, 20, 27, 40, 60, 81, 121, 243]}
#: Widths of the closed-form curve (one Q position): this many on a log grid.
CLOSED_FORM_POINTS = 120
#: Deepest depth searched for a bound-based knee.
MAX_DEPTH = 12


def _bound_knee(width: int, side: int | None) -> int:
    """First L with ln bound(L+1) / ln bound(L) < 2 (log bound (d), |P| = |Q| = side)."""
    logs = [log_bigraded_bound(width, 1, side)]
    for depth in range(2, MAX_DEPTH + 1):
        logs.append(log_bigraded_bound(width, depth, side))
        if logs[-1] / logs[-2] < KNEE_RATIO:
            return depth - 1
    raise InvalidParameter(f"no knee below depth {MAX_DEPTH} for d = {width}")


def compute(preset: str, seed: int) -> dict[str, list]:
    """Columns: series (decided | bound | closed), q (0 = long sequences), width,
    log3_width, knee."""
    columns: dict[str, list] = {k: [] for k in ("series", "q", "width", "log3_width", "knee")}

    def add(series: str, q: int, width: int, knee: int) -> None:
        for key, item in zip(columns, (series, q, width, math.log(width, 3), knee),
                             strict=True):
            columns[key].append(item)

    regimes = THRESHOLD[preset]["regimes"]
    for width, q in regimes:
        if q == 1 and width > CLOSED_FORM_ABOVE:  # decided by the proved rank, as the claim does
            add("decided", 1, width, single_position_knee(width))
            continue
        regime = measure_knee(width, q, *regime_bounds(width, q), seed)
        if regime.decision.decided and regime.decision.knee is not None:
            add("decided", 0 if q >= width else q, width, regime.decision.knee)
    for width in BOUND_WIDTHS[preset]:
        add("bound", 1, width, _bound_knee(width, 1))
        add("bound", 0, width, _bound_knee(width, None))
    widest = max([*BOUND_WIDTHS[preset], *(width for width, q in regimes if q == 1)])
    grid = np.unique(np.geomspace(2, widest, CLOSED_FORM_POINTS).round())
    for width in grid.astype(int):
        add("closed", 1, int(width), single_position_knee(int(width)))
    return columns


def draw(data: dict[str, list]):
    figure, axis = new_figure(columns=2, aspect=0.5)
    series = np.array(data["series"])
    q, width, x, knee = (np.array(data[k], dtype=float) for k in ("q", "width", "log3_width",
                                                                    "knee"))
    grid = np.linspace(0.5, max(x) + 0.2, 200)
    with styled():
        axis.plot(grid, grid, color="black", linewidth=0.9, label=r"paper: $\log_3 d$")
        # marker and a small horizontal offset per regime, so that equal knees stay visible
        regimes = [(1, "one Q position", PALETTE[0], "o", -0.05,
                    lambda d: corrected_knee(int(d), 1)),
                   (0, r"$|Q| \geq d$", PALETTE[1], "^", 0.05,
                    lambda d: corrected_knee(int(d), int(d))),
                   (2, r"$|Q| = 2 < d$", PALETTE[2], "s", -0.05,
                    lambda d: corrected_knee(int(d), 2)),
                   (3, r"$|Q| = 3 < d$", PALETTE[3], "D", 0.05,
                    lambda d: corrected_knee(int(d), 3))]
        closed = series == "closed"
        if closed.any():
            axis.step(x[closed], knee[closed], where="post", color=PALETTE[0], linewidth=0.8,
                      label=r"one Q position, closed form")
        for value, label, colour, marker, shift, law in regimes:
            bound = (series == "bound") & (q == value)
            if bound.any():
                axis.plot(x[bound] + shift, knee[bound], marker, color=colour,
                          markerfacecolor="none", markersize=3.5)
                widths = np.unique(width[bound])
                axis.plot(np.log(widths) / math.log(3), [law(w) for w in widths], ":",
                          color=colour, linewidth=0.9)
            decided = (series == "decided") & (q == value)
            if decided.any():
                axis.plot(x[decided] + shift, knee[decided], marker, color=colour,
                          markersize=4.5)
            if bound.any() or decided.any():  # one entry per regime: its colour and marker
                axis.plot([], [], marker, color=colour, markersize=4.5, label=label)
        # the styles, in grey: what filled, open and dotted mean in every regime
        axis.plot([], [], "o", color="grey", markersize=4.5,
                  label="decided (certified ranks; one Q position above d = 9: proved)")
        axis.plot([], [], "o", color="grey", markerfacecolor="none", markersize=3.5,
                  label="bound-based [conjecture]")
        axis.plot([], [], ":", color="grey", label=r"$\log_3(2D + 1)$ [conjecture]")
        axis.set_xlabel(r"$\log_3 d$")
        axis.set_ylabel("knee $\\kappa$: first $L$ with\nsep$(L+1) <$ sep$(L)^2$")
        # two columns; beside the data where they leave room, else below (tidy)
        axis.legend(loc="upper left", ncols=2)
    tidy(figure)
    return figure
