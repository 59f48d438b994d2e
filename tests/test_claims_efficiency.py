from attndepth.framework.registry import run_claim


def test_depth_efficiency_holds_and_can_fail(monkeypatch):
    result = run_claim("levine.depth-efficiency", pairs=[[3, 2], [3, 3]])
    assert result.verdict == "holds"
    rows = result.outcome.values["rows"]
    assert [row["needed"] for row in rows] == [34, 9] and all(row["proved"] for row in rows)
    from attndepth.claims import efficiency as efficiency_claims

    monkeypatch.setattr(efficiency_claims, "EXPONENT_SPLIT", 1.0)  # a wrong split
    assert run_claim("levine.depth-efficiency", pairs=[[3, 3]]).verdict == "fails"


def test_depth_efficiency_without_a_decided_knee_is_inconclusive():
    """d = 10: the knee (3) would need a certified rank near 10^6; no verdict on it."""
    assert run_claim("levine.depth-efficiency", pairs=[[10, 2]]).verdict == "inconclusive"
