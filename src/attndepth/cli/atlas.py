"""``attndepth atlas``: write the atlas' sweep spec, export a finished sweep as the atlas, or
measure the knee certificates shipped beside it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attndepth.errors import InvalidParameter
from attndepth.rank.atlas_classes import (
    ATLAS_MAX_BOUND,
    atlas_classes,
    atlas_spec,
    merge_atlas,
    spec_classes,
)
from attndepth.rank.atlas_table import (
    atlas,
    atlas_from_store,
    atlas_output,
    write_atlas,
)
from attndepth.rank.knee import measure_certificates
from attndepth.rank.knee_certificates import (
    FIELDS,
    certificates_text,
    read_certificates,
)
from attndepth.simulations.output_files import output_file, text_kind
from attndepth.theory.separation_rank import regime_bounds
from attndepth.validation import check_int, check_seed

#: Where the spec lives in a clone, and where the shipped atlas lives.
SPEC_PATH = Path("examples/atlas/atlas.toml")
DATA_PATH = Path("src/attndepth/rank/data/atlas.csv")
KNEES_PATH = Path("src/attndepth/rank/data/knee_certificates.csv")
#: An earlier knee-certificate file (its header).
KNEE_CERTIFICATES = text_kind("a knee-certificate file", ",".join(FIELDS))
#: An earlier spec of ``attndepth atlas spec`` (its first comment line).
ATLAS_SPEC = text_kind("an atlas sweep spec", r"# The separation-rank atlas")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``atlas`` subcommand with its ``spec`` and ``export`` actions."""
    from attndepth.cli._parsing import Parser, examples

    parser = sub.add_parser(
        "atlas", help="the separation-rank atlas: its sweep spec, or export a sweep",
        description="The atlas holds one certified separation rank per size class of the "
                    "analysed network (width d, depth L, heads H, residual rho and the "
                    "sizes of P and Q); attndepth.atlas() "
                    "loads it. `spec` writes the sweep spec of every class in scope; "
                    "`attndepth sweep examples/atlas/atlas.toml --store atlas.sqlite` runs it "
                    "(resumable); `export` turns the store into the atlas file.",
        epilog=examples("attndepth atlas spec",
                        "attndepth atlas export --store atlas.sqlite"))
    actions = parser.add_subparsers(dest="action", required=True, parser_class=Parser,
                                    metavar="ACTION")
    spec = actions.add_parser(
        "spec", help="write the sweep spec of the atlas' classes",
        description=f"Enumerate every class with bound (d) <= {ATLAS_MAX_BOUND} at d <= 8, "
                    f"L <= 5 (at most d + 1 positions in P and d in Q: larger sizes have the "
                    f"same rank), keep "
                    f"those within the 2 GiB guard (a raised time limit for the few whose "
                    f"estimate passes the default), and write them cheapest first as one "
                    f"seprank sweep (under a minute).",
        epilog=examples("attndepth atlas spec", "attndepth atlas spec --out my_atlas.toml",
                        "attndepth atlas spec --missing --out rest.toml"))
    spec.add_argument("--out", type=Path, default=SPEC_PATH, metavar="FILE",
                      help=f"the spec to write (default: {SPEC_PATH}; replaces only an "
                           f"earlier spec)")
    spec.add_argument("--missing", action="store_true",
                      help="only the classes the atlas (--atlas) lacks: a sweep that "
                           "completes it")
    spec.add_argument("--atlas", type=Path, default=None, metavar="CSV",
                      help="the atlas --missing compares with (default: the shipped one)")
    spec.set_defaults(handler=run_spec)
    export = actions.add_parser(
        "export", help="write a finished atlas sweep's rows as the atlas file",
        description="Read the store of the atlas sweep (read-only) and write one row per "
                    "finished size class as CSV, the file attndepth.atlas() reads. The rows "
                    "join those already in the file (a class measured anew replaces its "
                    "row), and each rho = 0 row of the blocks method also gives the rho = 1 "
                    "row its blocks certify. Failed points are counted on stderr, not "
                    "written.",
        epilog=examples("attndepth atlas export --store atlas.sqlite",
                        "attndepth atlas export --store atlas.sqlite --out atlas.csv --replace"))
    export.add_argument("--store", required=True, type=Path, metavar="FILE",
                        help="the sweep's SQLite store")
    export.add_argument("--out", type=Path, default=DATA_PATH, metavar="CSV",
                        help=f"the atlas file to write (default: {DATA_PATH}, the shipped one)")
    export.add_argument("--replace", action="store_true",
                        help="write the store's rows alone instead of joining the file's, and "
                             "replace --out even if it is not an atlas file (never a store "
                             "or the --store itself)")
    export.set_defaults(handler=run_export)
    knees = actions.add_parser(
        "knees", help="measure the certified ranks that decide knees, for shipping",
        description="Measure the knee of each regime (width d, q positions in each of P "
                    "and Q) afresh, as "
                    "the claim levine.threshold does (dense degree blocks, the torus split "
                    "where they fall short), and write every certified depth as one row "
                    "of the knee certificates the claim reads before measuring. Rows of "
                    "the regimes measured replace theirs; the others are kept. Minutes "
                    "per regime at d = 5.",
        epilog=examples("attndepth atlas knees --regime 5,5",
                        "attndepth atlas knees --regime 4,4 --regime 5,5 --out knees.csv"))
    knees.add_argument("--regime", required=True, action="append", metavar="D,Q",
                       help="a regime: the width d and the number q of positions in each "
                            "of P and Q (repeatable)")
    knees.add_argument("--seed", type=int, default=0, metavar="S",
                       help="the seed of the evaluation points (default: 0)")
    knees.add_argument("--out", type=Path, default=KNEES_PATH, metavar="CSV",
                       help=f"the certificate file to write (default: {KNEES_PATH}, the "
                            f"shipped one)")
    knees.set_defaults(handler=run_knees)


