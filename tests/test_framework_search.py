"""The counterexample search: it finds the refuted conjecture's smallest counterexample,
reports how far a true claim was checked, resumes from its store, exports rows."""

import json

import pytest

from attndepth.claims.separation_rank import exact_rank
from attndepth.framework import registry as claims
from attndepth.framework.families import Family
from attndepth.framework.model import Claim, Outcome, verdict_from
from attndepth.framework.search import counterexample_rows, search_claim
from attndepth.theory.separation_rank import separation_rank_bounds


def verify_old_conjecture(seed: int, width: int, depth: int, tokens: int,
                          p_size: int) -> Outcome:
    """The first form of levine.bound-tightness, on one configuration."""
    rank = exact_rank((width, depth, 1, tokens, 0, p_size), seed).rank
    bound = separation_rank_bounds(width, depth, p_size, tokens - p_size).bigraded
    return Outcome(str(bound), f"rank {rank}, bound {bound}", verdict_from(rank == bound))


OLD_FAMILY = Family(
    parameters={"width": (1, 2, 3), "depth": (1, 2, 3), "tokens": (2, 3), "p_size": (1, 2)},
    constraints=(("|P| < N", lambda m: m["p_size"] < m["tokens"]),
                 ("|P| = 1 or |P| ≥ d", lambda m: m["p_size"] == 1
                  or m["p_size"] >= m["width"])))


@pytest.fixture
def old_conjecture(monkeypatch):
    found = Claim("test.old-tightness", "s", "rank = bound (d)", "exact", verify_old_conjecture,
                  {"quick": {}, "full": {}}, family=OLD_FAMILY, conjecture=True)
    monkeypatch.setitem(claims._REGISTRY, found.id, found)
    return found.id


def test_search_refutes_the_old_conjecture_with_its_smallest_counterexample(old_conjecture):
    report = search_claim(old_conjecture, draws=0, workers=1)
    assert report.verdict == "fails"
    assert report.exhaustive_checked == report.exhaustive_total == OLD_FAMILY.size()
    smallest = report.counterexamples[0]
    assert smallest.member == {"width": 2, "depth": 3, "tokens": 3, "p_size": 2}
    assert smallest.measured == "rank 137, bound 140"
    assert "--member" in report.commands[0] and "fails" in report.verdict
    rows = counterexample_rows([report])
    assert rows[0]["claim"] == old_conjecture and rows[0]["width"] == 2


@pytest.mark.slow
def test_search_of_a_claim_that_holds_says_how_far(tmp_path):
    report = search_claim("levine.partition-symmetry", draws=3, store=tmp_path / "s.sqlite",
                          workers=1)
    assert report.verdict == "consistent" and not report.counterexamples  # a proved symmetry
    assert report.exhaustive_checked == report.exhaustive_total > 10
    assert report.drawn_beyond >= 1
    assert f"{report.exhaustive_total} of {report.exhaustive_total} configurations" in \
        report.summary()
    again = search_claim("levine.partition-symmetry", draws=0, store=tmp_path / "s.sqlite",
                         workers=1)  # resumed from the store: nothing recomputed
    assert again.exhaustive_checked == report.exhaustive_checked


def test_member_that_raises_is_an_error_not_a_crash(monkeypatch):
    def verify(seed, a):
        if a == 2:
            raise ArithmeticError("boom")
        return Outcome("", "", "holds")

    found = Claim("test.raises", "s", "s", "t", verify, {"quick": {}, "full": {}},
                  family=Family(parameters={"a": (1, 2, 3)}))
    monkeypatch.setitem(claims._REGISTRY, found.id, found)
    report = search_claim(found.id, draws=0, workers=1)
    assert report.verdict == "error"
    assert [e.member for e in report.errors] == [{"a": 2}]


def test_a_member_needing_an_extra_that_is_absent_is_not_run_not_an_error(monkeypatch):
    # a real architecture on a machine without torch: in the exhaustive part and drawn
    from attndepth.errors import MissingExtra

    def verify(seed, a):
        if a in (2, 5):
            raise MissingExtra("this member needs torch: pip install 'attndepth[torch]'")
        return Outcome("", "", "holds")

    found = Claim("test.needs-extra", "s", "s", "t", verify, {"quick": {}, "full": {}},
                  family=Family(parameters={"a": (1, 2)}, beyond={"a": (5,)}))
    monkeypatch.setitem(claims._REGISTRY, found.id, found)
    report = search_claim(found.id, draws=5, workers=1)
    assert report.verdict == "holds" and not report.errors and report.inconclusive == 2
    assert report.drawn_beyond == 1


