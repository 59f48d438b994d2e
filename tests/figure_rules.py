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
* the panels of a figure with several are lettered (a), (b), … in order;
* no legend covers a data point (its box, in display coordinates);
* no axis is stretched beyond its data: at most :data:`EMPTY_SHARE` of an axis's span
  lies beyond all its data (a limit stretched only to make room for a legend included);
* one colour means one thing in a figure: two labelled series that name different
  concepts (the words before a comma, a parenthesis or a formula) never share a colour;
  and a block variant (``pre-LN``, ``post-LN``) has the colour of
  :data:`attndepth.figures.style.VARIANT_COLOURS` in every figure;
* no two series put equal markers on one point (coincident markers hide each other:
  offset one);
* no text of the figure holds an internal name: a block variant's key (``post-ln``,
  ``post-ln-deesc-a``), a claim id, a snake_case identifier outside ``$…$``, or a
  section sign of a paper (``§``).
"""

from __future__ import annotations

import re

import matplotlib.text
import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.colors import to_hex
from matplotlib.container import ErrorbarContainer
from matplotlib.legend import Legend
from matplotlib.lines import Line2D

from attndepth.figures.style import VARIANT_COLOURS, VARIANT_NAMES, densified, display_points


def _variant(label: str) -> str | None:
    """The block variant a series' label names (the longest display name it starts with,
    a word boundary after it), or None."""
    found = [key for key, name in VARIANT_NAMES.items()
             if re.match(re.escape(name) + r"(?![\w-])", label)]
    return max(found, key=lambda key: len(VARIANT_NAMES[key]), default=None)

#: Colours a style key is drawn in (black and greys).
NEUTRAL = {"#000000", "#4d4d4d", "#808080", "#7f7f7f", "#737373", "#666666", "#8c8c8c"}
#: Words of a logarithm in an axis label.
LOGARITHMS = ("ln ", "log ", "\\ln", "\\log", "log_", "ln(")
#: The largest share of an axis's span that may lie beyond all its data.
EMPTY_SHARE = 0.45
#: Internal names no text may hold (a variant key, a claim id, snake_case, a section sign).
INTERNAL = re.compile(r"(?<![\w$])(post-ln(-deesc-[ab])?|pre-ln|[a-z]+\.[a-z]+(-[a-z]+)+"
                      r"|[a-z]+_[a-z_]+)(?![\w$])|§")


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
        # caps, and axhline/axvline (blended transforms); a dodged series keeps transData
        if line in caps or not line.get_transform().contains_branch(axes.transData):
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


def _marker(mark) -> str:
    return str(mark.get_marker()) if isinstance(mark, Line2D) else "o"


def _texts(figure) -> list[str]:
    """Every text drawn: titles, labels, tick labels, legend entries, annotations."""
    return [text.get_text() for text in figure.findobj(matplotlib.text.Text)
            if text.get_visible() and text.get_text()]


def _concept(label: str) -> str:
    """What a series' label names, its details aside: the words before a comma, a
    parenthesis or a formula (``band $w=2$`` and ``band $w=4$`` name one concept)."""
    base = re.split(r"[,(]", label, maxsplit=1)[0].strip()
    words = re.sub(r"\$[^$]*\$", "", base).strip()
    return words or base


def _internal(text: str) -> str | None:
    """An internal name in ``text`` (outside $…$ mathematics), or None."""
    plain = re.sub(r"\$[^$]*\$", " ", text)
    found = INTERNAL.search(plain)
    return found.group(0) if found else None


def _tick_problems(axes) -> list[str]:
    """An axis whose labelled ticks stop short of its ends (data above the last label read
    off nothing), or a symlog axis whose label does not say so."""
    problems = []
    for name, axis, scale, text in (("x", axes.xaxis, axes.get_xscale(), axes.get_xlabel()),
                                    ("y", axes.yaxis, axes.get_yscale(), axes.get_ylabel())):
        if scale == "symlog" and not any(word in text for word in ("symlog", "log beyond")):
            problems.append(f"the {name} axis is symlog and its label {text!r} does not say so")
        low, high = sorted(axes.get_xlim() if name == "x" else axes.get_ylim())
        ticks = [tick for tick in axis.get_major_ticks()
                 if tick.label1.get_visible() and tick.label1.get_text()
                 and low <= tick.get_loc() <= high]
        if len(ticks) < 2 or scale not in ("linear", "log"):
            continue
        where = sorted(float((axes.transAxes.inverted().transform(
            axes.transData.transform((tick.get_loc(), 1) if name == "x"
                                     else (1, tick.get_loc()))))[0 if name == "x" else 1])
            for tick in ticks)
        step = min(b - a for a, b in zip(where[:-1], where[1:], strict=True))
        if max(where[0], 1 - where[-1]) > max(step, 0.15):
            problems.append(f"the {name} axis has no labelled tick over "
                            f"{max(where[0], 1 - where[-1]):.0%} of it")
    return problems


def _new_problems(figure) -> list[str]:
    """The rules of legends, stretched limits, colours, coincident markers and names."""
    problems = []
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    colour_names: dict[str, set[str]] = {}
    variant_series: list[tuple[str, str]] = []
    for k, axes in enumerate(figure.axes):
        if not axes.get_visible():
            continue
        marks = _data_lines(axes) + [c for c in axes.collections
                                     if isinstance(c, PathCollection) and len(c.get_offsets())]
        vertices = [display_points(mark) for mark in marks]
        points = [densified(xy) if isinstance(mark, Line2D) and str(mark.get_linestyle())
                  not in ("None", "") else xy for mark, xy in zip(marks, vertices, strict=True)]
        for legend in [child for child in axes.get_children() if isinstance(child, Legend)]:
            box = legend.get_window_extent(renderer)
            covered = sum(int(np.sum((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1)
                                     & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)))
                          for xy in points if len(xy))
            if covered:
                problems.append(f"axes {k}: the legend covers {covered} data points")
        # what the axes show: its data, bands and reference lines (a prediction drawn as an
        # axhline is content too), in axes fractions; an axis shared with other panels
        # (one scale to compare them) counts their content too
        for name, column in (("x", 0), ("y", 1)):
            shared = (axes.get_shared_x_axes() if column == 0 else
                      axes.get_shared_y_axes()).get_siblings(axes)
            fractions = []
            for panel in shared:
                corners = [display_points(a) for a in panel.collections
                           if isinstance(a, PathCollection) and a.get_visible()]
                for box in (a.get_window_extent(renderer) for a in (*panel.lines,
                                                                     *panel.collections)
                            if a.get_visible() and not isinstance(a, PathCollection)):
                    corners.append(np.array([[box.x0, box.y0], [box.x1, box.y1]]))
                for xy in corners:
                    xy = xy[np.all(np.isfinite(xy), axis=1)] if len(xy) else xy
                    if len(xy):
                        fractions += list(np.clip(panel.transAxes.inverted().transform(
                            xy)[:, column], 0, 1))
            if fractions:
                low, high = min(fractions), 1 - max(fractions)
                if max(low, high) > EMPTY_SHARE:
                    problems.append(f"axes {k}: {max(low, high):.0%} of the {name} axis lies "
                                    f"beyond its data")
        seen: dict[tuple[int, int, str], int] = {}
        for index, (mark, xy) in enumerate(zip(marks, vertices, strict=True)):
            if _marker(mark) in ("None", "", " ", "none") or not len(xy):
                continue
            for px, py in np.round(xy).astype(int):
                key = (px, py, _marker(mark))
                if key in seen and seen[key] != index:
                    problems.append(f"axes {k}: two series put {_marker(mark)!r} markers on "
                                    f"one point ({px}, {py} px)")
                    break
                seen[key] = index
        labelled_bars = [(container.get_label(), container.lines[0])
                         for container in axes.containers
                         if isinstance(container, ErrorbarContainer)
                         and container.lines[0] is not None]
        for label, mark in [(mark.get_label(), mark) for mark in marks] + labelled_bars:
            if label and not label.startswith("_"):
                colour = _style(mark)[0]
                if colour not in NEUTRAL:
                    colour_names.setdefault(colour, set()).add(_concept(label))
                variant_series.append((label, colour))
    for colour, names in colour_names.items():
        if len(names) > 1:
            problems.append(f"the colour {colour} means {sorted(names)} in one figure")
    for k, axes in enumerate(figure.axes):
        if axes.get_visible():
            problems += [f"axes {k}: {problem}" for problem in _tick_problems(axes)]
    for label, colour in variant_series:  # a block variant has its colour in every figure
        key = _variant(label)
        if key is not None and to_hex(VARIANT_COLOURS[key]) != colour:
            problems.append(f"{label!r} is drawn in {colour}, not its colour "
                            f"{to_hex(VARIANT_COLOURS[key])} of every figure")
    for text in _texts(figure):
        name = _internal(text)
        if name:
            problems.append(f"the text {text!r} holds the internal name {name!r}")
    return problems


def figure_problems(figure) -> list[str]:
    """What breaks the rules in a drawn figure (empty: nothing)."""
    problems = _new_problems(figure)
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
