"""The ``attndepth`` command line.

Exit codes: 0 success, 1 a claim failed, 2 bad input (one line on stderr),
130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_CLAIM_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


class BadInput(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise BadInput(f"{self.prog}: {message}")


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _emit(text: str, out: str | None) -> None:
    """Print to stdout, or write to ``out`` when given."""
    if out is None:
        print(text)
    else:
        Path(out).write_text(text + "\n")


def cmd_verify(args: argparse.Namespace) -> int:
    from attndepth.claims import run_claims
    from attndepth.report import render

    def progress(claim_id: str) -> None:
        if sys.stderr.isatty():
            print(f"running {claim_id} ...", file=sys.stderr)

    results = run_claims(args.claim, args.preset, args.seed, progress=progress)
    _emit(render(results, args.format, args.preset, args.seed), args.out)
    return EXIT_CLAIM_FAILED if any(r.verdict == "fails" for r in results) else EXIT_OK


def cmd_figures(args: argparse.Namespace) -> int:
    from attndepth.figures.registry import all_figures, write_figure, write_store_figure

    if args.store:
        paths = write_store_figure(Path(args.store), Path(args.out))
        print(" ".join(str(p) for p in paths))
        return EXIT_OK
    names = args.only or list(all_figures())
    known = all_figures()
    for name in names:
        if name not in known:
            raise ValueError(f"unknown figure {name!r}; known: {', '.join(known)}")
    for name in names:
        paths = write_figure(name, Path(args.out), args.preset, args.seed)
        print(" ".join(str(p) for p in paths))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The full parser, one subparser per command."""
    from attndepth.claims import PRESETS
    from attndepth.report import FORMATS

    parser = _Parser(prog="attndepth", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    verify = sub.add_parser("verify", help="run every claim: theory vs measurement")
    verify.add_argument("--preset", choices=PRESETS, default="quick")
    verify.add_argument("--claim", action="append", metavar="ID",
                        help="run only this claim (repeatable)")
    verify.add_argument("--format", choices=FORMATS, default="table")
    verify.add_argument("--out", metavar="FILE", help="write the report here")
    verify.add_argument("--seed", type=_non_negative_int, default=0)
    verify.set_defaults(handler=cmd_verify)

    figures = sub.add_parser("figures", help="write every registered figure (PDF, PNG, CSV)")
    figures.add_argument("--out", default="figures-out", metavar="DIR")
    figures.add_argument("--only", action="append", metavar="NAME")
    figures.add_argument("--preset", choices=PRESETS, default="quick")
    figures.add_argument("--seed", type=_non_negative_int, default=0)
    figures.add_argument("--store", metavar="FILE",
                         help="draw t_sim vs depth from a similarity sweep store instead")
    figures.set_defaults(handler=cmd_figures)

    for module in SUBCOMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return parser


#: Modules adding further subcommands with ``register(subparsers)``.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "attndepth.cli_plan",
    "attndepth.cli_seprank",
    "attndepth.cli_similarity",
    "attndepth.cli_sweep",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (also used in-process by tests)."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.handler(args))
    except BadInput as error:
        print(str(error), file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"attndepth: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:
        print(f"attndepth: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("attndepth: interrupted (results a sweep committed are kept)", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
