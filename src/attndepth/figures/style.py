"""Shared figure style: journal column widths, a colour-blind-safe palette, no LaTeX.

The style itself is the matplotlib style sheet ``paper.mplstyle`` beside this
module, which users can apply to their own figures::

    import matplotlib.pyplot as plt
    plt.style.use("attndepth.figures.paper")

Widths follow two-column journals: single column 3.25 in, double 6.75 in.
Palette: Okabe & Ito (2008), distinguishable under the common colour-vision
deficiencies. Mathtext renders formulas, so no TeX installation is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import numpy as np

from attndepth.errors import InvalidParameter

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.transforms import offset_copy  # noqa: E402

SINGLE_COLUMN_INCHES = 3.25
DOUBLE_COLUMN_INCHES = 6.75
PNG_DPI = 300

#: The style sheet, as rc parameters (one source: ``paper.mplstyle``).
RC_PARAMS = matplotlib.rc_params_from_file(
    str(Path(__file__).with_name("paper.mplstyle")), use_default_template=False)
#: Okabe–Ito colours, black last (the style sheet's colour cycle).
PALETTE: tuple[str, ...] = tuple(RC_PARAMS["axes.prop_cycle"].by_key()["color"])
#: One colour per block variant, the same in every figure.
VARIANT_COLOURS: dict[str, str] = {
    "post-ln": PALETTE[0], "post-ln-deesc-a": PALETTE[1], "post-ln-deesc-b": PALETTE[2],
    "pre-ln": PALETTE[3], "residual": PALETTE[4], "pure": PALETTE[7],
}


def variant_colour(label: str) -> str:
    """The colour of the variant a label names (``"post-ln-deesc-a (τ=0.5)"`` → deesc-a's)."""
    name = label.split(" ", 1)[0]
    if name not in VARIANT_COLOURS:
        raise InvalidParameter(f"no colour for variant {name!r}; known: "
                               f"{', '.join(VARIANT_COLOURS)}")
    return VARIANT_COLOURS[name]


#: The level of every interval a figure draws: the verdicts' (99 % Student-t intervals of
#: a mean over stacks or seeds).
INTERVAL_LEVEL = 0.99
#: How a caption names those intervals.
INTERVAL_TEXT = "99 % intervals"


def interval_half_width(standard_error: Any, count: Any) -> Any:
    """The half width of the :data:`INTERVAL_LEVEL` Student-t interval of a mean.

    Parameters
    ----------
    standard_error : float or array
        The standard error of the mean (sample s.d. / √count).
    count : int or array
        The number of values averaged (≥ 2).

    Returns
    -------
    float or array, the shape of the inputs broadcast.
    """
    from scipy.stats import t as student_t

    return student_t.ppf(0.5 + INTERVAL_LEVEL / 2, np.asarray(count) - 1) * standard_error


def new_figure(columns: int = 1, aspect: float = 0.75, ncols: int = 1, nrows: int = 1):
    """A figure ``columns`` (1 or 2) journal columns wide; height = aspect × width;
    ``nrows`` × ``ncols`` axes (an array of axes when there are several)."""
    if columns not in (1, 2):
        raise InvalidParameter(f"columns must be 1 or 2, got {columns!r}")
    width = SINGLE_COLUMN_INCHES if columns == 1 else DOUBLE_COLUMN_INCHES
    with plt.rc_context(RC_PARAMS):
        figure, axes = plt.subplots(nrows, ncols, figsize=(width, width * aspect),
                                    layout="constrained")
        if nrows * ncols > 1:
            label_panels(list(np.atleast_1d(axes).ravel()))
    return figure, axes


def style_key(label: str, **style: Any) -> tuple[Line2D, str]:
    """A legend entry for a way of drawing rather than for a series: what a line style, a
    marker or an open face means in every colour (``style_key("predicted", linestyle=":",
    color="k")``); drawn in black or grey, so that it names a style, not a colour.

    Parameters
    ----------
    label : str
    **style
        Keyword arguments of :class:`matplotlib.lines.Line2D`.

    Returns
    -------
    (Line2D, str)
        A handle without data, and its label.
    """
    return Line2D([], [], **style), label


def legend_with_keys(axis, keys: list[tuple[Line2D, str]], *, separate: bool = False,
                     **options: Any):
    """The axes' legend with style entries (:func:`style_key`) after its series; or, with
    ``separate``, the keys as a second legend beside the one the axes already has.

    Parameters
    ----------
    axis : matplotlib Axes
    keys : list of (handle, label)
    separate : bool
    **options
        Keyword arguments of ``Axes.legend`` (never a font size: the style sheet's).

    Returns
    -------
    matplotlib.legend.Legend
    """
    handles, labels = ([], []) if separate else axis.get_legend_handles_labels()
    if separate and axis.get_legend() is not None:
        axis.add_artist(axis.get_legend())
    for handle, label in keys:
        handles.append(handle)
        labels.append(label)
    return axis.legend(handles, labels, **options)


#: Points between a panel's letter and its axes: above a centre title of one line.
PANEL_LETTER_PAD = 13.0


def label_panels(axes: list) -> None:
    """Letter the panels (a), (b), … in reading order, bold, above each one's top left
    corner, higher than a one-line title, so that the two never meet (a text of the
    axes with ``gid="panel-letter"``).

    Parameters
    ----------
    axes : list of matplotlib Axes
        In reading order (rows first).
    """
    if len(axes) > 26:
        raise InvalidParameter(f"at most 26 panels can be lettered, got {len(axes)}")
    for letter, axis in zip("abcdefghijklmnopqrstuvwxyz", axes, strict=False):
        raised = offset_copy(axis.transAxes, fig=axis.figure, y=PANEL_LETTER_PAD,
                             units="points")
        axis.text(0.0, 1.0, f"({letter})", transform=raised, ha="left", va="bottom",
                  fontweight="bold", gid="panel-letter")


def styled():
    """Context manager applying :data:`RC_PARAMS` while drawing."""
    return plt.rc_context(RC_PARAMS)


def separate_labels(figure, texts: list, step_points: float = 2.0, max_steps: int = 40) -> None:
    """Move annotations vertically (in points) until no two of their boxes overlap.

    Greedy and deterministic: labels are placed in the given order; each one
    that overlaps an already placed label is moved down (then up) in steps of
    ``step_points`` until it is free. Call after the axes limits are final.
    """
    renderer = figure.canvas.get_renderer()
    placed: list[Any] = []
    for text in texts:
        x0, y0 = text.xyann
        for k in range(max_steps + 1):
            shift = (k + 1) // 2 * step_points * (1 if k % 2 else -1)
            text.xyann = (x0, y0 + shift)
            box = text.get_window_extent(renderer).expanded(1.02, 1.1)
            if not any(box.overlaps(other) for other in placed):
                break
        placed.append(text.get_window_extent(renderer))
