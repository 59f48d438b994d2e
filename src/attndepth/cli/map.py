"""``attndepth map``: a claim's validity map over a grid of its parameters."""

from __future__ import annotations

import argparse
import contextlib
import csv
import math
import sys
from pathlib import Path

from attndepth.cli._parsing import EXIT_INTERRUPTED
from attndepth.errors import InvalidParameter, shown
from attndepth.framework.progress import MemberProgress, seed_progress
from attndepth.simulations.output_files import CSV_TABLE, PDF, PNG, OutputFile, output_folder


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``map`` subcommand."""
    from attndepth.cli._parsing import examples, non_negative_int
    from attndepth.framework.model import PRESETS

    parser = sub.add_parser(
        "map", help="map a claim's error over a grid of its parameters",
        description="Run a claim at every point of a grid (the other parameters from the "
                    "preset) and draw its validity map: the mean error of its prediction "
                    "with its confidence interval at each point, the tolerance band, and a "
                    "power-law fit of the error's size, c·x^(−k), along the first grid "
                    "parameter. Writes "
                    "CLAIM.png, CLAIM.pdf and CLAIM.csv.",
        epilog=examples(
            "attndepth map yuzhang.linear-rate-postln --grid width=16,32,64,128",
            "attndepth map yuzhang.linear-rate-postln --grid width=8,16,32,64,128,256 "
            "--beyond",
            "attndepth map levine.threshold --grid width=2,3,4,5,6,7,8,9 --grid q_size=1 "
            "--value offset --band=-1,1 --no-fit"))
    parser.add_argument("claim", metavar="CLAIM", help="a claim id (attndepth verify --list)")
    parser.add_argument("--grid", action="append", required=True, metavar="NAME=V1,V2,...",
                        help="values of one parameter (repeatable: the product is mapped)")
    parser.add_argument("--preset", choices=PRESETS, default="quick",
                        help="where the other parameters come from")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="base seed (integer >= 0) of every seed sample")
    parser.add_argument("--value", metavar="KEY",
                        help="for a claim without an estimate: the numeric outcome value "
                             "to map")
    parser.add_argument("--band", metavar="LOW,HIGH",
                        help="with --value: the band the value should lie in (drawn)")
    parser.add_argument("--beyond", action="store_true",
                        help="also map points outside the claim's family (drawn open)")
    parser.add_argument("--claims", action="append", metavar="PATH_OR_MODULE",
                        help="load your own claims first (repeatable)")
    parser.add_argument("--out", default="maps", metavar="DIR",
                        help="output directory (created if missing); CLAIM.png, .pdf and .csv "
                             "there are replaced only if attndepth wrote them there and "
                             "nobody changed them since (its manifest), never through a link")
    parser.add_argument("--fit", action=argparse.BooleanOptionalAction, default=True,
                        help="fit and draw a power law c·x^(−k) to the error's size along "
                             "the first grid parameter")
    parser.add_argument("--record", metavar="FILE",
                        help="keep the map in the domain record FILE (created, or an earlier "
                             "record updated): the verdict at every point, and each failing "
                             "point that is a member of the claim's family as a known failure "
                             "(attndepth verify then reports it)")
    parser.add_argument("--model", metavar="MODULE:FUNCTION",
                        help="register your own model (a factory f(seed, width=, depth=, "
                             "heads=, tokens=) returning a torch.nn.Module) under "
                             "MODULE:FUNCTION, so that "
                             "--grid architecture=MODULE:FUNCTION maps the claim on it")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from attndepth.framework.domain import check_records
    from attndepth.framework.registry import get_claim, is_users, load_claims
    from attndepth.framework.validity import (
        MapInterrupted,
        check_band,
        error_scaling,
        parse_grid,
        validity_map,
    )
    from attndepth.framework.verdicts import Verdict

    check_records()  # the records the map's verdicts join, before any work
    if args.model is not None:
        from attndepth.pytorch.architectures import load_model

        load_model(args.model)
    for source in args.claims or []:
        load_claims(source)
    band = None
    if args.band is not None:
        try:
            low, high = (float(v) for v in args.band.split(","))
        except ValueError:
            raise InvalidParameter(f"--band takes LOW,HIGH (two numbers), got "
                                   f"{shown(args.band, 40)}") from None
        band = (low, high)
        check_band(band)
    found = get_claim(args.claim)
    grid = parse_grid(args.grid)
    files = _map_files(found.id, Path(args.out))  # checked before the map is computed
    if args.record is not None:
        from attndepth.framework.domain import check_record_target

        check_record_target(args.record)
    total = 1
    for values in grid.values():
        total *= len(values)
    with MemberProgress(found.id, total, "map", enabled=not args.quiet) as bar, \
            seed_progress() if not args.quiet else contextlib.nullcontext():
        def progress(point) -> None:
            bar.done(point.params, point.verdict + (f" ({point.note})" if point.note else ""))

        try:
            result = validity_map(found.id, grid, args.preset, args.seed, args.value,
                                  args.beyond, progress, band)
        except MapInterrupted as stopped:  # the points computed are written, then exit 130
            result = stopped.partial
            if result.points:
                _write(result, None, next(iter(grid)), files)
            kept = f" and written to {files['.csv'].path}" if result.points else ""
            print(f"attndepth: interrupted: {len(result.points)} of {stopped.total} points "
                  f"computed{kept}; the others were not run", file=sys.stderr)
            return EXIT_INTERRUPTED
    first = next(iter(grid))
    scaling = error_scaling(result, first) if args.fit else None
    out = Path(args.out)
    _write(result, scaling, first, files)
    width = max(len(str(p.params)) for p in result.points)
    for point in result.points:
        where = "" if point.in_family is not False else "  (outside the family)"
        if point.verdict == Verdict.ERROR:
            print(f"{str(point.params):<{width}}  error             {point.note}")
            continue
        if math.isnan(point.mean):
            print(f"{str(point.params):<{width}}  {point.verdict:<17} {result.label}: no "
                  f"number (nothing decided){where}")
            continue
        print(f"{str(point.params):<{width}}  {point.verdict:<17} {result.label} "
              f"{point.mean:+.4g} [{point.low:+.4g}, {point.high:+.4g}]{where}")
    if result.band is not None:
        print(f"band [{result.band[0]:+.4g}, {result.band[1]:+.4g}]")
    if args.fit:
        one_sided = result.band is not None and not all(map(math.isfinite, result.band))
        print(scaling.describe() if scaling else
              f"no power-law fit along {first}: the band is one-sided (a margin, not an "
              f"error falling to 0)" if one_sided else
              f"no power-law fit along {first} (fewer than 3 points, or errors of both signs)")
    print(f"wrote {out / (found.id + '.png')}, .pdf, .csv", file=sys.stderr)
    if args.record is not None:
        recorded = _record(args, result)
        print(f"attndepth: recorded the map of {found.id} ({len(result.points)} points, "
              f"{recorded} failing member(s)) in {args.record}", file=sys.stderr)
    raised = [p for p in result.points if p.verdict == Verdict.ERROR]
    if raised and is_users(found):  # the user's code, not the grid: one line, exit 2
        print(f"attndepth: error: {raised[0].note} (at {raised[0].params}; "
              f"{len(raised)} of {len(result.points)} points); the other points are in the "
              f"map: fix the claim and rerun", file=sys.stderr)
        return 2
    return 0


def _record(args: argparse.Namespace, result) -> int:
    """Keep the map in the domain record: its summary, and every failing point that is a
    family member run exactly as ``verify --member`` runs it (so that its command
    reproduces it); a failing point run otherwise is counted in the summary only."""
    from attndepth.framework.domain import KnownFailure, record_map
    from attndepth.framework.registry import get_claim
    from attndepth.framework.search import reproduce_command
    from attndepth.framework.verdicts import COUNTEREXAMPLE

    found = get_claim(result.claim)
    family, preset = found.family, found.presets[result.preset]
    failures, elsewhere = [], 0
    for point in result.points:
        if point.verdict not in COUNTEREXAMPLE:
            continue
        if family is None:
            elsewhere += 1
            continue
        # as validity_map ran it: the preset's other parameters, or a member's keywords
        ran = ({**preset, **point.params} if set(point.params) <= set(preset)
               else family.kwargs(point.params))
        member = ({name: ran[name] for name in family.parameters}
                  if set(family.parameters) <= set(ran) else None)
        if (member is None or point.in_family is not True
                or family.kwargs(member) != ran):
            elsewhere += 1
            continue
        failures.append(KnownFailure.now(
            found.id, member, point.verdict,
            f"{result.label} {point.mean:+.4g} [{point.low:+.4g}, {point.high:+.4g}]",
            result.seed, reproduce_command(found.id, member, result.seed), "map"))
    counts: dict[str, int] = {}
    for point in result.points:
        counts[str(point.verdict)] = counts.get(str(point.verdict), 0) + 1
    summary = {"grid": {name: list(values) for name, values in result.grid.items()},
               "preset": result.preset, "seed": result.seed, "label": result.label,
               "verdicts": counts, "failing_not_members": elsewhere,
               "points": [{**point.params, "verdict": str(point.verdict)}
                          for point in result.points]}
    return record_map(args.record, found.id, failures, summary)


def _map_files(claim_id: str, out: Path) -> dict[str, OutputFile]:
    """The map's CSV, PNG and PDF in ``out``, each allowed to replace only a file attndepth
    wrote there, unchanged since (claim ids contain dots: never Path.with_suffix)."""
    kinds = {".csv": CSV_TABLE, ".png": PNG, ".pdf": PDF}
    folder = output_folder(out)
    return {suffix: folder.file(f"{claim_id}{suffix}", kind) for suffix, kind in kinds.items()}


def _write(result, scaling, parameter: str, files: dict[str, OutputFile]) -> None:
    from attndepth.figures.style import PNG_DPI
    from attndepth.figures.validity_map import draw_validity_map

    with files[".csv"].open("w", newline="") as handle:
        rows = [p.as_dict() for p in result.points]
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    numeric = all(isinstance(p.params[parameter], int | float) for p in result.points)
    x = [p.params[parameter] if numeric else k for k, p in enumerate(result.points)]
    figure = draw_validity_map(
        x, [p.mean for p in result.points], [p.low for p in result.points],
        [p.high for p in result.points], [p.in_family for p in result.points],
        parameter=parameter, label=result.label, claim=result.claim, band=result.band,
        scaling=(scaling.c, scaling.k) if scaling else None,
        log_x=numeric and min(x) > 0, verdicts=[str(p.verdict) for p in result.points])
    try:
        with files[".png"].open("wb") as handle:
            figure.savefig(handle, format="png", dpi=PNG_DPI)
        with files[".pdf"].open("wb") as handle:
            figure.savefig(handle, format="pdf")
    finally:
        import matplotlib.pyplot as plt

        plt.close(figure)
