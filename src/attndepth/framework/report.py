"""Render claim results as a table, JSON, Markdown or LaTeX.

JSON carries the provenance needed to reproduce every number: seed, preset,
parameters, toolkit version and the numeric stack (NumPy, BLAS).
"""

from __future__ import annotations

import json
import math
import platform
from typing import TYPE_CHECKING, Any

from attndepth import __version__
from attndepth.errors import InvalidParameter
from attndepth.framework.result_text import (
    TABLE_WIDTH,
    result_block,
    verdict_word,
    wrong_theory_line,
)
from attndepth.framework.verdicts import DECIDED, THEORY_VERDICTS, VERDICTS, Verdict

if TYPE_CHECKING:  # the commands that only write JSON need not import every claim's machinery
    from attndepth.framework.results import ClaimResult

__all__ = ["FORMATS", "TABLE_WIDTH", "dumps", "environment", "render", "render_json",
           "render_latex", "render_markdown", "render_table", "summary", "wrong_theory_line"]

FORMATS: tuple[str, ...] = ("table", "json", "markdown", "latex")
COLUMNS: tuple[str, ...] = ("claim", "source", "predicted", "measured", "verdict", "seconds")


def environment() -> dict[str, Any]:
    """Versions of the toolkit and the numeric stack, and the BLAS in use."""
    import flint
    import numpy
    import scipy
    import sympy
    from threadpoolctl import threadpool_info

    # threadpoolctl lists libraries in load order, which varies between runs: sort them
    # so that the same command gives the same bytes.
    blas = sorted(
        ({k: info.get(k) for k in ("internal_api", "version", "num_threads", "architecture")}
         for info in threadpool_info() if info.get("user_api") == "blas"),
        key=lambda entry: json.dumps(entry, sort_keys=True, default=str),
    )
    return {
        "attndepth": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "sympy": sympy.__version__,
        "python-flint": flint.__version__,
        "blas": blas,
        "machine": platform.machine(),
    }


def _row(result: ClaimResult) -> dict[str, str]:
    return {
        "claim": result.id + (" (conjecture)" if result.conjecture else ""),
        "source": result.source,
        "predicted": result.outcome.predicted,
        "measured": result.outcome.measured,
        "verdict": verdict_word(result),
        "seconds": f"{result.seconds:.2f}",
    }


def _json_safe(value: Any) -> Any:
    """Floats that JSON cannot hold (NaN, ±inf) become strings; numpy scalars become Python."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    elif not isinstance(value, str | int | float | bool | type(None)):
        return _json_safe(value.__dict__) if hasattr(value, "__dict__") else str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def dumps(document: Any) -> str:
    """Strict JSON for every ``--json`` output: NaN and ±inf become the strings "nan",
    "inf", "-inf" (strict parsers reject the bare tokens), anything else unknown a string."""
    return json.dumps(_json_safe(document), indent=2, ensure_ascii=False, allow_nan=False,
                      default=str)


def render_json(results: list[ClaimResult], preset: str, seed: int) -> str:
    """One JSON document: provenance and one object per claim."""
    document = {
        "preset": preset,
        "seed": seed,
        "environment": environment(),
        "claims": [
            {
                **_row(result),
                "claim": result.id,
                "verdict": result.claim_verdict,
                "seconds": round(result.seconds, 4),
                "statement": result.statement,
                "conjecture": result.conjecture,
                "tolerance": result.tolerance,
                "note": result.outcome.note,
                "params": result.params,
                "values": result.outcome.values,
                "kind": result.kind,
                "in_family": result.in_family,
                "evidence": result.evidence.as_dict() if result.evidence else None,
                "rivals": [rival.as_dict() for rival in result.rivals],
                "wrong_theory": result.wrong_theory,
                "wrong_theory_caught": result.wrong_theory_caught,
                "preset_verdict": result.preset_verdict,
                "family_verdict": result.family_verdict,
                "domain": result.domain.as_dict() if result.domain else None,
                "to_decide": result.to_decide.as_dict() if result.to_decide else None,
            }
            for result in results
        ],
        "summary": summary(results),
    }
    return dumps(document)


def summary(results: list[ClaimResult]) -> dict[Verdict, int]:
    """Counts of each verdict (``indistinguishable`` apart from ``holds``; consistency
    checks as ``consistent`` / ``inconsistent``, apart from theory verdicts)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for result in results:
        if result.claim_verdict is not None:
            counts[result.claim_verdict] += 1
    return counts




