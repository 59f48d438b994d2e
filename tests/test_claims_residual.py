import pytest

from attndepth.framework.registry import get_claim
from attndepth.framework.running import run_claim
from attndepth.theory.residual_rank import grouped_bound


@pytest.mark.slow  # 9 s: two whole-matrix ranks with rho = 1 and their degree blocks
def test_residual_rank_holds_and_a_wrong_theory_fails(monkeypatch):
    """Equal ranks with and without the residual, including where ρ = 0 is below bound (d)
    (137 < 140); the grouped bound, a plausible wrong theory, fails there."""
    configs = [[2, 3, 1, 3, 1, 2], [2, 2, 1, 4, 1, 2]]
    result = run_claim("levine.residual-rank", configs=configs)
    assert result.verdict == "holds"
    assert "137 / 137" in result.outcome.note
    grouped = get_claim("levine.residual-rank").theory.replaced({
        "predicted_residual_rank": lambda config, rank: grouped_bound(
            config[0], config[1], config[5], config[3] - config[5])})
    assert run_claim("levine.residual-rank", configs=configs, theory=grouped).verdict == "fails"


def test_a_broken_top_part_fails():
    broken = get_claim("levine.residual-rank").theory.replaced(
        {"confirm_residual_top_part": lambda *network: False})
    assert run_claim("levine.residual-rank", configs=[[2, 2, 1, 2, 1, 1]],
                     theory=broken).verdict == "fails"


def test_configs_must_carry_the_residual():
    with pytest.raises(ValueError, match="ρ = 1"):
        run_claim("levine.residual-rank", configs=[[2, 2, 1, 4, 0, 2]])
