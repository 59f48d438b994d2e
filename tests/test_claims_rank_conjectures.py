"""Conjectures against the atlas: support, refutations smallest first, undecided rows,
classes the atlas lacks; the three conjectures' verdicts on the shipped atlas."""

import dataclasses

import pytest

from attndepth.claims import rank_conjectures
from attndepth.claims.rank_conjectures import (
    CONJECTURES,
    against_atlas,
    one_position_deficit,
    shipped_atlas,
    two_head_deficit,
)
from attndepth.framework.registry import all_claims
from attndepth.framework.running import run_claim
from attndepth.rank.atlas_table import Atlas


@pytest.fixture
def small_atlas(monkeypatch):
    base = shipped_atlas().find(3, 2, 1, 0, 1, 2)  # rank 39 of 41, saturated
    rows = [dataclasses.replace(base, p_size=1, q_size=2),
            dataclasses.replace(base, p_size=1, q_size=3, rank=41, certificate="proved"),
            dataclasses.replace(base, p_size=2, q_size=2, rank=30, certificate="lower-bound"),
            dataclasses.replace(base, width=4, p_size=1, q_size=2, rank=40)]
    table = Atlas(rows)
    monkeypatch.setattr(rank_conjectures, "shipped_atlas", lambda: table)
    return table


def test_against_atlas_sorts_support_refutations_and_the_undecided(small_atlas):
    found = against_atlas("atlas", lambda row: True, lambda row: row.rank == 41)
    assert [row.key[-2:] for row in found.support] == [(1, 3)]
    assert [row.key[-2:] for row in found.undecided] == [(2, 2)]  # a lower bound decides nothing
    assert [row.width for row in found.refutations] == [3, 4]  # by bound (d), then class
    assert found.agrees is False
    keys = [(3, 2, 1, 0, 1, 3), (3, 2, 1, 0, 1, 9), (7, 2, 1, 0, 1, 1)]
    some = against_atlas(keys, lambda row: True, lambda row: row.rank == 41)
    assert len(some.support) == 2 and some.absent == ((7, 2, 1, 0, 1, 1),)
    assert some.agrees is True
    assert against_atlas(keys[2:], lambda row: True, lambda row: True).agrees is None


def test_a_note_names_the_smallest_refutation_and_its_command(small_atlas):
    found = against_atlas("atlas", lambda row: True, lambda row: row.rank == 41)
    note = found.note(lambda row: "predicted 41")
    assert "Smallest refutation (least bound (d)) (3, 2, 1, 0, 1, 2): rank 39 (saturated)" \
        in note
    assert "reproduce: attndepth seprank --width 3 --depth 2 --tokens 3" in note
    assert "1 are lower bounds only" in note


def test_tight_family_against_the_atlas():
    result = run_claim("levine.bound-tightness", "quick")
    values = result.outcome.values
    assert result.verdict == "fails" and values["support"] > 400
    # d = 6, L = 2, |P| = 2, |Q| = 1: rank 275 of 280 (block a = 3 at 121 of 126)
    assert values["smallest_refutation"] == [6, 2, 1, 0, 2, 1]
    assert [2, 4, 1, 0, 1, 2] in values["refuting_classes"]  # the "d ≤ 2, |P| = 1" case
    assert all(rival.rejected for rival in result.rivals)


def test_two_head_deficit_against_the_atlas():
    result = run_claim("levine.two-head-deficit", "quick")
    assert result.verdict == "holds" and result.outcome.values["support"] >= 30
    assert [4, 2, 2, 0, 2, 2] in result.outcome.values["supporting_classes"]
    assert {row.width for row in shipped_atlas().where(heads=2, depth=2)} >= {2, 4, 6}
    assert all(rival.rejected for rival in result.rivals)
    assert two_head_deficit(3) == 6


def test_one_position_deficit_against_the_atlas():
    result = run_claim("levine.one-position-deficit", "quick")
    assert result.verdict == "holds" and all(rival.rejected for rival in result.rivals)
    # the out-of-sample width: stated from d = 3 … 7, then d = 8 was measured
    row = shipped_atlas().find(8, 2, 1, 0, 1, 2)
    assert row.decided and row.deficit == one_position_deficit(8) == 252


@pytest.mark.parametrize("claim_id", CONJECTURES)
def test_a_member_is_looked_up_and_an_absent_one_is_inconclusive(claim_id):
    found = all_claims()[claim_id]
    members = list(found.family.exhaustive())
    assert len(members) == found.family.size()
    inside = run_claim(claim_id, **found.family.kwargs(members[-1])).outcome.values
    assert inside["absent"] + inside["support"] + inside["refutations"] \
        + inside["undecided"] <= 1
    absent = run_claim(claim_id, keys=[(9, 2, 1, 0, 1, 2)])
    assert absent.verdict == "inconclusive" and absent.outcome.values["absent"] == 1


def test_the_tight_family_search_visits_every_plain_atlas_row():
    found = all_claims()["levine.bound-tightness"]
    members = {(m["width"], m["depth"], m["p_size"], m["q_size"])
               for m in found.family.exhaustive()}
    rows = shipped_atlas().where(heads=1, residual=0)
    assert {(r.width, r.depth, r.p_size, r.q_size) for r in rows} <= members


def test_malformed_keys_are_refused_in_one_line():
    with pytest.raises(ValueError, match='keys must be "atlas"'):
        run_claim("levine.two-head-deficit", keys=[(1, 2)])
