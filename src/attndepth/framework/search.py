"""Counterexample search: a claim checked on its whole family, not on a hand-picked sample.

For a claim with a :class:`~attndepth.framework.families.Family`:

1. **Exhaustive phase.** Every member of the family's exhaustive part is run
   through the claim's verify function, as points of a sweep (observable
   ``claim``): in parallel on the local pool or dask, each result committed
   to the SQLite store as it arrives, so an interrupted search resumes where
   it stopped.
2. **Random phase.** Hypothesis draws members of the family that lie beyond
   the exhaustive part (at least one parameter at a value of ``beyond``): exactly
   the number of draws asked for, from the seed alone (no example database), no
   deadline, nothing shrunk, and within the search's time budget.

The report says how far the claim was checked ("n of n configurations,
exhaustive to ...; k drawn beyond") and gives every counterexample, smallest
first, with the command that reproduces it. Needs hypothesis (``pip install
-e ".[search]"``) for the random phase.
"""

from __future__ import annotations

import json
import math
import random
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from attndepth.environment import keep_hypothesis_files_in_cache
from attndepth.errors import (
    InvalidParameter,
    MissingExtra,
    UserCodeFailed,
    WorkerDied,
    describe_exception,
)
from attndepth.framework.families import Family, Member
from attndepth.framework.model import Claim
from attndepth.framework.progress import MemberProgress
from attndepth.framework.registry import all_claims, claim_source, get_claim, is_users, load_claims
from attndepth.framework.running import check_base_seed, evaluate
from attndepth.framework.verdicts import COUNTEREXAMPLE, Verdict, failing_for
from attndepth.simulations.sweeps.observables import Parameter, register_observable
from attndepth.simulations.sweeps.store import open_store
from attndepth.simulations.sweeps.sweep import run_sweep
from attndepth.simulations.sweeps.sweep_spec import SweepPoint, SweepSpec
from attndepth.validation import check_int, check_seconds

#: Name of the sweep observable that runs one family member of one claim.
OBSERVABLE = "claim"
#: Hypothesis draws per claim by default.
DEFAULT_DRAWS = 20


def evaluate_member(seed: int, claim: str, member: str, source: str = "") -> dict[str, Any]:
    """Run claim ``claim`` on one family member (JSON); the observable behind the search.

    The member is decided as ``attndepth verify`` decides a preset: a stochastic claim
    on its sample of seeds based at ``seed``, with its rivals. ``source`` is the file
    or module a user's claim comes from: a worker that does not know the claim (a dask
    worker, started afresh) loads it from there.
    """
    if source and claim not in all_claims():
        load_claims(source)
    found = get_claim(claim)
    if found.family is None:
        raise InvalidParameter(f"claim {claim!r} declares no family")
    return _decide(found, seed, json.loads(member))


def _decide(found: Claim, seed: int, member: Member) -> dict[str, Any]:
    """A member's verdict, prediction, measurement and note. A member whose measurement
    needs an optional extra that is not installed (a real architecture without torch)
    is not run: ``inconclusive``, the note saying what to install."""
    assert found.family is not None
    try:
        outcome, _, _ = evaluate(found, seed, found.family.kwargs(member))
    except MissingExtra as error:
        return {"verdict": Verdict.INCONCLUSIVE, "predicted": "", "measured": "(not run)",
                "note": str(error).splitlines()[0]}
    return {"verdict": outcome.verdict, "predicted": outcome.predicted,
            "measured": outcome.measured, "note": outcome.note}


register_observable(OBSERVABLE, evaluate_member,
                    {"claim": Parameter(str), "member": Parameter(str),
                     "source": Parameter(str, "")})


@dataclass(frozen=True)
class MemberResult:
    """One family member's verdict."""

    member: Member
    verdict: Verdict
    measured: str
    note: str
    phase: str  # "exhaustive" or "drawn"

    def __post_init__(self) -> None:  # the word a store row holds, as a verdict
        object.__setattr__(self, "verdict", Verdict.of(self.verdict))


