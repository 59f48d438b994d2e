from attndepth.claims import run_claim
from attndepth.seprank_claims import bounds_of, exact_rank, in_conjectured_family


def test_seprank_claims_hold_on_small_configs():
    configs = [(2, 1, 1, 2, 0), (2, 2, 1, 4, 0), (2, 2, 1, 4, 1), (3, 1, 3, 3, 0)]
    for claim_id in ("levine.upper-bound", "levine.generic-rank", "levine.bound-tightness"):
        assert run_claim(claim_id, configs=configs).verdict == "holds"


def test_heads_claim_reports_each_head_count():
    result = run_claim("levine.heads", width=4, depth=1, tokens=3, heads=[1, 2, 4])
    assert result.verdict == "holds" and set(result.outcome.values["ranks"]) == {"1", "2", "4"}


def test_threshold_claim_reports_measured_crossings_honestly():
    result = run_claim("levine.threshold", exact_widths=[2], exact_depths=[1, 2, 3],
                       conjecture_widths=[9, 27])
    values = result.outcome.values
    # Long sequences put the knee near 2·log_3 d, not log_3 d: not "holds".
    assert values["slope_full"] > 1.5
    assert result.verdict == "inconclusive"


def test_family_and_proof_reason():
    # (d, L, H, N, ρ[, |P|]); balanced when |P| is left out
    assert in_conjectured_family((3, 2, 1, 6, 0))                 # |P| = 3 ≥ d, |Q| = 3
    assert not in_conjectured_family((3, 2, 1, 3, 0, 1))          # |P| = 1, |Q| = 2, d = 3
    assert not in_conjectured_family((2, 3, 1, 3, 0, 2))          # |Q| = 1, L = 3
    assert not in_conjectured_family((3, 2, 2, 6, 0))             # two heads: not asserted
    tight = exact_rank((3, 2, 1, 3, 0, 2), 0)                     # |P| = 2, |Q| = 1, L = 2
    assert tight.rank == bounds_of((3, 2, 1, 3, 0, 2)).bigraded and tight.reason == "upper-bound"
    below = exact_rank((3, 2, 1, 3, 0, 1), 0)
    assert below.rank == 39 and below.reason == "margin"
    assert exact_rank((2, 2, 1, 2, 0), 0).reason == "upper-bound"
