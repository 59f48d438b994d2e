"""One claim result as text: the block a report prints for it, its verdict word, and the
HTML table a notebook shows.

Kept apart from :mod:`attndepth.framework.report` so that a
:class:`~attndepth.framework.results.ClaimResult` can show itself (in a notebook)
without the registry importing the report, which imports the registry.
"""

from __future__ import annotations

import textwrap
from typing import Any

from attndepth.framework.verdicts import PASSING, Verdict
from attndepth.html_table import html_table

#: Width the text report is wrapped to (fits a normal terminal).
TABLE_WIDTH = 88
#: The verdict word of a run outside its claim's family (it gives no claim verdict).
OUTSIDE = "outside"


def verdict_word(result: Any) -> str:
    """The verdict word a report shows for a ClaimResult: the claim's, or :data:`OUTSIDE`."""
    return result.claim_verdict or OUTSIDE


def wrong_theory_line(result: Any) -> str:
    """What the run with the claim's wrong theory in place showed, in one sentence."""
    if result.wrong_theory == "none":
        return "the claim declares no wrong theory: nothing shows that it can fail"
    if result.wrong_theory_caught:
        return f"with its wrong theory in place the verdict is {result.wrong_theory}: it can fail"
    return (f"with its wrong theory in place the verdict is {result.wrong_theory}, NOT "
            f"fails: the check cannot tell this theory from the wrong one")


def result_heading(result: Any) -> str:
    """The first line of a result: verdict, id, conjecture mark and seconds."""
    label = " (conjecture)" if result.conjecture else ""
    return f"{verdict_word(result).upper():<13} {result.id}{label}  ({result.seconds:.2f} s)"


def result_lines(result: Any) -> list[tuple[str, str]]:
    """The labelled lines of one ClaimResult: prediction, measurement, tolerance, rivals,
    and where they apply the wrong theory, the family, the preset's verdict, why, what
    would decide it and the domain's failing members."""
    lines = [("predicted", result.outcome.predicted), ("measured", result.outcome.measured),
             ("tolerance", result.tolerance)]
    lines += [("rival", f"{rival.name} ({rival.source}): "
                        f"{'rejected' if rival.rejected else 'NOT rejected'}")
              for rival in result.rivals]
    if result.wrong_theory is not None:
        lines.append(("wrong", wrong_theory_line(result)))
    if result.in_family is False:
        lines.append(("family", f"these parameters lie OUTSIDE the claim's family: the "
                                f"run here {result.preset_verdict}, which is no verdict "
                                f"of the claim"))
    elif result.verdict != result.preset_verdict:
        lines.append(("preset", f"{result.preset_verdict} at its preset; the claim "
                                f"{result.verdict} in its domain (a known member fails)"))
    if result.preset_verdict not in PASSING | {Verdict.CONSISTENT}:
        lines.append(("why", result.outcome.note))
    if result.to_decide is not None:
        lines.append(("to decide", result.to_decide.text))
    for failure in result.domain.failures if result.domain else ():
        lines.append(("domain", failure.line()))
    return lines


def result_block(result: Any, width: int) -> list[str]:
    """The lines of one ClaimResult in the text report, wrapped to ``width`` columns: its
    heading (:func:`result_heading`), then :func:`result_lines`."""
    out = [result_heading(result)]
    for label, text in result_lines(result):
        out += textwrap.wrap(text, width, initial_indent=f"    {label:<10} ",
                             subsequent_indent=" " * 15, break_on_hyphens=False,
                             break_long_words=False) or [f"    {label}"]
    return out


def result_html(result: Any) -> str:
    """The result as an HTML table (what a notebook shows): its heading as the caption,
    one row per labelled line."""
    label = " (conjecture)" if result.conjecture else ""
    return html_table(f"{verdict_word(result)}: {result.id}{label} ({result.seconds:.2f} s)",
                      result_lines(result))