def test_an_inconsistent_member_of_a_consistency_check_is_a_counterexample(monkeypatch):
    def verify(seed, a):
        return Outcome("", "", "fails" if a == 3 else "holds")

    found = Claim("test.proof", "s", "s", "t", verify, {"quick": {}, "full": {}},
                  family=Family(parameters={"a": (1, 2, 3)}), kind="consistency")
    monkeypatch.setitem(claims._REGISTRY, found.id, found)
    report = search_claim(found.id, draws=0, workers=1)
    assert report.verdict == "inconsistent"
    assert [c.member for c in report.counterexamples] == [{"a": 3}]
    found = Claim("test.proof", "s", "s", "t", lambda seed, a: Outcome("", "", "holds"),
                  {"quick": {}, "full": {}}, family=Family(parameters={"a": (1, 2)}),
                  kind="consistency")
    monkeypatch.setitem(claims._REGISTRY, found.id, found)
    assert search_claim(found.id, draws=0, workers=1).verdict == "consistent"


def test_bad_search_arguments():
    with pytest.raises(ValueError, match="draws"):
        search_claim("levine.degree", draws=-1)
    with pytest.raises(ValueError, match="unknown claim"):
        search_claim("nope")


def test_cli_search_and_member_reproduction(old_conjecture, tmp_path, capsys):
    from attndepth.cli.main import main

    out = tmp_path / "ce.json"
    code = main(["verify", "--search", "--claim", old_conjecture, "--draws", "0",
                 "--workers", "1", "--counterexamples", str(out)])
    assert code == 1
    assert "FAILS" in capsys.readouterr().out
    rows = json.loads(out.read_text())
    member = {k: rows[0][k] for k in ("width", "depth", "tokens", "p_size")}
    code = main(["verify", "--claim", old_conjecture, "--member", json.dumps(member),
                 "--format", "json"])
    assert code == 1
    assert json.loads(capsys.readouterr().out)["claims"][0]["verdict"] == "fails"
    assert main(["verify", "--claim", old_conjecture, "--member", "{\"width\": 2}"]) == 2
    assert main(["verify", "--search", "--counterexamples", "x.txt"]) == 2


def test_a_member_outside_the_family_runs_and_says_so(capsys):
    from attndepth.cli.main import main

    member = {"width": 16, "depth": 1, "heads": 1, "tokens": 2}  # widths of the family: 1..8
    assert main(["verify", "--claim", "levine.degree", "--member", json.dumps(member),
                 "--format", "json"]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out)["claims"][0]["in_family"] is False
    assert "outside the family of levine.degree" in printed.err


def test_a_search_says_each_finished_member_on_a_log_and_counts_errors_apart(
        monkeypatch, capsys):
    from attndepth import Family, claim
    from attndepth.framework import registry
    from attndepth.framework.search import search_claim

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))

    @claim("mine.always-raises", source="a broken claim", statement="raises", tolerance="-",
           presets={"quick": {"n": 1}, "full": {"n": 1}},
           family=Family(parameters={"n": (1, 2, 3, 4)}))
    def verify(seed, n):
        raise ValueError("broken")

    report = search_claim("mine.always-raises", draws=0, workers=1, progress=None)
    err = capsys.readouterr().err
    assert err.count("mine.always-raises  exhaustive  n=") == 4 and "error" in err
    assert report.verdict == "error" and report.decided == 0
    assert "0 decided, 4 raised (not decided)" in report.summary()


def test_a_search_where_a_rival_agrees_everywhere_is_indistinguishable(monkeypatch):
    from attndepth import Family, Rival, Theory, claim, verdict_from
    from attndepth.framework import registry
    from attndepth.framework.model import Outcome
    from attndepth.framework.search import search_claim

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))

    @claim("mine.agreeable", source="-", statement="n ≥ 0", tolerance="exact",
           presets={"quick": {"n": 1}, "full": {"n": 1}},
           family=Family(parameters={"n": (1, 2, 3)}), theory=Theory(LOWEST=0),
           rivals=(Rival("n ≥ −1", "a weaker statement", replace={"LOWEST": -1}),))
    def verify(seed, theory, n):
        return Outcome(f"n ≥ {theory.LOWEST}", f"n = {n}", verdict_from(n >= theory.LOWEST))

    report = search_claim("mine.agreeable", draws=0, workers=1)
    assert report.verdict == "indistinguishable" and report.indistinguishable == 3
    assert "3 of them indistinguishable from a rival" in report.summary()



