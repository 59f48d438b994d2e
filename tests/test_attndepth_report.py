import json

import pytest

from attndepth.claims import ClaimResult, Outcome
from attndepth.report import render, summary


def _result(verdict="holds", value=1.0):
    outcome = Outcome("p | 1", "m & 2", verdict, note="n", values={"x": value})
    return ClaimResult("a.b", "src_1", "stmt", "tol", "quick", 3, {"k": 1}, outcome, 0.5)


def test_json_is_valid_and_records_provenance():
    document = json.loads(render([_result(value=float("nan"))], "json", "quick", 3))
    assert document["seed"] == 3 and document["preset"] == "quick"
    assert document["environment"]["numpy"]
    row = document["claims"][0]
    assert row["claim"] == "a.b" and row["verdict"] == "holds"
    assert row["values"]["x"] == "nan"  # never a bare NaN in JSON


def test_table_markdown_latex_contain_each_row():
    results = [_result(), _result("fails")]
    assert "fails" in render(results, "table", "quick", 0)
    markdown = render(results, "markdown", "quick", 0)
    assert markdown.count("\n") == 3 and "p \\| 1" in markdown
    latex = render(results, "latex", "quick", 0)
    assert r"m \& 2" in latex and r"src\_1" in latex


def test_summary_counts():
    assert summary([_result(), _result("fails")]) == {"holds": 1, "fails": 1, "inconclusive": 0}


def test_unknown_format():
    with pytest.raises(ValueError, match="format"):
        render([], "yaml", "quick", 0)


def test_outcome_rejects_unknown_verdict():
    with pytest.raises(ValueError, match="verdict"):
        Outcome("p", "m", "maybe")
