"""Shared figure style: journal column widths, a colour-blind-safe palette, no LaTeX.

The style itself is the matplotlib style sheet ``paper.mplstyle`` beside this
module, which users can apply to their own figures::

    import matplotlib.pyplot as plt
    plt.style.use("attndepth.figures.paper")

Widths follow two-column journals: single column 3.25 in, double 6.75 in.
Palette: Okabe & Ito (2008), distinguishable under the common colour-vision
deficiencies. Mathtext renders formulas, so no TeX installation is needed.
One colour and one display name per block variant (:data:`VARIANT_COLOURS`,
:data:`VARIANT_NAMES`) in every figure; :func:`tidy`, the last step of every figure's
``draw``, offsets markers that would hide each other and puts each legend where it
covers no data.
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


#: What a figure calls each block variant: its display name, never its key.
VARIANT_NAMES: dict[str, str] = {
    "post-ln": "post-LN", "post-ln-deesc-a": "post-LN, de-escalated (a)",
    "post-ln-deesc-b": "post-LN, de-escalated (b)", "pre-ln": "pre-LN",
    "residual": "residual", "pure": "pure attention",
}


def variant_colour(label: str) -> str:
    """The colour of the variant a label names (``"post-ln-deesc-a (τ=0.5)"`` → deesc-a's)."""
    name = label.split(" ", 1)[0]
    if name not in VARIANT_COLOURS:
        raise InvalidParameter(f"no colour for variant {name!r}; known: "
                               f"{', '.join(VARIANT_COLOURS)}")
    return VARIANT_COLOURS[name]


def variant_name(label: str) -> str:
    """The display name of the variant a label names, its details kept
    (``"post-ln-deesc-a (τ=0.5)"`` → ``"post-LN, de-escalated (a), τ=0.5"``)."""
    name, _, rest = label.partition(" ")
    if name not in VARIANT_NAMES:
        raise InvalidParameter(f"no display name for variant {name!r}; known: "
                               f"{', '.join(VARIANT_NAMES)}")
    detail = rest.strip().removeprefix("(").removesuffix(")")
    return f"{VARIANT_NAMES[name]}, {detail}" if detail else VARIANT_NAMES[name]


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


def measured_key() -> tuple[Line2D, str]:
    """The legend entry of :func:`measured_and_predicted`'s markers: "measured"."""
    return style_key("measured", color="0.3", marker="o", linestyle="none", markersize=2.0)


def measured_and_predicted(axis, x: Any, measured: Any, error: Any, predicted: Any,
                           colour: str, label: str) -> None:
    """One series: measured means as markers with their intervals (``error``, half widths)
    and its prediction as a line of the same colour; the label names the series, and
    :func:`measured_key` with a line key says which is which."""
    axis.errorbar(x, measured, yerr=error, fmt="o", color=colour, markersize=2.0,
                  elinewidth=0.5, label=label)
    axis.plot(x, predicted, "-", color=colour, linewidth=0.8)


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


def _data_points(axis) -> np.ndarray:
    """The display coordinates of every data point of an axes (lines and scatters)."""
    from matplotlib.collections import PathCollection

    found = []
    for line in axis.lines:
        transform = line.get_transform()
        if not transform.contains_branch(axis.transData):
            continue
        xy = np.column_stack([np.asarray(v, dtype=float) for v in line.get_data()])
        xy = transform.transform(xy[np.all(np.isfinite(xy), axis=1)])
        found.append(densified(xy) if str(line.get_linestyle()) not in ("None", "")
                     else xy)
    for collection in axis.collections:
        if isinstance(collection, PathCollection) and np.size(collection.get_offsets()):
            xy = np.asarray(collection.get_offsets(), dtype=float).reshape(-1, 2)
            found.append(collection.get_offset_transform().transform(
                xy[np.all(np.isfinite(xy), axis=1)]))
    found = [xy for xy in found if len(xy)]
    return np.concatenate(found) if found else np.empty((0, 2))


def densified(xy: np.ndarray, step: float = 2.0) -> np.ndarray:
    """A line's display points with its segments filled in every ``step`` pixels (a legend
    between two vertices still covers the line)."""
    if len(xy) < 2:
        return xy
    parts = [xy[:1]]
    for a, b in zip(xy[:-1], xy[1:], strict=True):
        count = int(min(500, max(1, np.hypot(*(b - a)) // step)))
        t = np.linspace(0, 1, count + 1)[1:, None]
        parts.append(a + t * (b - a))
    return np.concatenate(parts)


#: Where a legend may stand inside its axes, tried in order.
LEGEND_PLACES = ("upper left", "upper right", "lower right", "lower left", "center left",
                 "center right", "upper center", "lower center", "center")


def tidy(figure) -> None:
    """The last step of every figure's ``draw``: series whose equal markers would stand on
    one point are offset sideways (:func:`dodge_coincident`), then every axes legend is
    put where it covers no data (:func:`place_legends`)."""
    figure.canvas.draw()
    for axis in figure.axes:
        dodge_coincident(axis)
    place_legends(figure)
    figure.canvas.draw()  # the legends moved the axes: markers that meet there now
    for axis in figure.axes:
        dodge_coincident(axis)


def _marked(axis) -> list[list[Any]]:
    """The axes' series that draw markers, each as the artists that move together (an
    errorbar's line, caps and bars)."""
    from matplotlib.collections import PathCollection
    from matplotlib.container import ErrorbarContainer

    grouped: list[list[Any]] = []
    taken: set[int] = set()
    for container in axis.containers:
        if isinstance(container, ErrorbarContainer) and container.lines[0] is not None:
            line = container.lines[0]
            if str(line.get_marker()) not in ("None", "", " ", "none"):
                group = [line, *container.lines[1], *container.lines[2]]
                grouped.append(group)
                taken.update(id(artist) for artist in group)
    for line in axis.lines:
        if id(line) not in taken and str(line.get_marker()) not in ("None", "", " ", "none") \
                and line.get_transform().contains_branch(axis.transData):
            grouped.append([line])
    grouped += [[collection] for collection in axis.collections
                if isinstance(collection, PathCollection) and np.size(collection.get_offsets())]
    return grouped


def display_points(artist) -> np.ndarray:
    """A line's or a scatter's finite points in display coordinates, shape (n, 2): what
    :func:`tidy` dodges, and what the figure rules test for overlaps."""
    if isinstance(artist, Line2D):
        xy = np.column_stack([np.asarray(v, dtype=float) for v in artist.get_data()])
        transform = artist.get_transform()
    else:
        xy = np.asarray(artist.get_offsets(), dtype=float).reshape(-1, 2)
        transform = artist.get_offset_transform()
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    return transform.transform(xy) if len(xy) else xy.reshape(0, 2)


def dodge_coincident(axis, points: float = 3.0) -> None:
    """Where two marker series of an axes put a marker on one point (within 2 px), move
    those markers sideways, symmetric about the point, by ``points`` each: only the
    coinciding markers move (an errorbar's bar with its marker), so that neither hides
    the other and every other marker stays on its line. The data are unchanged; only
    where they are drawn."""
    series = _marked(axis)
    vertices = [display_points(group[0]) for group in series]
    # the markers of other series within 2 px of each marker: the groups that meet
    meeting: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for a, first in enumerate(vertices):
        for b in range(a + 1, len(vertices)):
            second = vertices[b]
            if not len(first) or not len(second):
                continue
            close = np.argwhere((np.abs(first[:, None, 0] - second[None, :, 0]) < 2)
                                & (np.abs(first[:, None, 1] - second[None, :, 1]) < 2))
            for i, j in close:
                group = meeting.get((a, int(i))) or meeting.get((b, int(j))) or set()
                group |= {(a, int(i)), (b, int(j))}
                for member in group:
                    meeting[member] = group
    moves: dict[int, dict[int, float]] = {}
    for found in {id(group): group for group in meeting.values()}.values():
        owners = sorted({index for index, _ in found})
        for index, k in found:
            moves.setdefault(index, {})[k] = (owners.index(index) - (len(owners) - 1) / 2) \
                * points * axis.figure.dpi / 72
    for index, shifts in moves.items():
        for artist in series[index]:
            _shift_points(axis, artist, shifts)


def _shift_points(axis, artist, shifts: dict[int, float]) -> None:
    """Move points ``k`` of a marker series (a line's vertices, a scatter's offsets) by
    ``shifts[k]`` pixels sideways, through the inverse of its transform."""
    if isinstance(artist, Line2D):
        x, y = (np.array(v, dtype=float) for v in artist.get_data())
        transform = artist.get_transform()
        for k, dx in shifts.items():
            if k < len(x) and np.isfinite(x[k]) and np.isfinite(y[k]):
                px, py = transform.transform((x[k], y[k]))
                x[k] = transform.inverted().transform((px + dx, py))[0]
        artist.set_data(x, y)
    elif hasattr(artist, "get_offsets") and hasattr(artist, "set_offsets"):
        offsets = np.array(artist.get_offsets(), dtype=float).reshape(-1, 2)
        transform = artist.get_offset_transform()
        for k, dx in shifts.items():
            if k < len(offsets) and np.all(np.isfinite(offsets[k])):
                px, py = transform.transform(offsets[k])
                offsets[k, 0] = transform.inverted().transform((px + dx, py))[0]
        artist.set_offsets(offsets)
    else:  # an errorbar's bars (a LineCollection): segment k moves with marker k
        segments = [np.array(s, dtype=float) for s in artist.get_segments()]
        transform = artist.get_transform()
        for k, dx in shifts.items():
            if k < len(segments):
                shifted = transform.transform(segments[k])
                shifted[:, 0] += dx
                segments[k] = transform.inverted().transform(shifted)
        artist.set_segments(segments)


def place_legends(figure) -> None:
    """Put every axes legend where it covers no data: its own place if clear, else the
    first clear place of :data:`LEGEND_PLACES`, else below the axes, outside (the
    constrained layout makes room)."""
    renderer = figure.canvas.get_renderer()

    def covers(axis, legend, margin: float = 3.0, redraw: bool = True) -> bool:
        if redraw:  # a legend moved outside changes the layout; one inside does not
            figure.canvas.draw()
        points = _data_points(axis)
        box = legend.get_window_extent(renderer).expanded(1, 1).padded(margin)
        others = [other.get_window_extent(renderer) for other in _legends(axis)
                  if other is not legend and other.get_visible()]
        return bool(np.any((points[:, 0] > box.x0) & (points[:, 0] < box.x1)
                           & (points[:, 1] > box.y0) & (points[:, 1] < box.y1))) or any(
            box.overlaps(other) for other in others)

    outside: list[tuple[Any, Any]] = [(axis, legend) for axis in figure.axes
                                       for legend in _legends(axis)
                                       if getattr(legend, "_below_axes", False)]
    for _ in range(3):  # a legend moved outside reshapes the others' axes: look again
        moved = False
        for axis, legend in [(panel, legend) for panel in figure.axes
                             for legend in _legends(panel)]:
            if (axis, legend) in outside or not covers(axis, legend):
                continue
            moved = True
            legend.set_bbox_to_anchor(None)
            for place in LEGEND_PLACES:
                legend.set_loc(place)
                if not covers(axis, legend, redraw=False):
                    break
            else:  # outside: beside the axes if tall and narrow, else below its labels
                if legend is not axis.get_legend():  # the layout makes room for the axes'
                    _make_main(axis, legend)          # own legend only: make it that one
                box = legend.get_window_extent(renderer)
                if box.height > box.width and box.width < \
                        0.6 * axis.get_window_extent(renderer).width:
                    legend.set_loc("center left")
                    legend.set_bbox_to_anchor((1.02, 0.5), transform=axis.transAxes)
                    continue
                legend.set_loc("upper center")
                outside.append((axis, legend))
                _below(figure, axis, legend)
                if len(legend.texts) > 3:  # two columns where they fit the axes' width
                    legend.set_ncols(2)
                    figure.canvas.draw()
                    if legend.get_window_extent(renderer).width > \
                            1.05 * axis.get_window_extent(renderer).width:
                        legend.set_ncols(1)
        if not moved:
            break
    for _ in range(3):  # the layout shrinks the axes for a legend below: follow it
        for axis, legend in outside:
            _below(figure, axis, legend)


def legend_below(axis, **options: Any):
    """The axes' legend below it, under its tick labels and label (for a legend of
    reference lines that cross the whole axes, which no place inside can leave clear);
    :func:`tidy` anchors it once the layout is done."""
    legend = axis.legend(loc="upper center", **options)
    legend._below_axes = True
    return legend


def _make_main(axis, legend) -> None:
    """Make ``legend`` (kept as an artist) the axes' own legend, and the axes' own legend
    (if any) an artist beside it."""
    main = axis.get_legend()
    legend.remove()
    if main is not None:
        main.remove()
        axis.add_artist(main)
    axis.legend_ = legend
    legend.axes = axis
    legend.set_figure(axis.figure)
    legend.set_clip_path(None)  # add_artist clipped it to the axes: the layout then omits it
    legend.set_clip_box(None)


def _legends(axis) -> list[Any]:
    """Every legend of an axes: its own, and those kept beside it as artists."""
    from matplotlib.legend import Legend

    return [child for child in axis.get_children() if isinstance(child, Legend)]


def _below(figure, axis, legend) -> None:
    """Anchor ``legend`` just below ``axis``'s tick labels and label, as laid out now."""
    renderer = figure.canvas.get_renderer()
    figure.canvas.draw()
    bottom = min(axis.xaxis.get_tightbbox(renderer).y0,
                 axis.get_window_extent(renderer).y0)
    below = axis.transAxes.inverted().transform((0, bottom - 2))[1]
    legend.set_bbox_to_anchor((0.5, below), transform=axis.transAxes)
