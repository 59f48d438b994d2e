"""wu.masks at small sizes, and what it shows beyond the paper's statement."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim


def test_masks_report_that_causal_masks_are_not_ordered_by_radius():
    band = run_claim("wu.masks", tokens=16, width=32, causal=False, windows=(2, 3), depth=48)
    causal = run_claim("wu.masks", tokens=16, width=32, causal=True, windows=(2, 3), depth=48)
    assert band.verdict == "holds"
    # a causal window's radius is its diameter: that rival cannot be told apart there
    assert causal.verdict == "indistinguishable"
    assert [r.name for r in causal.evidence.rivals if not r.rejected] == ["r the mask's diameter"]
    band_rows, causal_rows = band.outcome.values["rows"], causal.outcome.values["rows"]
    assert all(row["reach"] == row["radius"] for row in band_rows + causal_rows)
    # the causal w = 2 mask has radius 15 > 4 (band w = 3) yet collapses faster: the radius
    # orders masks of one kind only
    assert causal_rows[0]["radius"] == 15 and band_rows[1]["radius"] == 4
    assert causal_rows[0]["rate"] > band_rows[1]["rate"]


def test_masks_too_shallow_to_decide_are_inconclusive():
    result = run_claim("wu.masks", tokens=32, width=32, causal=False, windows=(2, 3), depth=12,
                       batch=4)
    assert result.verdict == "inconclusive", result.outcome


def test_a_radius_from_the_diameter_fails_by_the_reach_depth():
    from attndepth.theory.masks import mask_diameter

    wrong = get_claim("wu.masks").theory.replaced({"mask_radius": mask_diameter})
    result = run_claim("wu.masks", theory=wrong, tokens=16, width=32, causal=False,
                       windows=(2, 3), depth=48)
    # reached at 8 and 4 blocks, the diameters 15 and 8: the rates' order alone kept it
    assert result.verdict == "fails" and result.outcome.values["radius_miss"] == 7
