"""Plumbing every subcommand shares: the parser class, its help formatter, the
argument types and the epilog of examples. Nothing here knows a subcommand; the
subcommands import it, and :mod:`attndepth.cli.main` only assembles them.
"""

from __future__ import annotations

import argparse
import difflib
import textwrap

from attndepth.errors import shorten_quoted, shown, shown_path

#: The exit codes (the command line's docstring, :mod:`attndepth.cli.main`, says when).
EXIT_OK, EXIT_CLAIM_FAILED, EXIT_BAD_INPUT, EXIT_WORKER_DIED = 0, 1, 2, 3
EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED = 4, 130


#: The metavars of arguments that name files or folders: no two may name one.
PATH_METAVARS = frozenset({"FILE", "CSV", "DIR", "NEW", "SPEC.toml", "PATH_OR_MODULE"})

class BadInput(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Appends each option's default (unless None, False or already in the help) and keeps
    the examples of an epilog as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if any(action.default is value for value in (None, False, argparse.SUPPRESS)) \
                or "default" in text \
                or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`BadInput` (one line, with a did-you-mean
    for a mistyped option) instead of printing its usage and exiting."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        if kwargs.get("description"):  # the formatter keeps text raw: wrap it here
            kwargs["description"] = textwrap.fill(kwargs["description"], 79)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        parsed, extras = super().parse_known_args(args, namespace)
        self._parsed = parsed  # which subcommand ran: its options are the ones to suggest
        self._check_distinct_paths(parsed)
        return parsed, extras

    def _check_distinct_paths(self, parsed: argparse.Namespace) -> None:
        """Refuse two of this parser's path arguments (:data:`PATH_METAVARS`) naming one
        file (``--record F --out F``): before any work, not when the second is written."""
        import os

        seen: dict[str, str] = {}
        for action in self._actions:
            if action.metavar not in PATH_METAVARS:
                continue
            values = getattr(parsed, action.dest, None)
            for value in values if isinstance(values, list) else [values]:
                if value is None:
                    continue
                try:
                    key = os.path.realpath(os.fspath(value))
                except (TypeError, ValueError, OSError):
                    continue
                name = action.option_strings[-1] if action.option_strings else action.metavar
                if key in seen and seen[key] != name:
                    self.error(f"{seen[key]} and {name} name the same file "
                               f"{shown_path(value, 80)}: give each its own (it was "
                               f"left untouched)")
                seen.setdefault(key, name)

    def error(self, message: str):  # type: ignore[override]
        message = shorten_quoted(message)
        raise BadInput(f"{self.prog}: {message}{self._suggestion(message)}")

    def _suggestion(self, message: str) -> str:
        """``; did you mean --x?`` for a mistyped option (difflib over the options of the
        subcommand that ran), or where an option of another subcommand belongs."""
        if not message.startswith("unrecognized arguments:"):
            return ""
        own = self._chosen()
        known = [option for parser in own for action in parser._actions
                 for option in action.option_strings]
        guesses, elsewhere = [], []
        for word in message.split(":", 1)[1].split():
            option = word.split("=", 1)[0]
            if not option.startswith("-"):
                continue
            owners = [parser.prog for parser in self._parsers() if parser not in own
                      and any(option in action.option_strings for action in parser._actions)]
            as_choice = [f"{action.option_strings[-1]} {option.lstrip('-')}"
                         for parser in own for action in parser._actions
                         if action.option_strings and action.choices is not None
                         and option.lstrip("-") in action.choices]
            if as_choice:  # --json where the subcommand has --format json
                guesses += as_choice[:1]
            elif owners:  # an option of another subcommand, not a typo of this one's
                elsewhere.append(f"{option} is an option of {', '.join(owners)}")
            else:
                guesses += difflib.get_close_matches(option, known, n=1, cutoff=0.6)
        text = f"; did you mean {' '.join(guesses)}?" if guesses else ""
        return text + "".join(f"; {line}" for line in elsewhere)

    def _chosen(self) -> list[argparse.ArgumentParser]:
        """This parser and the subcommands the last parse chose (all of them when unknown)."""
        parsed = getattr(self, "_parsed", None)
        if parsed is None:
            return self._parsers()
        chosen: list[argparse.ArgumentParser] = [self]
        while True:
            actions = [action for action in chosen[-1]._actions
                       if isinstance(action, argparse._SubParsersAction)]
            name = getattr(parsed, actions[0].dest, None) if actions else None
            if name not in (actions[0].choices if actions else {}):
                return chosen
            chosen.append(actions[0].choices[name])

    def _parsers(self) -> list[argparse.ArgumentParser]:
        """This parser and its subcommands', at every depth (argparse reports their
        leftovers here)."""
        found: list[argparse.ArgumentParser] = [self]
        for parser in found:
            found += [nested for action in parser._actions
                      if isinstance(action, argparse._SubParsersAction)
                      for nested in action.choices.values() if nested not in found]
        return found


def examples(*lines: str) -> str:
    """An epilog of example command lines (shown at the end of ``--help``)."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def integer(text: str) -> int:
    """An integer argument: ASCII digits with an optional sign, nothing else.

    Python's ``int()`` also accepts ``'٣'``, ``'４'`` and ``'4_0'``; a command
    line that means a number should spell it plainly, so these are refused.
    """
    body = text.strip()
    digits = body[1:] if body[:1] in "+-" else body
    if not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"expected an integer (ASCII digits), got "
                                         f"{shown(text, 40)}")
    if len(digits) > 40:  # beyond every size and seed attndepth takes
        raise argparse.ArgumentTypeError(f"expected an integer of at most 40 digits, got "
                                         f"{shown(text, 40)}")
    return int(body)


def non_negative_int(text: str) -> int:
    """An integer argument >= 0 (see :func:`integer`)."""
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value
