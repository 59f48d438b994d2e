"""A claim's verdict is its domain's: the shipped record, the rule, recording, the reports."""

import json

import pytest

from attndepth.errors import InvalidParameter
from attndepth.framework import registry as claims
from attndepth.framework.domain import (
    FOUND_BY,
    RECORD_VARIABLE,
    SHIPPED_RECORD,
    KnownFailure,
    known_domain,
    read_record,
    record_member,
    record_search,
)
from attndepth.framework.families import Family
from attndepth.framework.model import Claim, Outcome, verdict_from
from attndepth.framework.registry import get_claim
from attndepth.framework.report import render
from attndepth.framework.running import run_claim
from attndepth.framework.search import reproduce_command
from attndepth.framework.verdicts import VERDICTS, Verdict, domain_verdict, failing_for

SHIPPED = read_record(SHIPPED_RECORD)


def _below(seed: int, n: int) -> Outcome:
    return Outcome("n < 3", f"n = {n}", verdict_from(n < 3), values={"n": n})


def _failure(claim_id: str, n: int, found_by: str = "member") -> KnownFailure:
    return KnownFailure.now(claim_id, {"n": n}, "fails", f"n = {n}", 0,
                            reproduce_command(claim_id, {"n": n}, 0), found_by)


@pytest.fixture
def below_three(monkeypatch, tmp_path):
    """A claim that holds at its preset (n = 0) and fails at n = 3 of its family, with an
    empty record of one's own in ``$ATTNDEPTH_DOMAIN_RECORD``."""
    found = Claim("test.below-three", "s", "n < 3", "exact", _below,
                  {"quick": {"n": 0}, "full": {"n": 0}},
                  family=Family(parameters={"n": (0, 1, 2, 3)}))
    monkeypatch.setitem(claims._REGISTRY, found.id, found)
    record = tmp_path / "domain.json"
    monkeypatch.setenv(RECORD_VARIABLE, str(record))
    record_member(record, found.id, {"n": 1}, None)  # creates it: no failure
    return found.id, record


@pytest.mark.parametrize("claim_id", sorted(SHIPPED))
def test_every_shipped_failure_lies_in_its_claims_family_with_its_command(claim_id):
    found = get_claim(claim_id)
    entries = SHIPPED[claim_id]["failures"]
    assert found.family is not None
    for entry in entries:
        assert found.family.includes(entry["member"]) is True, entry["member"]
        assert entry["verdict"] == failing_for(found.kind)
        assert entry["command"] == reproduce_command(claim_id, entry["member"], entry["seed"])
        assert entry["found_by"] in FOUND_BY and entry["version"] and entry["date"]
    assert len(known_domain(claim_id, found.family).failures) == len(entries)


def test_the_shipped_record_holds_the_failures_the_audit_named():
    """The members #45 reported failing inside their families (d = 8 for the post-LN rate,
    s = 1.5 and d = 16 for the spectral gap, BERT for escalation)."""
    members = {claim_id: [entry["member"] for entry in entry_set["failures"]]
               for claim_id, entry_set in SHIPPED.items()}
    assert {"architecture": "attndepth", "width": 8, "tokens": 16} in \
        members["yuzhang.linear-rate-postln"]
    assert {"scale": 1.5, "width": 16} in members["naderi.spectral-gap"]
    assert any(m["architecture"] == "bert" for m in members["yuzhang.escalation"])


@pytest.mark.parametrize("kind", ["theory", "consistency"])
@pytest.mark.parametrize("preset", VERDICTS)
def test_the_rule_one_failing_member_fails_the_claim_else_the_preset_decides(preset, kind):
    assert domain_verdict(preset, False, kind) == preset
    expected = Verdict.ERROR if preset == Verdict.ERROR else failing_for(kind)
    assert domain_verdict(preset, True, kind) == expected


