"""noci.residual-scaling and giorlandino.correlation-map at small sizes."""

from attndepth.claims import run_claim


def test_residual_scaling_reports_the_departure_at_temperature_one():
    result = run_claim("noci.residual-scaling", tokens=8, width=32, depths=(8,), batch=16)
    values = result.outcome.values
    assert result.verdict == "holds", result.outcome
    # temperature 1 is not uniform attention: alpha = 1 aligns more slowly than predicted
    assert 0.6 < values["default_temperature_ratio"] < 0.97
    assert "temperature 1" in result.outcome.note


def test_residual_scaling_fails_at_temperature_one_where_attention_is_not_uniform():
    # the recursion assumes uniform attention; the stacks' default temperature breaks it
    result = run_claim("noci.residual-scaling", temperature=1.0, depths=(32,), batch=32)
    assert result.verdict == "fails" and result.outcome.values["misses"]
