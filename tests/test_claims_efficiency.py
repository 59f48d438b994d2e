from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim


def test_depth_efficiency_holds_and_can_fail(monkeypatch):
    result = run_claim("levine.depth-efficiency", pairs=[[3, 2], [3, 3]])
    assert result.verdict == "holds"
    rows = result.outcome.values["rows"]
    assert [row["needed"] for row in rows] == [34, 9] and all(row["proved"] for row in rows)
    wrong = get_claim("levine.depth-efficiency").theory.replaced({"EXPONENT_SPLIT": 1.0})
    assert run_claim("levine.depth-efficiency", pairs=[[3, 3]], theory=wrong).verdict == "fails"


def test_depth_efficiency_without_a_decided_knee_is_inconclusive():
    """d = 10: the knee (3) would need a certified rank near 10^6; no verdict on it."""
    assert run_claim("levine.depth-efficiency", pairs=[[10, 2]]).verdict == "inconclusive"
