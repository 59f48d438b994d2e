import json

import pytest

from attndepth.framework.model import Claim, Outcome
from attndepth.framework.report import TABLE_WIDTH, render, summary
from attndepth.framework.results import ClaimResult


def _claim(tolerance="tol"):
    return Claim(id="a.b", source="src_1", statement="stmt", tolerance=tolerance,
                 verify=lambda seed: None, presets={})


def _result(verdict="holds", value=1.0):
    outcome = Outcome("p | 1", "m & 2", verdict, note="n", values={"x": value})
    return ClaimResult(claim=_claim(), preset="quick", seed=3, params={"k": 1},
                       outcome=outcome, seconds=0.5)


def test_json_is_valid_and_records_provenance():
    document = json.loads(render([_result(value=float("nan"))], "json", "quick", 3))
    assert document["seed"] == 3 and document["preset"] == "quick"
    assert document["environment"]["numpy"]
    row = document["claims"][0]
    assert row["claim"] == "a.b" and row["verdict"] == "holds"
    assert row["values"]["x"] == "nan"  # never a bare NaN in JSON


def test_table_markdown_latex_contain_each_row():
    results = [_result(), _result("fails")]
    assert "FAILS" in render(results, "table", "quick", 0)
    markdown = render(results, "markdown", "quick", 0)
    table = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len(table) == 4 and "p \\| 1" in markdown
    assert "Notes:" in markdown and "**a.b** (fails): n" in markdown
    latex = render(results, "latex", "quick", 0)
    assert r"m \& 2" in latex and r"src\_1" in latex
    assert r"\item \texttt{a.b} (fails; tolerance: tol): n" in latex


def test_summary_counts():
    assert summary([_result(), _result("fails")]) == {
        "proved": 0, "holds": 1, "indistinguishable": 0, "fails": 1, "inconclusive": 0,
        "error": 0, "consistent": 0, "inconsistent": 0}


def test_table_fits_a_terminal_and_says_why():
    long = Outcome("p " * 80, "m " * 80, "inconclusive", note="because " * 40)
    result = ClaimResult(claim=_claim("tol " * 40), preset="quick", seed=0, params={},
                         outcome=long, seconds=0.1)
    text = render([result], "table", "quick", 0)
    assert max(len(line) for line in text.splitlines()) <= TABLE_WIDTH
    assert "why" in text and "because" in text


def test_unknown_format():
    with pytest.raises(ValueError, match="format"):
        render([], "yaml", "quick", 0)


def test_outcome_rejects_unknown_verdict():
    with pytest.raises(ValueError, match="verdict"):
        Outcome("p", "m", "maybe")


def test_latex_is_pure_ascii_with_balanced_math_for_every_claims_text():
    # pdflatex compiles it (no TeX engine installs from the package registries here, so
    # the check is by character): every claim's statement, source and tolerance as cells
    import re

    from attndepth.framework.registry import all_claims

    results = [ClaimResult(claim=found, preset="quick", seed=0, params={},
                           outcome=Outcome(found.statement, "σ₂ → 0.5 ± 0.1, α ≤ √2 − ∞",
                                           "holds", note=found.tolerance), seconds=0.1)
               for found in all_claims().values()]
    latex = render(results, "latex", "quick", 0)
    assert latex.isascii(), sorted({ch for ch in latex if ord(ch) > 127})
    for line in latex.splitlines():
        assert len(re.findall(r"(?<!\\)\$", line)) % 2 == 0, line
    assert r"$\sigma_{2}$ $\to$ 0.5 $\pm$ 0.1, $\alpha$ $\le$ $\surd$2 $-$ $\infty$" in latex
