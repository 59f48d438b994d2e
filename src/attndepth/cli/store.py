"""``attndepth store``: check a sweep store, or copy its readable rows into a new one."""

from __future__ import annotations

import argparse

from attndepth.framework.report import dumps
from attndepth.simulations.sweeps.store import check_store, recover_store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``store`` subcommand with its ``check`` and ``recover`` actions."""
    from attndepth.cli._parsing import Parser, examples

    parser = sub.add_parser(
        "store", help="check a sweep store, or recover its readable rows",
        description="Check a sweep store with SQLite's integrity check (read-only), or copy "
                    "every row SQLite can still read from a damaged store into a new one.",
        epilog=examples("attndepth store check sweep.sqlite",
                        "attndepth store recover sweep.sqlite --to rescued.sqlite"))
    actions = parser.add_subparsers(dest="action", required=True, parser_class=Parser,
                                    metavar="ACTION")
    check = actions.add_parser(
        "check", help="integrity check and row count; exit 1 if damaged",
        description="Run SQLite's integrity check on FILE without changing it; print the "
                    "row count and every problem; exit 1 if it is damaged.",
        epilog=examples("attndepth store check sweep.sqlite",
                        "attndepth store check sweep.sqlite --json"))
    check.add_argument("file", metavar="FILE", help="the store")
    check.add_argument("--json", action="store_true", help="one JSON document on stdout")
    check.set_defaults(handler=run_check)
    recover = actions.add_parser(
        "recover", help="copy every readable row into a new store",
        description="Read FILE row by row (read-only) and write every readable row to the "
                    "new store NEW; a damaged page loses only the rows stored on it.",
        epilog=examples("attndepth store recover sweep.sqlite --to rescued.sqlite",
                        "attndepth sweep spec.toml --store rescued.sqlite"))
    recover.add_argument("file", metavar="FILE", help="the damaged store (never changed)")
    recover.add_argument("--to", required=True, metavar="NEW",
                         help="the new store to create (must not exist)")
    recover.set_defaults(handler=run_recover)


def run_check(args: argparse.Namespace) -> int:
    report = check_store(args.file)
    if args.json:
        print(dumps(report))
    else:
        state = "ok" if report["ok"] else "DAMAGED"
        rows = "unreadable" if report["rows"] is None else report["rows"]
        print(f"{args.file}: {state}; schema {report['schema']}; rows {rows}")
        for problem in report["problems"]:
            print(f"  {problem}")
        if not report["ok"]:
            print(f"  recover the readable rows: attndepth store recover {args.file} "
                  f"--to NEW.sqlite")
    return 0 if report["ok"] else 1


def run_recover(args: argparse.Namespace) -> int:
    counts = recover_store(args.file, args.to)
    print(f"{args.to}: {counts['recovered']} rows recovered, {counts['unreadable']} unreadable "
          f"in {args.file}")
    return 0
