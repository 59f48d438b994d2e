import pytest

from attndepth.claims.separation_rank import bounds_of, exact_rank
from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim


def test_seprank_claims_hold_on_small_configs():
    # (d, L, H, N, ρ, |P|) as plain tuples
    configs = [(2, 1, 1, 2, 0, 1), (2, 2, 1, 4, 0, 2), (2, 2, 1, 4, 1, 2), (3, 1, 3, 3, 0, 2)]
    for claim_id in ("levine.upper-bound", "levine.generic-rank"):
        assert run_claim(claim_id, configs=configs).verdict == "consistent"


def test_heads_claim_reports_each_head_count():
    result = run_claim("levine.heads", width=4, depth=1, tokens=3, heads=[1, 2, 4])
    assert result.verdict == "consistent"
    assert set(result.outcome.values["ranks"]) == {"1", "2", "4"}


def test_threshold_claim_decides_knees_and_fails_for_long_sequences():
    result = run_claim("levine.threshold", regimes=[[2, 1], [4, 1], [3, 3]])
    values = result.outcome.values
    assert values["knees"] == {"2,1": 2, "4,1": 2, "3,3": 3}  # decided, not extrapolated
    # log_3 3 = 1 is two layers short of the knee of long sequences at d = 3
    assert [3, 3, 2.0] in values["paper_misses"] and result.verdict == "fails"
    assert values["corrected_misses"] == []


def test_threshold_claim_can_hold():
    """The check discriminates: a law one layer from every knee makes it hold."""
    law = get_claim("levine.threshold").theory.replaced({"threshold_depth": lambda width: 2.5})
    # ... and a constant knee of 2 (a rival) agrees with it too: not holds, indistinguishable
    result = run_claim("levine.threshold", regimes=[[2, 1], [3, 3]], theory=law)
    assert result.verdict == "indistinguishable"
    assert [r.name for r in result.rivals if not r.rejected] == ["constant knee 2",
                                                                "log_3 d + 1"]


def test_one_q_position_beyond_d_9_is_decided_by_the_proved_closed_form():
    # κ from C(K + d, d): 3 at d = 28 (log_3 d + 1 = 4.03 misses), 4 at d = 55 (a constant
    # 2 misses by two layers), 7 at d = 4096 (log_3(2d + 1) = 8.20 misses); log_3 d holds
    result = run_claim("levine.threshold", regimes=[[28, 1], [55, 1], [4096, 1]])
    values = result.outcome.values
    assert values["knees"] == {"28,1": 3, "55,1": 4, "4096,1": 7}
    assert set(values["methods"]["4096,1"].values()) == {"closed form"}
    assert values["bounds"]["4096,1"][-1] == pytest.approx(2198.7, abs=0.1)  # log10
    assert values["paper_misses"] == [] and values["corrected_misses"] == [[4096, 1]]
    assert result.verdict == "holds" and all(r.rejected for r in result.rivals)
    assert "proved: levine.one-position-rank" in result.outcome.note


def test_knee_undecided_without_measurements_is_inconclusive(monkeypatch):
    from attndepth.claims import separation_rank as threshold_claims
    from attndepth.rank import knee

    monkeypatch.setattr(knee, "required_lower", lambda upper, k: [2] * k)  # measure nothing
    threshold_claims._measured_knee.cache_clear()  # knees measured before the patch
    try:
        assert run_claim("levine.threshold", regimes=[[3, 1]]).verdict == "inconclusive"
    finally:
        threshold_claims._measured_knee.cache_clear()  # nor after it


def test_proof_reason():
    # (d, L, H, N, ρ, |P|)
    tight = exact_rank((3, 2, 1, 3, 0, 2), 0)                     # |P| = 2, |Q| = 1, L = 2
    assert tight.rank == bounds_of((3, 2, 1, 3, 0, 2)).bigraded and tight.reason == "upper-bound"
    below = exact_rank((3, 2, 1, 3, 0, 1), 0)
    assert below.rank == 39 and below.reason == "margin"
    assert exact_rank((2, 2, 1, 2, 0, 1), 0).reason == "upper-bound"


def test_a_configuration_of_another_length_is_refused_in_one_line():

    from attndepth.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match=r"six integers \(d, L, H, N, ρ, \|P\|\)"):
        run_claim("levine.upper-bound", configs=[(2, 1, 1, 2, 0)])


def test_a_bounded_knee_counts_as_a_miss_only_beyond_the_tolerance():
    result = run_claim("levine.threshold", regimes=[[7, 1, 100, 0]])  # dense blocks only
    assert result.verdict == "inconclusive"  # κ ≥ 2 is within a layer of log_3 7 = 1.77
    assert result.outcome.values["knees_at_least"] == {"7,1": 2}
    # the torus split (216 classes at d = 7, 10 points each) decides it instead
    decided = run_claim("levine.threshold", regimes=[[7, 1, 100]])
    assert decided.outcome.values["knees"] == {"7,1": 2}
    assert decided.outcome.values["methods"]["7,1"] == {"2": "torus"}


def test_a_malformed_regime_is_refused_in_one_line():

    with pytest.raises(ValueError, match=r"a regime is \[d, q\]"):
        run_claim("levine.threshold", regimes=[[5]])
    with pytest.raises(ValueError, match=r"max_points, N\]"):
        run_claim("levine.threshold", regimes=[[5, 5, 100, 6, 1]])


def test_threshold_claim_decides_the_knee_of_long_sequences_at_width_five():
    """d = 5, |P| = |Q| = 5: the dense blocks cannot certify the deciding rank 103,701 at
    L = 3; the torus split does (minutes: measured once, `attndepth atlas knees`, and
    shipped), and the knee is 3. tests/test_rank_knee.py measures the split itself."""
    result = run_claim("levine.threshold", regimes=[[5, 5]])
    values = result.outcome.values
    assert values["knees"] == {"5,5": 3} and values["methods"]["5,5"]["3"] == "torus"
    assert values["shipped"]["5,5"] == [2, 3] and "shipped certificate" in result.outcome.note
    assert values["certified"]["5,5"][2] > 103_701 and result.verdict == "fails"


def test_the_depth_delusion_power_law_misses_the_knee_of_three_q_positions():
    """#43 item 5: D_crit = 16·(d/512)^0.44 puts the knee at 1.67 layers for d = 3; the
    certified knee of |P| = |Q| = 3 is 3, more than a layer away: the rival is rejected."""
    from attndepth.theory.depth_width import delusion_critical_depth

    rival = get_claim("levine.threshold").theory.replaced(
        {"threshold_depth": delusion_critical_depth})
    assert run_claim("levine.threshold", regimes=[[3, 3]], theory=rival).verdict == "fails"
    # at d = 2, one position, the knee 2 lies within a layer of 1.39 (the constant 2 too)
    assert run_claim("levine.threshold", regimes=[[2, 1]],
                     theory=rival).verdict == "indistinguishable"
