"""``attndepth atlas``: write the atlas' sweep spec, or export a finished sweep as the atlas."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attndepth.atlas_classes import ATLAS_MAX_BOUND, atlas_classes, atlas_spec
from attndepth.simulations.exact.atlas_table import atlas_from_store, write_atlas

#: Where the spec lives in a clone, and where the shipped atlas lives.
SPEC_PATH = Path("examples/atlas/atlas.toml")
DATA_PATH = Path("src/attndepth/simulations/data/atlas.csv")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``atlas`` subcommand with its ``spec`` and ``export`` actions."""
    from attndepth.cli.main import _Parser, examples

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
    actions = parser.add_subparsers(dest="action", required=True, parser_class=_Parser,
                                    metavar="ACTION")
    spec = actions.add_parser(
        "spec", help="write the sweep spec of the atlas' classes",
        description=f"Enumerate every class with bound (d) <= {ATLAS_MAX_BOUND} at d <= 8, "
                    f"L <= 5 (at most d + 1 positions in P and d in Q: larger sizes have the "
                    f"same rank), keep "
                    f"those within the 2 GiB guard and the ten-minute estimate, and write "
                    f"them cheapest first as one seprank sweep (about 20 s).",
        epilog=examples("attndepth atlas spec", "attndepth atlas spec --out my_atlas.toml"))
    spec.add_argument("--out", type=Path, default=SPEC_PATH, metavar="FILE",
                      help=f"the spec to write (default: {SPEC_PATH})")
    spec.set_defaults(handler=run_spec)
    export = actions.add_parser(
        "export", help="write a finished atlas sweep's rows as the atlas file",
        description="Read the store of the atlas sweep (read-only) and write one row per "
                    "finished size class as CSV, the file attndepth.atlas() reads. Failed "
                    "points are counted on stderr, not written.",
        epilog=examples("attndepth atlas export --store atlas.sqlite",
                        "attndepth atlas export --store atlas.sqlite --out atlas.csv"))
    export.add_argument("--store", required=True, type=Path, metavar="FILE",
                        help="the sweep's SQLite store")
    export.add_argument("--out", type=Path, default=DATA_PATH, metavar="CSV",
                        help=f"the atlas file to write (default: {DATA_PATH}, the shipped one)")
    export.set_defaults(handler=run_export)


def run_spec(args: argparse.Namespace) -> int:
    classes = atlas_classes()
    reachable = [c for c in classes if c.reachable]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(atlas_spec(classes))
    print(f"{args.out}: {len(reachable)} classes of {len(classes)} in scope "
          f"({len(classes) - len(reachable)} beyond the 2 GiB guard or ten minutes)")
    return 0


def run_export(args: argparse.Namespace) -> int:
    table, failed = atlas_from_store(args.store)
    write_atlas(table, args.out)
    print(f"{args.out}: {len(table)} size classes")
    if failed:
        print(f"{len(failed)} failed points not written (first: {failed[0]['error']})",
              file=sys.stderr)
    return 0
