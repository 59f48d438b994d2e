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

import argparse
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
from attndepth.environment import check_environment
from attndepth.errors import (
    AttndepthError,
    CheckFailed,
    OutputFailed,
    WorkerDied,
    shorten_quoted,
)

__all__ = ["COMMANDS", "EXIT_BAD_INPUT", "EXIT_CLAIM_FAILED", "EXIT_INTERNAL_ERROR",
           "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_WORKER_DIED", "SUBCOMMAND_MODULES",
           "build_parser", "main"]

#: Frames of an internal error's traceback that are printed (the innermost).
TRACEBACK_FRAMES = 4

#: Each command and the module that adds it with ``register(subparsers)``, in the order
#: ``--help`` lists them. A command line naming one imports only its module (``seprank``
#: does not wait for the claims' imports); help and mistakes import them all.
COMMANDS: dict[str, str] = {
    "verify": "attndepth.cli.verify",
    "figures": "attndepth.cli.figures",
    "atlas": "attndepth.cli.atlas",
    "map": "attndepth.cli.map",
    "plan": "attndepth.cli.plan",
    "seprank": "attndepth.cli.separation_rank",
    "similarity": "attndepth.cli.similarity",
    "observe": "attndepth.cli.observe",
    "sweep": "attndepth.cli.sweep",
    "store": "attndepth.cli.store",
    "train": "attndepth.cli.train",
}
#: The modules of :data:`COMMANDS`, in its order.
SUBCOMMAND_MODULES: tuple[str, ...] = tuple(COMMANDS.values())


def build_parser(command: str | None = None) -> Parser:
    """The parser, one subparser per command; only ``command``'s when it names one.

    Parameters
    ----------
    command : str, optional
        A key of :data:`COMMANDS`; None (or anything else): every command.

    Returns
    -------
    Parser
    """
    parser = Parser(prog="attndepth",
                    description="Check the theory of how deep self-attention can usefully "
                                "go: claims against seeded measurements, separation ranks, "
                                "sweeps and figures.",
                    epilog=examples("attndepth verify", "attndepth verify --list",
                                    "attndepth seprank --width 2 --depth 3 --tokens 4",
                                    "attndepth COMMAND --help"))
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser,
                                metavar="COMMAND")
    modules = [COMMANDS[command]] if command in COMMANDS else SUBCOMMAND_MODULES
    for module in modules:
        importlib.import_module(module).register(sub)
    return parser


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line parsed by the parser of the command it names (its first word); a
    line it refuses is parsed again by the whole parser, whose error also says where an
    option of another command belongs."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = words[0] if words else None
    if command in COMMANDS:
        try:
            return build_parser(command).parse_args(words)
        except BadInput:
            pass
    return build_parser().parse_args(words)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (also used in-process by tests)."""
    try:
        args = _parse(argv)
        check_environment()  # every ATTNDEPTH_* variable, before any work
        return int(args.handler(args))
    except BadInput as error:
        print(_first_line(error), file=sys.stderr)
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
        print(f"attndepth: error: {_first_line(error)}", file=sys.stderr)
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
    """The message's first line, every long quoted value in it shortened."""
    text = str(error)
    return shorten_quoted(text.splitlines()[0]) if text.strip() else type(error).__name__



if __name__ == "__main__":
    sys.exit(main())
