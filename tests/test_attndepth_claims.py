import pytest

from attndepth.claims import PRESETS, all_claims, get_claim, run_claim, run_claims


def test_registry_has_unique_ids_with_sources_and_presets():
    claims = all_claims()
    assert {"levine.degree", "levine.structure", "yuzhang.invariant-eigenspace"} <= set(claims)
    for claim in claims.values():
        assert claim.source and claim.statement and claim.tolerance
        assert set(PRESETS) <= set(claim.presets)


def test_unknown_claim_and_preset_rejected():
    with pytest.raises(ValueError, match="unknown claim"):
        get_claim("levine.nope")
    with pytest.raises(ValueError, match="preset"):
        run_claim("levine.degree", preset="huge")
    with pytest.raises(ValueError, match="seed"):
        run_claim("levine.degree", seed=-1)
    with pytest.raises(ValueError, match="unknown claim"):
        run_claims(["levine.degree", "nope"])


def test_result_records_provenance():
    result = run_claim("levine.degree", "quick", seed=4)
    assert result.seed == 4 and result.preset == "quick"
    assert result.params == get_claim("levine.degree").presets["quick"]
    assert result.seconds >= 0
