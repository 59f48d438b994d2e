"""The HTML table notebooks show: escaped cells, caption, header and footer."""

from attndepth.html_table import html_table


def test_cells_are_escaped_and_the_parts_appear_in_order():
    shown = html_table("a < b", [("x", "<script>"), (1, 2.5)], header=("k", "v"),
                       footer="read & filter")
    assert "<script>" not in shown and "&lt;script&gt;" in shown
    assert shown.index("<caption") < shown.index("<th") < shown.index("<td")
    assert "a &lt; b" in shown and "read &amp; filter" in shown
    assert shown.count("<tr>") == 3


def test_a_table_without_header_or_footer():
    shown = html_table("plain", [("only", "row")])
    assert "<th" not in shown and "<small>" not in shown