@dataclass(frozen=True)
class SearchReport:
    """What a search found for one claim."""

    claim: str
    family: str
    exhaustive_total: int
    exhaustive_checked: int
    drawn: int
    drawn_beyond: int
    counterexamples: list[MemberResult]
    inconclusive: int
    errors: list[MemberResult]
    seed: int
    seconds: float
    conjecture: bool = False
    commands: list[str] = field(default_factory=list)
    #: Decided members where a named rival agrees with the measurement too.
    indistinguishable: int = 0
    #: The claim's kind: "theory" or "consistency" (which says consistent/inconsistent).
    kind: str = "theory"
    #: Why the draws stopped before their number ("" when they did not).
    stopped: str = ""

    @property
    def verdict(self) -> Verdict:
        """``fails`` with a counterexample; ``error`` if a member raised; ``inconclusive``
        if no member decided; ``indistinguishable`` if every decided member is (a rival
        agrees everywhere too); otherwise ``holds`` (the summary says how many decided)."""
        if self.counterexamples:
            return failing_for(self.kind)
        if self.errors:
            return Verdict.ERROR
        if self.decided == 0:
            return Verdict.INCONCLUSIVE
        if self.kind == "consistency":
            return Verdict.CONSISTENT
        if self.indistinguishable == self.decided:  # agrees everywhere, but so does a rival
            return Verdict.INDISTINGUISHABLE
        return Verdict.HOLDS

    @property
    def decided(self) -> int:
        """Members whose verdict decided the claim: neither inconclusive nor raised."""
        return (self.exhaustive_checked + self.drawn - self.inconclusive
                - len(self.errors))

    def summary(self) -> str:
        """One sentence: how far the claim was checked and what was found."""
        text = (f"{self.exhaustive_checked} of {self.exhaustive_total} configurations, "
                f"exhaustive to the stated family; {self.drawn_beyond} hypothesis draws "
                f"beyond it; "
                f"{len(self.counterexamples)} counterexamples, {self.inconclusive} "
                f"inconclusive, {self.decided} decided")
        if self.indistinguishable:
            text += f" ({self.indistinguishable} of them indistinguishable from a rival)"
        if self.errors:
            text += f", {len(self.errors)} raised (not decided)"
        if self.stopped:
            text += f"; the draws stopped early: {self.stopped}"
        if self.counterexamples:
            smallest = self.counterexamples[0]
            text += (f". Smallest counterexample: {_member_text(smallest.member)} — "
                     f"{smallest.measured}; reproduce: {self.commands[0]}")
        return text

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "verdict": self.verdict, "summary": self.summary()}


def _member_text(member: Member) -> str:
    return ", ".join(f"{k}={v}" for k, v in member.items())


def _key(member: Member) -> str:
    return json.dumps(member, sort_keys=True)


def reproduce_command(claim_id: str, member: Member, seed: int) -> str:
    """The command line that runs one member again (``attndepth verify --member``).

    A claim defined outside attndepth gets the ``--claims`` option that loads it; one
    defined in this session (a notebook, ``__main__``) has no file to load, and gets the
    Python call that runs the member instead.
    """
    module_name = get_claim(claim_id).module
    if module_name == "__main__":
        return (f"run_claim({claim_id!r}, seed={seed}, "
                f"**{json.dumps(member, sort_keys=True)})  # defined in this session")
    source = ""
    if not module_name.startswith("attndepth."):
        module = sys.modules.get(module_name)
        path = getattr(module, "__file__", None)
        from_file = module_name.startswith("attndepth_user_claims_") and path
        source = f" --claims {path if from_file else module_name}"
    return (f"attndepth verify{source} --claim {claim_id} --seed {seed} "
            f"--member '{json.dumps(member, sort_keys=True)}'")


def _family(found: Claim) -> Family:
    """The family a claim is searched on (one clear error for a claim without one)."""
    if found.family is None:
        raise InvalidParameter(f"claim {found.id!r} declares no family to search")
    return found.family


