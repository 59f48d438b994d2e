from attndepth.framework.running import run_claim


def test_allocation_claims_hold_with_reported_numbers():
    # both statements hold, but a fit slope 10 % off either way says the same: they cannot
    # tell the published fit from its neighbours
    gpt3 = run_claim("levine.gpt3-too-deep")
    assert gpt3.verdict == "indistinguishable" and 79 < gpt3.outcome.values["depth_opt"] < 82
    width = run_claim("levine.1t-width")
    assert width.verdict == "indistinguishable"
    assert 29_000 < width.outcome.values["width_opt"] < 30_500
    # slope +10 % keeps d_opt within 5 % of 30K, slope −10 % does not
    assert [rival.rejected for rival in width.rivals] == [False, True]
    assert run_claim("levine.fit-consistency", budgets=5).verdict == "consistent"


def test_gpt3_claim_fails_at_a_budget_where_96_layers_are_optimal():
    # The comparison is a real one: at ~1.1e12 parameters L_opt ≈ 96.
    assert run_claim("levine.gpt3-too-deep", budget=1.2e12).verdict == "fails"
