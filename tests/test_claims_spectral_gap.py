"""naderi.spectral-gap at small sizes, and what it reports beside its verdict."""

from attndepth.framework.registry import run_claim


def test_spectral_gap_reports_the_key_query_departure():
    result = run_claim("naderi.spectral-gap", scale=0.5, width=16, tokens=(32, 64, 128, 256),
                       samples=2)
    values = result.outcome.values
    # at s = 0.5 the edge 2s/√T lies 6 % from 2κ, inside the edge's ±20 % band: a named
    # rival the measurement cannot reject there (its to_decide says why)
    assert result.verdict == "indistinguishable", result.outcome
    assert [r.name for r in result.rivals if not r.rejected] == ["edge 2s/√T"]
    assert result.to_decide is not None and "no sample size" in result.to_decide.text
    assert abs(values["slope"] + 0.5) < 0.05
    # key-query attention with T ≫ d is not a random Markov matrix: s₂ shrinks far slower
    assert values["key_query_slope"] > -0.3
    assert "key-query attention" in result.outcome.note


def test_an_exponent_of_minus_one_fails(monkeypatch):
    from attndepth.claims import spectral_gap as spectral_gap_claims

    monkeypatch.setattr(spectral_gap_claims, "SPECTRAL_EXPONENT", -1.0)
    result = run_claim("naderi.spectral-gap", tokens=(64, 128, 256), samples=1)
    assert result.verdict == "fails" and "slope" in result.outcome.values["failed"]


def test_heavy_logits_are_not_asymptotic_at_these_sizes():
    # s = 1.5: e^{s²} ≈ 9.5, so T ≤ 1024 leaves about 100 effective weights per row and the
    # bulk has not reached its 1/√T law (slope ≈ −0.25): reported as fails, outside the family.
    result = run_claim("naderi.spectral-gap", scale=1.5, width=16)
    assert result.verdict == "fails" and "slope" in result.outcome.values["failed"]