def test_a_recorded_failure_makes_the_claim_fail_and_every_report_names_it(below_three):
    claim_id, record = below_three
    assert run_claim(claim_id).verdict == "holds"  # nothing recorded fails yet
    assert record_member(record, claim_id, {"n": 3}, _failure(claim_id, 3)) is True
    result = run_claim(claim_id)
    assert (result.verdict, result.preset_verdict) == ("fails", "holds")
    assert [f.member for f in result.domain.failures] == [{"n": 3}]
    document = json.loads(render([result], "json", "quick", 0))["claims"][0]
    assert (document["verdict"], document["preset_verdict"]) == ("fails", "holds")
    assert document["domain"]["failing"][0]["member"] == {"n": 3}
    assert document["domain"]["failing"][0]["command"] == reproduce_command(claim_id,
                                                                            {"n": 3}, 0)
    table = render([result], "table", "quick", 0)
    assert table.startswith("FAILS") and "holds at its preset" in table
    assert "n=3: fails" in table and "0 holds, 1 fails" in table
    for fmt in ("markdown", "latex"):
        assert "fails in its domain" in render([result], fmt, "quick", 0)
    # a member that no longer fails leaves the record
    assert record_member(record, claim_id, {"n": 3}, None) is False
    assert run_claim(claim_id).verdict == "holds"


def test_a_run_at_other_parameters_or_with_another_theory_is_its_own(below_three):
    claim_id, record = below_three
    record_member(record, claim_id, {"n": 3}, _failure(claim_id, 3))
    assert run_claim(claim_id, n=1).domain is None
    assert run_claim(claim_id, n=1).verdict == "holds"
    assert run_claim(claim_id, theory=get_claim(claim_id).theory).domain is None


def test_a_search_replaces_its_earlier_findings_and_keeps_its_summary(below_three):
    claim_id, record = below_three
    record_member(record, claim_id, {"n": 3}, _failure(claim_id, 3))

    def search(counterexamples):
        return record_search(record, claim_id,
                             [_failure(claim_id, n, "search") for n in counterexamples],
                             {"summary": "4 of 4 configurations", "seed": 0,
                              "verdict": "fails" if counterexamples else "holds"})

    assert search([2, 3]) == 2
    entry = read_record(record)[claim_id]
    assert sorted(f["member"]["n"] for f in entry["failures"]) == [2, 3]
    assert "4 of 4 configurations" in entry["search"]["summary"]
    search([])  # a later search finds none: its own findings go
    assert read_record(record)[claim_id]["failures"] == []
    assert run_claim(claim_id).domain.searched["verdict"] == "holds"


def test_an_entry_outside_the_current_family_is_not_applied(below_three, monkeypatch):
    claim_id, record = below_three
    record_member(record, claim_id, {"n": 3}, _failure(claim_id, 3))
    narrowed = Claim(claim_id, "s", "n < 3", "exact", _below,
                     {"quick": {"n": 0}, "full": {"n": 0}},
                     family=Family(parameters={"n": (0, 1, 2)}))
    monkeypatch.setitem(claims._REGISTRY, claim_id, narrowed)
    assert run_claim(claim_id).verdict == "holds"


@pytest.mark.parametrize("text, why", [
    ("not json", "is not JSON"),
    ('{"claims": {}}', "is not a domain record"),
    ('{"attndepth_domain_record": 1}', "expected the key 'claims'"),
    ('{"attndepth_domain_record": 1, "claims": {"x": {"failures": [{"member": 1}]}}}',
     r"expected an object at \.claims\.x\.failures\[0\]\.member, found an integer"),
])
def test_a_bad_record_is_one_clear_error(tmp_path, monkeypatch, text, why):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(InvalidParameter, match=why):
        read_record(path)
    monkeypatch.setenv(RECORD_VARIABLE, str(path))
    with pytest.raises(ValueError, match=why):
        run_claim("levine.degree")
    monkeypatch.setenv(RECORD_VARIABLE, str(tmp_path / "missing.json"))
    with pytest.raises(ValueError, match="does not exist"):
        run_claim("levine.degree")


