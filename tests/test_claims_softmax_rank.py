"""The depth threshold asked of softmax stacks: the growth is read above log₃ d only, the
oracle guards the method, and the verdict can go either way."""

import math

import pytest

from attndepth.claims import softmax_rank
from attndepth.claims.softmax_rank import growth_above_threshold
from attndepth.framework.running import run_claim


def test_the_growth_is_read_above_the_threshold_only():
    ranks = [2, 4, 8, 16]
    # log₃ 3 = 1: every depth from 1 on
    assert growth_above_threshold((1, 2, 3, 4), ranks, 3) == pytest.approx([math.log(2)] * 3)
    # log₃ 9 = 2: from L = 2 on; log₃ 4 ≈ 1.26 as well
    assert growth_above_threshold((1, 2, 3, 4), ranks, 9) == pytest.approx([math.log(2)] * 2)
    assert growth_above_threshold((1, 2, 3, 4), ranks, 4) == pytest.approx([math.log(2)] * 2)
    # a gap in the depths stops the consecutive growths
    assert growth_above_threshold((1, 2, 4), [2, 4, 16], 3) == pytest.approx([math.log(2)])


def test_the_claim_holds_when_the_growth_is_exponential(monkeypatch):
    # ranks doubling with every layer: the statement holds and the plateau is rejected
    monkeypatch.setattr(softmax_rank, "growth_above_threshold",
                        lambda depths, ranks, width, threshold: [math.log(2)] * 3)
    result = run_claim("levine.softmax-epsilon-rank")
    assert result.verdict == "holds", result.outcome.measured


def test_a_missed_oracle_makes_the_verdict_inconclusive(monkeypatch):
    monkeypatch.setattr(softmax_rank, "_oracle", lambda seed: ["d=2, L=2: 14 ≠ 15"])
    result = run_claim("levine.softmax-epsilon-rank")
    assert result.verdict == "inconclusive" and "ORACLE MISSED" in result.outcome.note
