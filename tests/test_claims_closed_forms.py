"""levine.one-position-rank: proved at its presets, against every atlas class with one
position each side; a wrong closed form fails with the class named."""

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim


def test_the_closed_form_is_proved_and_matches_the_atlas():
    result = run_claim("levine.one-position-rank", "quick")
    assert result.verdict == "proved"
    assert result.outcome.values["atlas_classes"] >= 20 and not result.outcome.values["differing"]
    assert all(rival.rejected for rival in result.rivals)


def test_a_wrong_closed_form_fails_naming_the_class():
    wrong = get_claim("levine.one-position-rank").theory.replaced(
        {"one_position_rank": lambda width, depth: 7})
    result = run_claim("levine.one-position-rank", sizes=[[2, 2]], theory=wrong)
    assert result.verdict == "fails" and "reproduce: attndepth seprank" in result.outcome.note