def test_a_users_claim_calling_os_exit_in_a_worker_is_one_line_naming_it(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "exits.py"
    path.write_text(
        "import os\nfrom attndepth import Family, Outcome, claim\n\n"
        "@claim('mine.exits', source='s', statement='s', tolerance='t',\n"
        "       presets={'quick': {'x': 1}, 'full': {'x': 1}},\n"
        "       family=Family(parameters={'x': (1, 2, 3)}))\n"
        "def verify(seed, x):\n    os._exit(0)\n")
    run = subprocess.run([sys.executable, "-m", "attndepth.cli.main", "verify", "--claims",
                          str(path), "--search", "--draws", "0", "--workers", "2", "--store",
                          str(tmp_path / "s.sqlite")], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    [line] = [line for line in run.stderr.splitlines() if line.startswith("attndepth:")]
    assert "claim 'mine.exits'" in line and "os._exit(0)" in line
    assert "Traceback" not in run.stderr


@pytest.mark.slow
def test_a_users_claim_reaches_dask_workers(tmp_path, capsys, monkeypatch):
    """Dask workers start afresh: they load the user's claims from the point's source."""
    from attndepth.cli.main import main
    from attndepth.framework import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))
    path = tmp_path / "below.py"
    path.write_text(
        "from attndepth import Family, Outcome, claim, verdict_from\n\n"
        "@claim('mine.below-three', source='s', statement='s', tolerance='t',\n"
        "       presets={'quick': {'x': 1}, 'full': {'x': 1}},\n"
        "       family=Family(parameters={'x': (1, 2, 3)}))\n"
        "def verify(seed, x):\n    return Outcome('x<3', f'x={x}', verdict_from(x < 3))\n")
    assert main(["verify", "--claims", str(path), "--search", "--draws", "0", "--scheduler",
                 "dask-local", "--workers", "2", "--store", str(tmp_path / "s.sqlite")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAILS") and "--member '{\"x\": 3}'" in out


def _always_wrong(seed: int, n: int) -> Outcome:
    return Outcome("n < 0", f"n = {n}", verdict_from(n < 0))


@pytest.fixture
def always_wrong(monkeypatch):
    """Every member is a counterexample: hypothesis's shrinker would run without end."""
    family = Family(parameters={"n": (0, 1)}, beyond={"n": tuple(range(2, 400))})
    found = Claim("test.always-wrong", "s", "n < 0", "exact", _always_wrong,
                  {"quick": {"n": 0}, "full": {"n": 0}}, family=family)
    monkeypatch.setitem(claims._REGISTRY, found.id, found)
    return found.id


def test_draws_mean_draws_and_nothing_is_shrunk_or_warned(always_wrong, recwarn):
    calls = []
    original = claims._REGISTRY[always_wrong].verify

    def counted(seed, n):
        calls.append(n)
        return original(seed, n)

    found = claims._REGISTRY[always_wrong]
    claims._REGISTRY[always_wrong] = Claim(found.id, found.source, found.statement,
                                           found.tolerance, counted, found.presets,
                                           family=found.family)
    report = search_claim(always_wrong, draws=7, workers=1)
    drawn = [n for n in calls if n >= 2]
    assert len(drawn) == len(set(drawn)) <= 7 and report.drawn_beyond == len(drawn) >= 5
    assert report.counterexamples[0].member == {"n": 0}  # the smallest of every member
    assert not [w for w in recwarn if "hypothesis" in type(w.message).__module__]
    # the same seed draws the same members
    again = search_claim(always_wrong, draws=7, workers=1)
    assert [r.member for r in again.counterexamples] == [r.member for r in
                                                          report.counterexamples]


def test_a_search_keeps_its_time_budget(always_wrong):
    report = search_claim(always_wrong, draws=50, workers=1, max_seconds=1e-9)
    assert report.exhaustive_checked == 2 and report.drawn_beyond == 0  # exhaustive finishes
    assert "the time budget of 1e-09 s ran out" in report.summary()
    with pytest.raises(ValueError, match="max_seconds must be a number of seconds > 0"):
        search_claim(always_wrong, max_seconds=0)