def run_spec(args: argparse.Namespace) -> int:
    if args.atlas is not None and not args.missing:
        raise InvalidParameter("--atlas names the atlas --missing compares with; add --missing")
    out = output_file(args.out, ATLAS_SPEC, reading=(args.atlas,),
                      hint="choose another file for --out, or delete it")
    known = (atlas() if args.atlas is None else atlas(args.atlas)) if args.missing else None
    classes = atlas_classes()
    reachable = [c for c in classes if c.reachable]
    points = spec_classes(classes, known)
    text = atlas_spec(classes, known=known)
    out.write_text(text)
    derived = sum(c.derived for c in reachable)
    print(f"{args.out}: {len(points)} points for {len(reachable)} classes of {len(classes)} "
          f"in scope ({len(classes) - len(reachable)} beyond the 2 GiB guard; "
          f"{derived} rho = 1 rows come from the rho = 0 blocks"
          + (f"; {len(known)} rows in the atlas already" if known is not None else "") + ")")
    return 0


def run_export(args: argparse.Namespace) -> int:
    # the store is read, never written: --out naming it (or any store) is refused
    out = atlas_output(args.out, replace=args.replace, reading=(args.store,),
                       hint="give --replace to write the store's rows over it, or "
                            "choose another file")
    measured, failed = atlas_from_store(args.store)
    previous = None if args.replace or not args.out.is_file() else atlas(args.out)
    table, counts = merge_atlas(measured, previous)
    write_atlas(table, out)
    print(f"{args.out}: {len(table)} size classes ({counts['measured']} from the store, "
          f"{counts['kept']} kept from the file, {counts['derived']} rho = 1 rows from the "
          f"rho = 0 blocks)")
    if failed:
        print(f"{len(failed)} failed points not written (first: {failed[0]['error']})",
              file=sys.stderr)
    return 0


def _regime(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise InvalidParameter(f"--regime must be D,Q (two integers), got {text!r}")
    width = check_int("the regime's width", int(parts[0]), minimum=1, maximum=9)
    return width, check_int("the regime's q", int(parts[1]), minimum=1, maximum=width)


def run_knees(args: argparse.Namespace) -> int:
    regimes = [_regime(text) for text in args.regime]
    seed = check_seed("--seed", args.seed)
    out = output_file(args.out, KNEE_CERTIFICATES,
                      hint="choose another file for --out, or delete it")
    kept = [c for c in (read_certificates(args.out) if args.out.is_file() else ())
            if (c.width, c.q_size) not in regimes]
    measured = []
    for width, q_size in regimes:
        found = measure_certificates(width, q_size, *regime_bounds(width, q_size), seed)
        measured += found
        print(f"d={width}, q={q_size}: " + ", ".join(
            f"L={c.depth} {c.method} >= {c.rank}" for c in found), file=sys.stderr)
    out.write_text(certificates_text(kept + measured))
    print(f"{args.out}: {len(measured)} certificates measured, {len(kept)} kept")
    return 0
