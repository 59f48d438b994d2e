"""naderi.spectral-gap at small sizes, and what it reports beside its verdict."""

from attndepth.framework.running import run_claim


def test_spectral_gap_reports_the_key_query_departure():
    result = run_claim("naderi.spectral-gap", scale=0.5, width=16, tokens=(32, 64, 128, 256),
                       samples=2)
    values = result.outcome.values
    # at s = 0.5 the edge 2s/√T lies 6.2 % from 2κ: the band is half that gap (±3.1 %),
    # so the measured edge (−0.9 %) rejects the neighbour (it passed the old ±20 % band)
    assert result.verdict == "holds", result.outcome
    assert all(r.rejected for r in result.rivals) and result.to_decide is None
    assert abs(values["edge_band"] - 0.031) < 0.001 and abs(values["edge_error"]) < 1
    assert abs(values["slope"] + 0.5) < 0.05
    # key-query attention with T ≫ d is not a random Markov matrix: s₂ shrinks far slower
    assert values["key_query_slope"] > -0.3
    assert "key-query attention" in result.outcome.note


def _slope_outside(result):
    """Whether the slope's interval lies outside its band (the claim's first estimate)."""
    label, interval, band = result.evidence.estimates[0]
    return label.startswith("slope") and interval.position(band) == "outside"


def test_an_exponent_of_minus_one_fails(monkeypatch):
    from attndepth.claims import spectral_gap as spectral_gap_claims

    monkeypatch.setattr(spectral_gap_claims, "SPECTRAL_EXPONENT", -1.0)
    result = run_claim("naderi.spectral-gap", tokens=(64, 128, 256), samples=1)
    assert result.verdict == "fails" and _slope_outside(result)


def test_heavy_logits_are_not_asymptotic_at_these_sizes():
    # s = 1.5: e^{s²} ≈ 9.5, so T ≤ 1024 leaves about 100 effective weights per row and the
    # bulk has not reached its 1/√T law (slope ≈ −0.25): reported as fails, outside the family.
    result = run_claim("naderi.spectral-gap", scale=1.5, width=16)
    assert result.verdict == "fails" and _slope_outside(result)


def test_the_edge_band_is_half_the_gap_to_its_neighbour_and_at_most_a_fifth():
    import math

    from attndepth.claims.spectral_gap import EDGE_TOLERANCE, edge_band
    from attndepth.theory.spectral_gap import bulk_second_moment

    for scale in (0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0):
        gap = abs(1 - scale / math.sqrt(bulk_second_moment(scale)))
        assert edge_band(scale) == min(EDGE_TOLERANCE, gap / 2)
    assert edge_band(0.5) < edge_band(1.0) < edge_band(2.0) == EDGE_TOLERANCE