def test_cli_records_a_member_and_refuses_what_it_cannot_record(below_three, tmp_path,
                                                                  capsys):
    from attndepth.cli.main import main

    claim_id, record = below_three
    assert main(["verify", "--claim", claim_id, "--member", '{"n": 3}', "--record",
                 str(record)]) == 1
    assert "recorded" in capsys.readouterr().err
    assert main(["verify", "--claim", claim_id]) == 1  # the claim now fails in its domain
    assert "n=3: fails" in capsys.readouterr().out
    kept = record.read_bytes()
    for argv, why in [
            (["--claim", claim_id, "--record", str(record)], "needs --search or --member"),
            (["--claim", claim_id, "--member", '{"n": 9}', "--record", str(record)],
             "outside the family"),
            (["--claim", claim_id, "--member", '{"n": 3}', "--record",
              str(tmp_path / "notes.txt")], "left untouched")]:
        (tmp_path / "notes.txt").write_text("my notes\n")
        assert main(["verify", *argv]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and why in err, err
        assert (tmp_path / "notes.txt").read_text() == "my notes\n"
    assert record.read_bytes() == kept


def test_a_member_outside_the_family_gives_no_claim_verdict(below_three, capsys):
    from attndepth.cli.main import main

    claim_id, _ = below_three
    assert main(["verify", "--claim", claim_id, "--member", '{"n": 9}', "--format",
                 "json"]) == 0  # it fails there, which says nothing of the claim
    document = json.loads(capsys.readouterr().out)
    assert document["claims"][0]["verdict"] is None
    assert document["claims"][0]["preset_verdict"] == "fails"
    assert sum(document["summary"].values()) == 0


@pytest.mark.slow
@pytest.mark.parametrize("claim_id, member, seed", [
    (claim_id, entry["member"], entry["seed"])
    for claim_id, entry_set in sorted(SHIPPED.items()) for entry in entry_set["failures"]])
def test_every_shipped_failure_still_fails(claim_id, member, seed):
    """The record is evidence, not history: each member, run again at its recorded base
    seed, still fails (a real architecture's member needs the hf extra, as its claim does;
    CI installs it)."""
    found = get_claim(claim_id)
    if member.get("architecture", "attndepth") != "attndepth":
        pytest.importorskip("transformers", reason="a real architecture needs the hf extra")
    result = run_claim(claim_id, "quick", seed, **found.family.kwargs(member))
    assert result.verdict == failing_for(found.kind), result.outcome


def test_a_recorded_map_keeps_every_point_and_its_failing_members(below_three, tmp_path,
                                                                   capsys):
    from attndepth.cli.main import main

    claim_id, record = below_three
    assert main(["map", claim_id, "--grid", "n=0,1,3", "--value", "n", "--band=0,2",
                 "--no-fit", "--quiet", "--out", str(tmp_path / "maps"), "--record",
                 str(record)]) == 0
    assert "1 failing member(s)" in capsys.readouterr().err
    entry = read_record(record)[claim_id]
    assert entry["map"]["verdicts"] == {"holds": 2, "fails": 1}
    assert [p["verdict"] for p in entry["map"]["points"]] == ["holds", "holds", "fails"]
    [failure] = entry["failures"]
    assert failure["member"] == {"n": 3} and failure["found_by"] == "map"
    assert failure["command"] == reproduce_command(claim_id, {"n": 3}, 0)
    domain = known_domain(claim_id, get_claim(claim_id).family)
    assert domain.mapped["grid"] == {"n": [0, 1, 3]} and len(domain.failures) == 1
    assert main(["verify", "--claim", claim_id]) == 1  # the map's failure is the domain's
    assert "n=3: fails" in capsys.readouterr().out
    # a map without failures clears the earlier map's, not a member's
    record_member(record, claim_id, {"n": 2}, _failure(claim_id, 2))
    assert main(["map", claim_id, "--grid", "n=0,1", "--value", "n", "--no-fit", "--quiet",
                 "--out", str(tmp_path / "maps"), "--record", str(record)]) == 0
    assert [f["member"] for f in read_record(record)[claim_id]["failures"]] == [{"n": 2}]