def render_table(results: list[ClaimResult], width: int = TABLE_WIDTH) -> str:
    """A narrow text report: one block per claim, wrapped to ``width`` columns.

    Each block gives the verdict, the id, the prediction, the measurement and
    the tolerance; every verdict other than ``holds``/``proved`` also says why
    (the note). The full notes of every claim are in the other formats.
    """
    out: list[str] = []
    for result in results:
        out += result_block(result, width)
    counts = summary(results)
    out.append("")
    out.append(", ".join(f"{n} {v}" for v, n in counts.items()
                         if n or v in DECIDED))
    checks = counts[Verdict.CONSISTENT] + counts[Verdict.INCONSISTENT]
    if checks:
        out[-1] = ", ".join(f"{n} {v}" for v, n in counts.items()
                            if (n or v in DECIDED) and v in THEORY_VERDICTS)
        out[-1] += (f"; consistency checks: {counts[Verdict.CONSISTENT]} consistent, "
                    f"{counts[Verdict.INCONSISTENT]} inconsistent")
    return "\n".join(out)


#: The Markdown table's columns.
MARKDOWN_COLUMNS = (*COLUMNS, "tolerance")


def _markdown_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def markdown_part(result: ClaimResult) -> dict[str, Any]:
    """One claim's share of :func:`render_markdown`: its table ``row`` and its ``notes``
    (plain JSON: a run may be saved and joined with others by :func:`join_markdown`)."""
    cells = {**_row(result), "tolerance": result.tolerance}
    notes = ([f"- **{result.id}** ({verdict_word(result)}): "
              f"{_markdown_cell(result.outcome.note)}"] if result.outcome.note else [])
    failures = [f"- **{result.id}** ({result.verdict}; {result.preset_verdict} at its "
                f"preset): fails in its domain at {_markdown_cell(failure.line())}"
                for failure in (result.domain.failures if result.domain else ())]
    return {"row": "| " + " | ".join(_markdown_cell(cells[c]) for c in MARKDOWN_COLUMNS)
            + " |", "notes": notes, "failures": failures}


def join_markdown(parts: list[dict[str, Any]]) -> str:
    """The Markdown of :func:`render_markdown` from the claims' :func:`markdown_part`."""
    out = ["| " + " | ".join(MARKDOWN_COLUMNS) + " |", "|" + "---|" * len(MARKDOWN_COLUMNS)]
    out += [part["row"] for part in parts]
    notes = [n for part in parts for n in part["notes"]]
    notes += [f for part in parts for f in part["failures"]]
    if notes:
        out += ["", "Notes:", "", *notes]
    return "\n".join(out)


def render_markdown(results: list[ClaimResult]) -> str:
    """GitHub-flavoured Markdown: a table (pipes escaped, one line per cell), then the notes."""
    return join_markdown([markdown_part(r) for r in results])


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


#: Non-ASCII characters of claims and notes as pdflatex-safe LaTeX (math in ``$…$``).
_LATEX_UNICODE = {
    "±": r"$\pm$", "×": r"$\times$", "·": r"$\cdot$", "→": r"$\to$", "−": "$-$",
    "√": r"$\surd$", "∞": r"$\infty$", "≈": r"$\approx$", "≤": r"$\le$", "≥": r"$\ge$",
    "≠": r"$\ne$", "‖": r"$\Vert$", "′": r"$'$", "ℓ": r"$\ell$", "ᵀ": r"$^{\top}$",
    "∈": r"$\in$", "∑": r"$\sum$", "∏": r"$\prod$", "⟨": r"$\langle$", "⟩": r"$\rangle$",
    "⊂": r"$\subset$", "∀": r"$\forall$", "∂": r"$\partial$", "⌈": r"$\lceil$",
    "⌉": r"$\rceil$", "⌊": r"$\lfloor$", "⌋": r"$\rfloor$", "∝": r"$\propto$",
    "–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "…": r"\ldots{}",
    "§": r"\S{}", "°": r"$^{\circ}$", "\u00a0": "~",
}
#: Greek letters with a LaTeX command (capitals that look Latin have none: they stay Latin).
_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
          "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi",
          "chi", "psi", "omega"}