def _exhaustive(found: Claim, seed: int, store: Path, scheduler: str,
                workers: int | None, progress: bool | None) -> dict[str, MemberResult]:
    members = list(_family(found).exhaustive())
    # a user's claim carries its source, so that a fresh worker can load it (attndepth's
    # own claims do not: their points keep the hashes of earlier stores)
    source = claim_source(found.id)
    where = {"source": source} if source else {}
    points = [SweepPoint(OBSERVABLE, {"claim": found.id, "member": _key(m), **where}, seed,
                         module=__name__) for m in members]
    wanted = {point.hash: member for point, member in zip(points, members, strict=True)}
    if points:
        with MemberProgress(found.id, len(points), "exhaustive", progress) as shown:
            def report(result: Any) -> None:
                verdict = Verdict.ERROR if result.error else result.metrics["verdict"]
                shown.done(wanted[result.hash], verdict)
            try:
                run_sweep(SweepSpec(OBSERVABLE, tuple(points)), store, scheduler, workers,
                          progress=False, on_result=report)
            except WorkerDied:
                if not is_users(found):
                    raise
                # a user's verify function that ends its process (os._exit) or exhausts
                # its memory: the user's code, named; the decided members stay in the store
                raise UserCodeFailed(f"claim {found.id!r}: a worker process running it died "
                                     f"(os._exit, a crash or out of memory); the members "
                                     f"decided are kept in {store}") from None
    results: dict[str, MemberResult] = {}
    with open_store(store) as opened:
        for row in opened.rows(OBSERVABLE):
            member = wanted.get(row["hash"])
            if member is None:
                continue
            if row["status"] == "ok":
                metrics = row["metrics"]
                results[_key(member)] = MemberResult(member, metrics["verdict"],
                                                     metrics["measured"], metrics["note"],
                                                     "exhaustive")
            else:
                message = (row["error"] or "").splitlines()[0] if row["error"] else ""
                results[_key(member)] = MemberResult(member, Verdict.ERROR, "(raised)", message,
                                                     "exhaustive")
    return results


class _OutOfTime(Exception):
    """The search's time budget ran out (raised inside hypothesis's loop, caught below)."""


def _random_phase(found: Claim, seed: int, draws: int, known: dict[str, MemberResult],
                  progress: bool | None = None, deadline: float = math.inf,
                  ) -> tuple[list[MemberResult], int, bool]:
    """``draws`` hypothesis draws over the whole family, each member decided once.

    Nothing is shrunk: hypothesis only generates (its shrinker would run the claim on
    members without bound, and the exhaustive part has already checked the smallest
    members; the report's smallest counterexample is the smallest of every member
    decided). No example database either: the draws follow from ``seed`` alone.
    Hypothesis's own warnings are not shown.

    Returns
    -------
    (results, draws beyond the exhaustive part, whether the time budget ran out)
    """
    keep_hypothesis_files_in_cache()
    try:
        from hypothesis import HealthCheck, Phase, find, settings
        from hypothesis import strategies as st
        from hypothesis.errors import HypothesisWarning, NoSuchExample
    except ImportError:
        raise InvalidParameter("the random phase of --search needs hypothesis: "
                               "pip install -e '.[search]' (or --draws 0)") from None
    family = _family(found)
    exhaustive = {_key(m) for m in family.exhaustive()}
    if not family.beyond:
        return [], 0, False  # nothing lies beyond the exhaustive part
    strategy: Any = st.fixed_dictionaries(
        {name: st.sampled_from(family.values(name)) for name in family.parameters}
    ).filter(lambda m: _key(m) not in exhaustive and family.contains(m))
    seen: dict[str, MemberResult] = {}

    def fails(member: Member) -> bool:
        member = {name: member[name] for name in family.parameters}  # the family's order
        key = _key(member)
        if key not in seen and time.perf_counter() > deadline:
            raise _OutOfTime
        if key not in seen:
            if key in known:
                seen[key] = known[key]
            else:
                try:
                    decided = _decide(found, seed, member)
                    seen[key] = MemberResult(dict(member), decided["verdict"],
                                             decided["measured"], decided["note"], "drawn")
                except Exception as error:  # recorded as an error, never fatal
                    seen[key] = MemberResult(dict(member), Verdict.ERROR, "(raised)",
                                             str(error).splitlines()[0]
                                             if isinstance(error, UserCodeFailed)
                                             else describe_exception(error), "drawn")
                shown.done(member, seen[key].verdict)
        return False  # never "found": hypothesis generates all its draws, shrinks nothing

    config = settings(max_examples=draws, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    shown = MemberProgress(found.id, draws, "drawn", progress)
    out_of_time = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HypothesisWarning)
            find(strategy, fails, settings=config, random=random.Random(seed))
    except NoSuchExample:
        pass
    except _OutOfTime:
        out_of_time = True
    finally:
        shown.close()
    beyond = sum(1 for key in seen if key not in exhaustive)
    return list(seen.values()), beyond, out_of_time


