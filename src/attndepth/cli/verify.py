"""``attndepth verify``: run claims, explain them, search their families, or run one
member of a family."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attndepth.cli._parsing import (
    EXIT_BAD_INPUT,
    EXIT_CLAIM_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    examples,
    non_negative_int,
)
from attndepth.errors import InvalidParameter, shown
from attndepth.framework.progress import seed_progress

if TYPE_CHECKING:
    from attndepth.framework.model import Claim


def register(sub: Any) -> None:
    """Add ``verify`` to the subcommands."""
    from attndepth.framework.model import PRESETS
    from attndepth.framework.report import FORMATS

    verify = sub.add_parser(
        "verify", help="run every claim: theory against measurement",
        description="Run the registered claims and print one row per claim with its "
                    "prediction, measurement, tolerance and verdict. Exit code 1 when a "
                    "claim fails.",
        epilog=examples("attndepth verify",
                        "attndepth verify --claims my_claims.py --search",
                        "attndepth verify --search --claim levine.bound-tightness --store s.sqlite",
                        "attndepth verify --explain levine.threshold"))
    verify.add_argument("--preset", choices=PRESETS, default="quick",
                        help="parameter set: quick (seconds) or full (publication numbers)")
    verify.add_argument("--claim", action="append", metavar="ID",
                        help="run only this claim (repeatable; ids: --list); default: every claim "
                             "except those that train networks")
    verify.add_argument("--format", choices=FORMATS, default="table",
                        help="report format")
    verify.add_argument("--out", metavar="FILE", help="write the report to FILE instead of "
                        "standard output (an existing FILE is replaced only if it is an "
                        "earlier report; checked before any claim runs)")
    verify.add_argument("--seed", type=non_negative_int, default=0,
                        help="base seed (integer >= 0) of every random draw")
    verify.add_argument("--claims", action="append", metavar="PATH_OR_MODULE",
                        help="load your own claims from a .py file or an importable module "
                             "(repeatable); without --claim, run only those")
    verify.add_argument("--wrong-theory", action=argparse.BooleanOptionalAction, default=None,
                        help="also run each claim with its wrong theory in place and exit 1 "
                             "when that does not fail (default: on for the claims of "
                             "--claims, off for the built-in ones)")
    verify.add_argument("--theory-check", action=argparse.BooleanOptionalAction, default=None,
                        help="before measuring, perturb each theory entry of the claims "
                             "run (x1.1 and /1.1, one seed of the preset) and refuse a claim "
                             "with an entry that changes no judged number (default: on for "
                             "the claims of --claims, off for attndepth's own)")
    verify.add_argument("--jobs", type=non_negative_int, default=None, metavar="N",
                        help="claims run across N worker processes, each with its share of "
                             "the cores for BLAS (1: in this process). Verdicts are the same "
                             "either way; a number may differ in its last bit where BLAS sums "
                             "with another thread count; default: the cores available")
    verify.add_argument("--list", action="store_true",
                        help="list the claims with their one-sentence statements and exit")
    verify.add_argument("--search", action="store_true",
                        help="check each claim on its whole family: every member of the "
                             "exhaustive part, then hypothesis draws beyond it; report how far "
                             "and the smallest counterexample")
    verify.add_argument("--draws", type=non_negative_int, default=20,
                        help="with --search: hypothesis draws per claim after the exhaustive "
                             "part (integer >= 0)")
    verify.add_argument("--max-seconds", type=float, default=None, metavar="S",
                        help="with --search: a time budget for each claim's search; no "
                             "draw starts after it (the exhaustive part always finishes, "
                             "and a rerun with --store resumes it); default: none")
    verify.add_argument("--store", metavar="FILE",
                        help="with --search: SQLite store of the exhaustive part; a rerun "
                             "resumes it (default: a temporary store)")
    verify.add_argument("--workers", type=non_negative_int, default=None, metavar="N",
                        help="with --search: worker processes (default: all cores)")
    verify.add_argument("--scheduler", default="local",
                        help="with --search: local | dask-local | tcp://HOST:PORT")
    verify.add_argument("--counterexamples", metavar="FILE",
                        help="with --search: write every counterexample as rows of a .csv "
                             "or .json file (replacing only an earlier such table)")
    verify.add_argument("--record", metavar="FILE",
                        help="with --search or --member: keep what the run found in the "
                             "domain record FILE (created, or an earlier record updated): "
                             "a search's failing members and summary, or the member's "
                             "failure (a member that no longer fails is removed). attndepth "
                             "ships its record as attndepth/framework/data/domain.json; set "
                             "ATTNDEPTH_DOMAIN_RECORD=FILE to read yours beside it")
    verify.add_argument("--member", metavar="JSON",
                        help="run the one --claim on one member of its family, e.g. "
                             "'{\"width\": 16}': the keys it names, the preset's values for "
                             "the others (reproduces a counterexample)")
    verify.add_argument("--model", metavar="MODULE:FUNCTION",
                        help="your own model: a factory f(seed, width=, depth=, heads=, "
                             "tokens=) returning a torch.nn.Module, in an importable module or "
                             "a .py file; each "
                             "claim that takes an architecture runs on it at its preset (or "
                             "--member naming it as its architecture); outside the claims' "
                             "families, so each verdict is the run's alone")
    verify.add_argument("--explain", action="append", metavar="ID",
                        help="print where claim ID lives (verify function, theory, "
                             "simulation, test, figure, wrong theory, presets) and exit; "
                             "repeatable")
    verify.set_defaults(handler=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    from attndepth.cli.outputs import REPORT, emit, output_option
    from attndepth.framework.domain import check_records
    from attndepth.framework.explaining import explain
    from attndepth.framework.pool_runs import ClaimsInterrupted, run_claims
    from attndepth.framework.registry import all_claims, default_claims, get_claim, load_claims
    from attndepth.framework.report import render
    from attndepth.framework.results import ClaimResult
    from attndepth.framework.verdicts import FAILING, Verdict
    from attndepth.simulations.threads import available_cores

    # the report's file is checked before any claim runs: a refusal costs nothing
    args.out = output_option(args.out, REPORT, "--out", reading=tuple(args.claims or ()))
    check_records()  # the shipped record and $ATTNDEPTH_DOMAIN_RECORD, before any claim
    loaded = [claim_id for source in args.claims or [] for claim_id in load_claims(source)]
    if loaded and not args.claim:
        args.claim = loaded  # --claims FILE alone runs the claims of FILE
    check_figures(loaded)

    if args.list:
        claims = all_claims()
        width = max(len(claim_id) for claim_id in claims)
        for claim_id, found in claims.items():
            label = " (conjecture)" if found.conjecture else ""
            if not found.by_default:
                label += " (not run by default: name it with --claim)"
            print(f"{claim_id:<{width}}  {found.statement}{label}")
        return EXIT_OK
    if args.explain:
        for claim_id in args.explain:
            get_claim(claim_id)  # every id is checked before anything prints
        print("\n\n".join(explain(claim_id) for claim_id in args.explain))
        return EXIT_OK
    if args.record is not None:
        from attndepth.framework.domain import check_record_target

        if args.member is None and not args.search:
            raise InvalidParameter("--record needs --search or --member: it keeps what "
                                   "they find")
        check_record_target(args.record)
    # before any measurement (a member, a search, a model, the presets): a decorative
    # theory entry is the claim's bad input, exit 2
    checked = (loaded if args.theory_check is None else
               (args.claim or default_claims()) if args.theory_check else [])
    if checked:
        from attndepth.framework.decorative import refuse_decorative

        for claim_id in checked:
            refuse_decorative(get_claim(claim_id), args.preset, args.seed)
    if args.model is not None:
        from attndepth.pytorch.architectures import load_model

        args.model = load_model(args.model)
        if args.member is None:
            return _verify_model(args)
    if args.member is not None:
        return _verify_member(args)
    if args.search:
        return _search(args)

    # a user's claims (--claims) are run with their wrong theory too, unless --no-wrong-theory
    wrong = (loaded if args.wrong_theory is None else
             (args.claim or default_claims()) if args.wrong_theory else [])
    total = len(args.claim or default_claims())
    done: list[str] = []

    def finished(result: ClaimResult) -> None:  # stderr, terminal or not: one line a claim
        done.append(result.id)
        if total > 1:  # of one claim, the report says all there is
            print(f"{result.verdict:<17} {result.id}  ({result.seconds:.1f} s)  "
                  f"[{len(done)}/{total}]", file=sys.stderr, flush=True)

    jobs = available_cores() if args.jobs is None else max(1, args.jobs)
    try:
        # one claim says nothing until it ends: a line every 10 s with its seeds instead
        with seed_progress() if total == 1 else contextlib.nullcontext():
            results = run_claims(args.claim, args.preset, args.seed, wrong_theory=wrong,
                                 jobs=jobs, finished=finished)
    except ClaimsInterrupted as stopped:  # the finished claims' report, then exit 130
        if stopped.results:
            emit(render(stopped.results, args.format, args.preset, args.seed), args.out)
        print(f"attndepth: interrupted: {len(stopped.results)} of {total} claims had "
              f"finished{' (reported above)' if stopped.results else ''}; the others were "
              f"stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    emit(render(results, args.format, args.preset, args.seed), args.out)
    broken = [r for r in results if r.id in loaded and r.verdict == Verdict.ERROR]
    for result in broken:  # a user's claim that could not be run: bad input, one line each
        print(f"attndepth: error: claim {result.id!r} could not be run: {result.outcome.note}; "
              f"fix its file and rerun with --claim {result.id}", file=sys.stderr)
    if broken:
        return EXIT_BAD_INPUT
    failed = any(r.verdict in FAILING or r.wrong_theory_caught is False
                 for r in results)
    return EXIT_CLAIM_FAILED if failed else EXIT_OK


def check_figures(claim_ids: list[str]) -> None:
    """Every figure a user's claim names is registered (one clear error otherwise).

    The figure registry (and with it matplotlib) is imported only when a claim names a
    figure: a run without such claims does not pay for it.
    """
    from attndepth.framework.registry import get_claim

    for claim_id in claim_ids:
        found = get_claim(claim_id)
        if found.figure:
            from attndepth.figures.registry import check_figure_name

            check_figure_name(found.figure, claim_id)


def _verify_member(args: argparse.Namespace) -> int:
    """``verify --claim ID --member JSON``: one family member (reproduces a counterexample)."""
    from attndepth.cli.outputs import emit
    from attndepth.framework.registry import get_claim
    from attndepth.framework.report import render
    from attndepth.framework.running import run_claim
    from attndepth.framework.verdicts import FAILING
    from attndepth.input_files import parse_json

    if not args.claim or len(args.claim) != 1:
        raise InvalidParameter("--member needs exactly one --claim")
    found = get_claim(args.claim[0])
    if found.family is None:
        raise InvalidParameter(f"claim {found.id!r} declares no family")
    member = _member(found, parse_json(args.member, "--member"), args.preset)
    given = shown(json.dumps(member), 80, quote=False)
    # the member's own values decide, not the reshaped keyword arguments
    in_family = bool(found.family.includes(member))
    if args.record is not None and not in_family:
        raise InvalidParameter(f"--record: {given} lies outside the family of "
                               f"{found.id}, so it says nothing of the claim's domain")
    with seed_progress():  # a line every 10 s of a long member
        result = run_claim(found.id, args.preset, args.seed, **found.family.kwargs(member))
    result = dataclasses.replace(result, in_family=in_family)
    if not in_family:
        print(f"attndepth: note: {given} lies outside the family of {found.id} "
              f"({found.family.describe()}): the run gives no verdict of the claim",
              file=sys.stderr)
    emit(render([result], args.format, args.preset, args.seed), args.out)
    if args.record is not None:
        from attndepth.framework.domain import KnownFailure, record_member
        from attndepth.framework.search import reproduce_command
        from attndepth.framework.verdicts import COUNTEREXAMPLE

        outcome = result.outcome
        failure = (KnownFailure.now(found.id, member, outcome.verdict, outcome.measured,
                                    args.seed, reproduce_command(found.id, member, args.seed),
                                    "member") if outcome.verdict in COUNTEREXAMPLE else None)
        failing = record_member(args.record, found.id, member, failure)
        print(f"attndepth: {'recorded' if failing else 'no failure to record; removed any'} "
              f"{given} of {found.id} in {args.record}", file=sys.stderr)
    return EXIT_CLAIM_FAILED if result.claim_verdict in FAILING else EXIT_OK


def _member(found: Claim, given: object, preset: str) -> dict[str, Any]:
    """The family member ``--member`` names: its keys, and the preset's values for the
    family's other parameters (a member names only what differs from the preset)."""
    assert found.family is not None
    keys = ", ".join(found.family.parameters)
    if not isinstance(given, dict):
        raise InvalidParameter(f"--member must be a JSON object with keys among {keys}")
    unknown = [name for name in given if name not in found.family.parameters]
    if unknown:
        raise InvalidParameter(f"--member: {shown(unknown[0], 40)} is not a parameter "
                               f"of the family of {found.id} ({keys})")
    defaults = found.presets[preset]
    missing = [name for name in found.family.parameters
               if name not in given and name not in defaults]
    if missing:
        raise InvalidParameter(f"--member must name {', '.join(missing)}: the {preset} "
                               f"preset of {found.id} does not set it")
    return {name: given[name] if name in given else defaults[name]
            for name in found.family.parameters}


