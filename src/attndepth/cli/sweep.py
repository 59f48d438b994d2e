"""``attndepth sweep``: run a TOML-declared parameter sweep into a SQLite store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import attndepth.rank.measure  # noqa: F401  (registers the seprank observable)
from attndepth.simulations.output_files import CSV_TABLE, output_file
from attndepth.simulations.sweeps.store import open_store
from attndepth.simulations.sweeps.sweep import load_spec, run_sweep


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sweep`` subcommand."""
    from attndepth.cli._parsing import examples, integer

    parser = sub.add_parser(
        "sweep", help="run a parameter sweep; reruns compute only what is missing",
        description="Run the points of a TOML sweep spec (observable, grid, fixed values, "
                    "seeds) on a process pool or dask, writing one row per point to a "
                    "SQLite store as results arrive. A rerun, or a run after a kill, "
                    "computes only the missing or failed points.",
        epilog=examples("attndepth sweep spec.toml",
                        "attndepth sweep spec.toml --workers 2 --export table.csv",
                        "attndepth sweep spec.toml --scheduler dask-local"))
    parser.add_argument("spec", metavar="SPEC.toml", help="the sweep specification")
    parser.add_argument("--scheduler", default="local",
                        help="local (process pool) | dask-local | tcp://HOST:PORT of a "
                             "running dask scheduler")
    parser.add_argument("--workers", type=integer, default=None, metavar="N",
                        help="worker processes (integer >= 1; default: all cores)")
    parser.add_argument("--store", default=None, metavar="FILE",
                        help="SQLite store (default: SPEC with the suffix .sqlite)")
    parser.add_argument("--export", default=None, metavar="CSV",
                        help="also write the store's table as CSV (replacing only an earlier "
                             "CSV table; never the store or the spec)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    spec = load_spec(args.spec)
    store = Path(args.store) if args.store else Path(args.spec).with_suffix(".sqlite")
    export = None
    if args.export:  # checked before the sweep runs: never the store, its logs or the spec
        export = output_file(args.export, CSV_TABLE, reading=(
            store, *(store.with_name(store.name + suffix)
                     for suffix in ("-wal", "-shm", "-journal")), Path(args.spec)),
            hint="choose another file for --export, or delete it")
    progress = False if args.quiet else None
    summary = run_sweep(spec, store, args.scheduler, args.workers, progress)
    print(f"{spec.measurement}: {summary.total} points — {summary.computed} computed, "
          f"{summary.reused} reused, {summary.failed} failed; store {store}", file=sys.stderr)
    if export is not None:
        with open_store(store, readonly=True) as opened:
            rows = opened.export_csv(export)
        print(f"exported {rows} rows to {args.export}", file=sys.stderr)
    return 0
