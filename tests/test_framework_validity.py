"""Validity maps: a claim run over a grid, its errors with intervals, a power-law fit."""

import math

import numpy as np
import pytest

from attndepth.framework import registry
from attndepth.framework.declarations import Estimate, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Claim, Outcome
from attndepth.framework.validity import error_scaling, parse_grid, validity_map


def _verify(seed: int, width: int, batch: int = 16) -> Outcome:
    """Measured = prediction · (1 + 0.5/width) + noise: a 1/d gap, as a derivation might miss."""
    rng = np.random.default_rng(seed)
    values = list(1 + 0.5 / width + 0.01 * rng.standard_normal(batch))
    return Outcome("1", "", "holds", "", {"measured": values, "predicted": 1.0})


@pytest.fixture
def synthetic(monkeypatch):
    found = Claim("test.gap", "s", "a 1/d gap", "±1.5 %", _verify,
                  {"quick": {"width": 64}, "full": {"width": 64}},
                  family=Family(parameters={"width": (16, 32, 64, 128)}),
                  estimate=Estimate("measured", "predicted", (-0.015, 0.015), seeds=(4, 8),
                                    pool="stacks"),
                  rivals=(Rival("2", "a straw man", predicted=lambda v, p: 2.0),))
    monkeypatch.setitem(registry._REGISTRY, found.id, found)
    return found.id


def test_the_map_finds_where_the_claim_breaks_and_how_the_error_scales(synthetic):
    result = validity_map(synthetic, {"width": (8, 16, 32, 64, 128)}, beyond=True)
    verdicts = [p.verdict for p in result.points]
    assert verdicts[:2] == ["fails", "fails"] and verdicts[-1] == "holds"
    assert [p.in_family for p in result.points] == [False, True, True, True, True]
    assert all(p.low <= p.mean <= p.high for p in result.points)
    scaling = error_scaling(result, "width")
    assert math.isclose(scaling.k, 1.0, abs_tol=0.15) and math.isclose(scaling.c, 0.5, rel_tol=0.3)
    assert result.as_dict()["points"][0]["width"] == 8


def test_points_outside_the_family_need_beyond(synthetic):
    with pytest.raises(ValueError, match="outside the family"):
        validity_map(synthetic, {"width": (8, 16)})


@pytest.mark.parametrize("grid, match", [
    ({}, "at least one value"), ({"width": ()}, "at least one value"),
    ({"height": (1,)}, "takes no parameter 'height'"),
])
def test_bad_grids_are_refused(synthetic, grid, match):
    with pytest.raises(ValueError, match=match):
        validity_map(synthetic, grid)


def test_a_claim_without_an_estimate_needs_a_value():
    with pytest.raises(ValueError, match="--value"):
        validity_map("levine.threshold", {"width": (2,), "q_size": (1,)})


def test_family_members_map_through_the_family():
    result = validity_map("levine.threshold", {"width": (2, 3), "q_size": (1,)},
                          value="offset", band=(-1.0, 1.0))
    assert [round(p.mean, 3) for p in result.points] == [round(2 - math.log(2, 3), 3), 1.0]
    assert result.band == (-1.0, 1.0)


def test_a_point_that_raises_is_kept_as_an_error(synthetic, monkeypatch):
    def verify(seed, width, batch=16):
        if width == 32:
            raise ValueError("too large for this machine")
        return _verify(seed, width, batch)
    found = registry._REGISTRY[synthetic]
    monkeypatch.setitem(registry._REGISTRY, synthetic, Claim(**{**found.__dict__,
                                                                "verify": verify}))
    result = validity_map(synthetic, {"width": (16, 32)})
    assert [p.verdict for p in result.points] == ["fails", "error"]
    assert "too large" in result.points[1].note and math.isnan(result.points[1].mean)


def test_grids_parse_numbers_and_refuse_malformed_items():
    assert parse_grid(["width=8,16", "temperature=0.5", "variant=post-ln"]) == {
        "width": (8, 16), "temperature": (0.5,), "variant": ("post-ln",)}
    for bad in (["width"], ["=1"], ["width="], ["width=1", "width=2"]):
        with pytest.raises(ValueError, match="--grid"):
            parse_grid(bad)


def test_no_power_law_for_errors_of_both_signs(synthetic):
    result = validity_map(synthetic, {"width": (16, 32, 64)})
    flipped = type(result)(result.claim, result.label, result.band,
                           (*result.points[:2], type(result.points[2])(
                               **{**result.points[2].__dict__, "mean": -0.1})),
                           result.grid, result.preset, result.seed)
    assert error_scaling(flipped, "width") is None


@pytest.mark.parametrize("items, message", [
    (["width=8,8"], "repeats 8"),
    (["width=8,8.0"], "repeats"),
    (["width=nan"], "finite"),
    (["width=1,inf"], "finite"),
    (["width=" + ",".join(str(k) for k in range(1, 20_002))], "more than 10000 values"),
    (["width=" + ",".join(str(k) for k in range(1, 150)),
      "tokens=" + ",".join(str(k) for k in range(1, 150))], "more than 10000 points"),
    (["width=1,,2"], "must not be empty"),
])
def test_a_grid_no_map_should_run_is_refused_before_anything_runs(items, message):
    from attndepth.framework.validity import parse_grid

    with pytest.raises(ValueError, match=message):
        parse_grid(items)


@pytest.mark.parametrize("band", [(1.0, 1.0), (2.0, 1.0), (math.nan, 1.0), (-math.inf, 0.0)])
def test_a_band_must_be_finite_and_ordered(band):
    with pytest.raises(ValueError, match="finite LOW < HIGH"):
        validity_map("levine.threshold", {"width": (2, 3), "q_size": (1,)}, band=band)


def test_a_margin_gets_no_power_law():
    import math

    from attndepth.framework.validity import MapPoint, ValidityMap, error_scaling

    points = tuple(MapPoint({"width": w}, "holds", True, m, m - 0.01, m + 0.01, 4)
                   for w, m in ((8, 0.4), (16, 0.2), (32, 0.1)))
    two_sided = ValidityMap("c", "e", (-0.5, 0.5), points, {"width": (8, 16, 32)}, "quick", 0)
    assert error_scaling(two_sided, "width").k == pytest.approx(1.0)
    margin = ValidityMap("c", "e", (0.0, math.inf), points, {"width": (8, 16, 32)}, "quick", 0)
    assert error_scaling(margin, "width") is None


def test_a_growing_error_reads_as_a_positive_power():
    from attndepth.framework.validity import Scaling

    assert Scaling("scale", 0.0858, -1.8, 4).describe() == "|error| ≈ 0.0858·scale^1.80 (4 points)"
    assert Scaling("width", 2.0, 0.5, 3).describe() == "|error| ≈ 2·width^(−0.50) (3 points)"