def _verify_model(args: argparse.Namespace) -> int:
    """``verify --model``: each claim that takes an architecture, at its preset, on the
    user's model (a run with an override: its verdict is the run's alone)."""
    from attndepth.cli.outputs import emit
    from attndepth.framework.registry import all_claims, get_claim
    from attndepth.framework.report import render
    from attndepth.framework.running import run_claim
    from attndepth.framework.verdicts import FAILING

    takes = [claim_id for claim_id, found in all_claims().items()
             if "architecture" in found.presets[args.preset] and found.by_default]
    ids = args.claim or takes
    for claim_id in ids:
        if "architecture" not in get_claim(claim_id).presets[args.preset]:
            raise InvalidParameter(f"claim {claim_id!r} takes no architecture, so --model "
                                   f"cannot run it (those that do: {', '.join(takes)})")
    results = []
    for claim_id in ids:
        print(f"attndepth: {claim_id} on model {args.model} ...", file=sys.stderr, flush=True)
        with seed_progress():
            results.append(run_claim(claim_id, args.preset, args.seed,
                                     architecture=args.model))
    emit(render(results, args.format, args.preset, args.seed), args.out)
    return EXIT_CLAIM_FAILED if any(r.claim_verdict in FAILING for r in results) else EXIT_OK


def _search(args: argparse.Namespace) -> int:
    """``verify --search``: each claim's family, exhaustively then with hypothesis."""
    import csv

    from attndepth.cli.outputs import COUNTEREXAMPLES, emit, output_option
    from attndepth.framework.registry import all_claims, get_claim, is_users
    from attndepth.framework.report import TABLE_WIDTH, dumps
    from attndepth.framework.search import counterexample_rows, search_claim
    from attndepth.framework.verdicts import FAILING

    ids = args.claim or [c for c, found in all_claims().items()
                         if found.family is not None and found.by_default]
    for claim_id in ids:
        if get_claim(claim_id).family is None:
            raise InvalidParameter(f"claim {claim_id!r} declares no family to search")
    if args.counterexamples and Path(args.counterexamples).suffix not in (".csv", ".json"):
        raise InvalidParameter("--counterexamples must name a .csv or .json file")
    table = output_option(args.counterexamples, COUNTEREXAMPLES, "--counterexamples",
                          reading=(args.store, *(args.claims or ())))
    if table is not None and args.out is not None and table.target == args.out.target:
        raise InvalidParameter("--out and --counterexamples name the same file: give two")
    reports = []
    for claim_id in ids:  # progress: a bar on a terminal, one line per member otherwise
        reports.append(search_claim(claim_id, args.seed, args.draws, args.store,
                                    args.scheduler, args.workers, progress=None,
                                    max_seconds=(math.inf if args.max_seconds is None
                                                 else args.max_seconds)))
    if args.record is not None:
        from attndepth.framework.domain import KnownFailure, record_search

        for report in reports:
            failures = [KnownFailure.now(report.claim, r.member, r.verdict, r.measured,
                                         report.seed, command, "search")
                        for r, command in zip(report.counterexamples, report.commands,
                                              strict=True)]
            count = record_search(args.record, report.claim, failures,
                                  {"summary": report.summary(), "seed": report.seed,
                                   "verdict": str(report.verdict)})
            print(f"attndepth: recorded the search of {report.claim} ({count} failing "
                  f"members) in {args.record}", file=sys.stderr)
    if args.format == "json":
        emit(dumps([r.as_dict() for r in reports]), args.out)
    else:
        lines = []
        for report in reports:
            label = " (conjecture)" if report.conjecture else ""
            lines.append(f"{report.verdict.upper():<13} {report.claim}{label}  "
                         f"({report.seconds:.1f} s)")
            blocks = [("family", report.family), ("checked", report.summary())]
            blocks += [("error", _member_line(r)) for r in report.errors[:3]]
            for label, text in blocks:
                lines += textwrap.wrap(text, TABLE_WIDTH, initial_indent=f"    {label:<10} ",
                                       subsequent_indent=" " * 15, break_on_hyphens=False,
                                       break_long_words=False)
        emit("\n".join(lines), args.out)
    if table is not None:
        rows = counterexample_rows(reports)
        if table.path.suffix == ".json":
            table.write_text(dumps(rows) + "\n")
        else:
            keys = list(dict.fromkeys(k for row in rows for k in row)) or ["claim"]
            with table.open("w", newline="") as handle:
                writer = csv.DictWriter(handle, keys)
                writer.writeheader()
                writer.writerows(rows)
    broken = [r for r in reports if r.errors and is_users(get_claim(r.claim))]
    for report in broken:  # a user's claim that raised: its code, not the theory
        first = report.errors[0]
        member = ", ".join(f"{k}={v}" for k, v in first.member.items())
        print(f"attndepth: error: {first.note} (member {member}; {len(report.errors)} "
              f"member(s) raised); fix its file and rerun", file=sys.stderr)
    if broken:
        return EXIT_BAD_INPUT
    failed = any(r.verdict in FAILING for r in reports)
    return EXIT_CLAIM_FAILED if failed else EXIT_OK


def _member_line(result) -> str:
    return ", ".join(f"{k}={v}" for k, v in result.member.items()) + f": {result.note}"
