from attndepth.framework.registry import run_claim


def test_allocation_claims_hold_with_reported_numbers():
    gpt3 = run_claim("levine.gpt3-too-deep")
    assert gpt3.verdict == "holds" and 79 < gpt3.outcome.values["depth_opt"] < 82
    width = run_claim("levine.1t-width")
    assert width.verdict == "holds" and 29_000 < width.outcome.values["width_opt"] < 30_500
    assert run_claim("levine.fit-consistency", budgets=5).verdict == "holds"


def test_gpt3_claim_fails_at_a_budget_where_96_layers_are_optimal():
    # The comparison is a real one: at ~1.1e12 parameters L_opt ≈ 96.
    assert run_claim("levine.gpt3-too-deep", budget=1.2e12).verdict == "fails"
