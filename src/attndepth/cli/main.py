"""The ``attndepth`` command line.

Exit codes: 0 success; 1 a claim failed (or a measurement contradicted a proved
bound); 2 bad input (one line on stderr: an invalid parameter or type, overflowing
states, a missing optional extra, a damaged store, a file that cannot be read);
3 a sweep worker died (the committed rows are kept; rerun to continue); 4 an
internal error — a bug in attndepth, printed with a short traceback and a request
to report it; 130 interrupted (Ctrl-C). The error classes are in
:mod:`attndepth.errors`.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from attndepth.cli._parsing import (
    EXIT_BAD_INPUT,
    EXIT_CLAIM_FAILED,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_WORKER_DIED,
    BadInput,
    Parser,
    examples,
)
from attndepth.errors import AttndepthError, CheckFailed, OutputFailed, WorkerDied

__all__ = ["EXIT_BAD_INPUT", "EXIT_CLAIM_FAILED", "EXIT_INTERNAL_ERROR", "EXIT_INTERRUPTED",
           "EXIT_OK", "EXIT_WORKER_DIED", "SUBCOMMAND_MODULES", "build_parser", "main"]

#: Frames of an internal error's traceback that are printed (the innermost).
TRACEBACK_FRAMES = 4

#: The subcommands, in the order ``--help`` lists them: each module adds its own with
#: ``register(subparsers)``.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "attndepth.cli.verify",
    "attndepth.cli.figures",
    "attndepth.cli.atlas",
    "attndepth.cli.map",
    "attndepth.cli.plan",
    "attndepth.cli.separation_rank",
    "attndepth.cli.similarity",
    "attndepth.cli.sweep",
    "attndepth.cli.store",
    "attndepth.cli.train",
)


def build_parser() -> Parser:
    """The full parser, one subparser per command."""
    parser = Parser(prog="attndepth",
                    description="Check the theory of how deep self-attention can usefully "
                                "go: claims against seeded measurements, separation ranks, "
                                "sweeps and figures.",
                    epilog=examples("attndepth verify", "attndepth verify --list",
                                    "attndepth seprank --width 2 --depth 3 --tokens 4",
                                    "attndepth COMMAND --help"))
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser,
                                metavar="COMMAND")
    for module in SUBCOMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (also used in-process by tests)."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.handler(args))
    except BadInput as error:
        print(str(error), file=sys.stderr)
        return EXIT_BAD_INPUT
    except CheckFailed as error:  # a measurement contradicting a proved bound
        print(f"attndepth: check failed: {_first_line(error)}", file=sys.stderr)
        return EXIT_CLAIM_FAILED
    except (WorkerDied, OutputFailed) as error:  # stopped by its environment: rerun
        print(f"attndepth: {_first_line(error)}", file=sys.stderr)
        return EXIT_WORKER_DIED
    except AttndepthError as error:  # bad input of every kind (attndepth.errors)
        print(f"attndepth: error: {_first_line(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # the reader went away (``| head``): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as error:  # a file or folder of the user's that cannot be used
        print(f"attndepth: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("attndepth: interrupted (results a sweep committed are kept)", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - anything else is a bug of ours
        import traceback

        frames = traceback.format_exception(error, limit=-TRACEBACK_FRAMES)
        print("".join(frames).rstrip(), file=sys.stderr)
        print("attndepth: internal error (a bug in attndepth, not in your input): please "
              "report it with the command line and `pip show attndepth`", file=sys.stderr)
        return EXIT_INTERNAL_ERROR


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__



if __name__ == "__main__":
    sys.exit(main())
