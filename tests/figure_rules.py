"""The rules every attndepth figure keeps, read from its artists (not its pixels).

Used by the ``quick_data`` fixture (tests/conftest.py) on every figure a test draws
from its quick data, and tested in tests/test_figure_rules.py:

* every mark (a data line, markers, an errorbar) is explained by a legend entry of
  its colour, or of its line style and marker drawn in black or grey (a style key:
  "dotted: derived rate");
* no two labelled series of one axes share colour, line style and marker;
* a logarithmic axis is not labelled with a logarithm ("ln T" on a log axis logs
  twice) unless the label says "log scale";
* no data line has points outside its axes' limits (a prediction running off the
  axes is cut where it leaves them);
* the panels of a figure with several are lettered (a), (b), … in order.
"""

from __future__ import annotations

import re

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.colors import to_hex
from matplotlib.container import ErrorbarContainer
from matplotlib.legend import Legend
from matplotlib.lines import Line2D

#: Colours a style key is drawn in (black and greys).
NEUTRAL = {"#000000", "#4d4d4d", "#808080", "#7f7f7f", "#737373", "#666666", "#8c8c8c"}
#: Words of a logarithm in an axis label.
LOGARITHMS = ("ln ", "log ", "\\ln", "\\log", "log_", "ln(")


def _style(artist) -> tuple[str, str, str]:
    if isinstance(artist, Line2D):
        return to_hex(artist.get_color()), str(artist.get_linestyle()), str(artist.get_marker())
    colours = artist.get_facecolor()
    if not len(colours):
        colours = artist.get_edgecolor()
    return (to_hex(colours[0]) if len(colours) else "#000000"), "None", "o"


def _legend_styles(figure) -> list[tuple[str, str, str]]:
    styles = []
    for legend in dict.fromkeys(figure.findobj(Legend)):
        for handle in legend.legend_handles:
            if isinstance(handle, Line2D | PathCollection):
                styles.append(_style(handle))
            elif hasattr(handle, "get_colors") and len(handle.get_colors()):  # errorbar
                styles.append((to_hex(handle.get_colors()[0]), "bar", "bar"))
            elif hasattr(handle, "get_facecolor"):  # a patch: a band, a bar
                styles.append((to_hex(handle.get_facecolor()), "patch", "patch"))
    return styles


def _data_lines(axes) -> list[Line2D]:
    caps = {cap for container in axes.containers if isinstance(container, ErrorbarContainer)
            for cap in container.lines[1]}
    lines = []
    for line in axes.lines:
        if line in caps or line.get_transform() != axes.transData:  # caps, axhline/axvline
            continue
        if len(line.get_xdata()) >= 2 or line.get_marker() not in (None, "None", "", " "):
            lines.append(line)
    return lines


def _outside(line: Line2D, axes) -> int:
    x, y = (np.asarray(values, dtype=float) for values in line.get_data())
    finite = np.isfinite(x) & np.isfinite(y)
    count = 0
    for values, limits in ((x[finite], axes.get_xlim()), (y[finite], axes.get_ylim())):
        low, high = sorted(limits)
        slack = 1e-6 * max(abs(low), abs(high))
        count += int(np.sum((values < low - slack) | (values > high + slack)))
    return count


def figure_problems(figure) -> list[str]:
    """What breaks the rules in a drawn figure (empty: nothing)."""
    problems = []
    keys = _legend_styles(figure)
    colours = {colour for colour, _, _ in keys}
    styles = {(line, marker) for colour, line, marker in keys if colour in NEUTRAL}
    for k, axes in enumerate(figure.axes):
        if not axes.get_visible():
            continue
        lines = _data_lines(axes)
        marks = lines + [c for c in axes.collections
                         if isinstance(c, PathCollection) and len(c.get_offsets())]
        for mark in marks:
            colour, line, marker = _style(mark)
            if colour not in colours and (line, marker) not in styles:
                problems.append(f"axes {k}: a mark {(colour, line, marker)} has no legend "
                                f"entry of its colour or of its style")
        labelled: dict[tuple[str, ...], str] = {}
        for line in lines:
            label = line.get_label()
            if not label.startswith("_"):
                fill = line.get_markerfacecolor()
                style = (*_style(line), "open" if str(fill) == "none" else to_hex(fill))
                if style in labelled and labelled[style] != label:
                    problems.append(f"axes {k}: {label!r} and {labelled[style]!r} share "
                                    f"colour and style {style}")
                labelled[style] = label
            outside = _outside(line, axes)
            if outside:
                problems.append(f"axes {k}: a line {_style(line)} has {outside} points "
                                f"outside the axes")
        for name, scale, text in (("x", axes.get_xscale(), axes.get_xlabel()),
                                  ("y", axes.get_yscale(), axes.get_ylabel())):
            if scale == "log" and "log scale" not in text and any(
                    word in text for word in LOGARITHMS):
                problems.append(f"axes {k}: the {name} axis is logarithmic and labelled "
                                f"{text!r}")
    panels = [axes for axes in figure.axes if axes.get_visible() and (
        axes.lines or axes.collections or axes.patches)]
    letters = [next((text.get_text() for text in axes.texts
                     if text.get_gid() == "panel-letter"), "") for axes in panels]
    if len(panels) > 1 and not all(re.fullmatch(rf"\({chr(97 + k)}\)", letter)
                                   for k, letter in enumerate(letters)):
        problems.append(f"panels lettered {letters}, not (a), (b), … in order")
    return problems