_SCRIPTS = {"SUPERSCRIPT": "^", "SUBSCRIPT": "_"}
_SCRIPT_NAMES = {"ZERO": "0", "ONE": "1", "TWO": "2", "THREE": "3", "FOUR": "4", "FIVE": "5",
                 "SIX": "6", "SEVEN": "7", "EIGHT": "8", "NINE": "9", "PLUS SIGN": "+",
                 "MINUS": "-", "LATIN SMALL LETTER N": "n", "LATIN SMALL LETTER I": "i"}


def _latex_character(ch: str) -> str:
    """One character as pdflatex-safe text: ASCII escaped, Unicode converted."""
    import unicodedata

    if ch in _LATEX_ESCAPES:
        return _LATEX_ESCAPES[ch]
    if ord(ch) < 128:
        return ch
    if ch in _LATEX_UNICODE:
        return _LATEX_UNICODE[ch]
    name = unicodedata.name(ch, "")
    if name.startswith("GREEK "):
        letter = name.split(" LETTER ", 1)[-1].lower().replace("lamda", "lambda")
        if letter in _GREEK:
            capital = "CAPITAL" in name
            command = letter.capitalize() if capital else letter
            if capital and letter not in ("gamma", "delta", "theta", "lambda", "xi", "pi",
                                          "sigma", "upsilon", "phi", "psi", "omega"):
                return unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode() \
                    or "?"
            return f"$\\{command}$"
    for word, mark in _SCRIPTS.items():
        if name.startswith(word + " "):
            base = _SCRIPT_NAMES.get(name[len(word) + 1:])
            if base is not None:
                return f"${mark}{{{base}}}$"
    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return plain if plain else "?"


def _latex_escape(text: str) -> str:
    """Text for a pdflatex table: LaTeX specials escaped, every non-ASCII character
    converted (Greek letters, arrows, relations, sub- and superscripts to math)."""
    import re

    # adjacent math groups join ("$\\sigma$$_{2}$" -> "$\\sigma_{2}$"); an escaped \\$ stays
    return re.sub(r"(?<!\\)\$\$", "", "".join(_latex_character(ch) for ch in text))


def render_latex(results: list[ClaimResult]) -> str:
    """A booktabs ``tabular`` and the notes as a list (needs ``booktabs``; UTF-8 input)."""
    out = [r"\begin{tabular}{llllll}", r"\toprule",
           " & ".join(COLUMNS) + r" \\", r"\midrule"]
    out += [" & ".join(_latex_escape(_row(r)[c]) for c in COLUMNS) + r" \\" for r in results]
    out += [r"\bottomrule", r"\end{tabular}"]
    notes = [rf"\item \texttt{{{_latex_escape(r.id)}}} ({verdict_word(r)}; tolerance: "
             rf"{_latex_escape(r.tolerance)}): {_latex_escape(r.outcome.note)}"
             for r in results if r.outcome.note]
    notes += [rf"\item \texttt{{{_latex_escape(r.id)}}} ({r.verdict}; {r.preset_verdict} at "
              rf"its preset): fails in its domain at {_latex_escape(failure.line())}"
              for r in results for failure in (r.domain.failures if r.domain else ())]
    if notes:
        out += [r"\begin{itemize}", *notes, r"\end{itemize}"]
    return "\n".join(out)


def render(results: list[ClaimResult], fmt: str, preset: str, seed: int) -> str:
    """Dispatch on ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "json":
        return render_json(results, preset, seed)
    if fmt == "markdown":
        return render_markdown(results)
    if fmt == "latex":
        return render_latex(results)
    if fmt == "table":
        return render_table(results)
    raise InvalidParameter(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
