"""A small HTML table, what a notebook shows for an attndepth object (``_repr_html_``).

Every cell is escaped; the table has a caption (the object's one-line summary), a
header row where the table has columns, and the project's plain look: no styling beyond
left alignment, so that the notebook's theme decides the colours.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape


def html_table(caption: str, rows: Sequence[Sequence[object]],
               header: Sequence[str] | None = None, footer: str | None = None) -> str:
    """An HTML table.

    Parameters
    ----------
    caption : str
        Shown above the table.
    rows : sequence of sequences
        The cells, row by row (each turned into text with ``str`` and escaped).
    header : sequence of str, optional
        Column names.
    footer : str, optional
        A line of text below the table (how to read or filter it).

    Returns
    -------
    str
    """
    cell = 'style="text-align:left; vertical-align:top"'
    parts = [f"<table><caption style=\"text-align:left\"><b>{escape(caption)}</b></caption>"]
    if header:
        parts.append("<tr>" + "".join(f"<th {cell}>{escape(str(name))}</th>"
                                      for name in header) + "</tr>")
    for row in rows:
        parts.append("<tr>" + "".join(f"<td {cell}>{escape(str(value))}</td>"
                                      for value in row) + "</tr>")
    parts.append("</table>")
    if footer:
        parts.append(f"<p><small>{escape(footer)}</small></p>")
    return "".join(parts)