def search_claim(claim_id: str, seed: int = 0, draws: int = DEFAULT_DRAWS,
                 store: str | Path | None = None, scheduler: str = "local",
                 workers: int | None = None, progress: bool | None = False,
                 max_seconds: float = math.inf) -> SearchReport:
    """Search claim ``claim_id``'s family for a counterexample.

    Parameters
    ----------
    claim_id : str
        A registered claim that declares a family.
    seed : int
        Seed of every verify call and of the hypothesis draws.
    draws : int
        Hypothesis draws after the exhaustive phase (0: none).
    store : str or Path, optional
        SQLite store of the exhaustive phase (resumed if it exists); default:
        a temporary file, removed afterwards.
    scheduler, workers
        As for :func:`attndepth.simulations.sweeps.sweep.run_sweep`.
    progress : bool or None
        False (default): silent; None: a bar on a terminal, one line per
        finished member on stderr otherwise (:mod:`attndepth.framework.progress`).
    max_seconds : float
        A time budget for the search: no draw starts after it (the exhaustive part,
        kept in its store, always finishes). ``math.inf``: none.

    Returns
    -------
    SearchReport
    """
    draws = check_int("draws", draws, minimum=0)
    max_seconds = check_seconds("max_seconds", max_seconds)
    check_base_seed(seed)
    found = get_claim(claim_id)
    if found.family is None:
        raise InvalidParameter(f"claim {claim_id!r} declares no family to search")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(store) if store is not None else Path(scratch) / "search.sqlite"
        results = _exhaustive(found, seed, path, scheduler, workers, progress)
    drawn, beyond, out_of_time = (
        _random_phase(found, seed, draws, results, progress, start + max_seconds) if draws
        else ([], 0, False))
    everything = {**results, **{_key(r.member): r for r in drawn}}
    ordered = sorted(everything.values(), key=lambda r: _family(found).order(r.member))
    counterexamples = [r for r in ordered if r.verdict in COUNTEREXAMPLE]
    return SearchReport(
        claim=claim_id, family=found.family.describe(),
        exhaustive_total=found.family.size(), exhaustive_checked=len(results),
        drawn=len([r for r in drawn if r.phase == "drawn"]), drawn_beyond=beyond,
        counterexamples=counterexamples,
        inconclusive=sum(r.verdict == Verdict.INCONCLUSIVE for r in everything.values()),
        indistinguishable=sum(r.verdict == Verdict.INDISTINGUISHABLE
                              for r in everything.values()),
        errors=[r for r in ordered if r.verdict == Verdict.ERROR], seed=seed,
        seconds=time.perf_counter() - start, conjecture=found.conjecture, kind=found.kind,
        commands=[reproduce_command(claim_id, r.member, seed) for r in counterexamples],
        stopped=(f"the time budget of {max_seconds:g} s ran out" if out_of_time else ""))


def counterexample_rows(reports: list[SearchReport]) -> list[dict[str, Any]]:
    """Counterexamples as rows of data (one dict each) for CSV or JSON export."""
    return [{"claim": report.claim, "seed": report.seed, **member.member,
             "verdict": member.verdict, "measured": member.measured, "phase": member.phase,
             "command": command}
            for report in reports
            for member, command in zip(report.counterexamples, report.commands, strict=True)]
