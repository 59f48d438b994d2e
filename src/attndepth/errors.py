"""The errors attndepth raises: one base class, and subclasses users can catch as the
standard types they already know.

* :class:`InvalidParameter`, also a ``ValueError``: bad input (a size, a name,
  a file that is not what it should be). CLI exit 2.
* :class:`InvalidType`, also a ``TypeError``: an argument of the wrong type.
  CLI exit 2.
* :class:`Overflow`, also an ``ArithmeticError`` and a ``ValueError``: states or
  numbers beyond float64's range. CLI exit 2.
* :class:`MissingExtra`, also a ``ModuleNotFoundError``: an optional extra
  (``train``, ``search``, ...) that is not installed. CLI exit 2.
* :class:`DamagedStore`, also a ``ValueError``: a sweep store that cannot be
  read (``attndepth store recover`` copies what is left). CLI exit 2.
* :class:`CheckFailed`, also an ``ArithmeticError``: a measurement contradicting
  a proved bound. CLI exit 1.
* :class:`UserCodeFailed`, also a ``RuntimeError``: a user's claim or figure
  function raised (any exception, ``SystemExit`` and ``BaseException``
  subclasses included), ran past its time limit, or returned a non-finite
  number where a number is compared; the message names the claim. CLI exit 2.
* :class:`WorkerDied`, also a ``RuntimeError``: a sweep worker process died (the
  committed rows are kept). CLI exit 3.
* :class:`OutputFailed`, also an ``OSError``: a file could not be written (an
  I/O error, a file system turned read-only) while the work it holds is kept:
  the file is left as it was, a checkpoint at its last good state. CLI exit 3:
  the run was stopped by its environment, and the same command continues it.
* :class:`DiskFull`, an ``OutputFailed``: the disk filled up (a sweep store's
  committed rows, a checkpoint's last good state are kept). CLI exit 3, and the
  same command continues once there is room.

:class:`CheckpointNotSaved` is a warning, not an error: a computation finished and
returned its result, but its final checkpoint could not be written (the CLI
prints the result, then exits 3).

A user's code runs contained (:mod:`attndepth.sandbox`): whatever it raises is one
:class:`UserCodeFailed`.

Anything else escaping the command line is an internal bug: it prints a short
traceback and asks for a report, exit code 4
(``attndepth.cli.main.EXIT_INTERNAL_ERROR``).
This module imports nothing from attndepth, so every layer may import it.
"""

from __future__ import annotations

import os
import re

__all__ = ["AttndepthError", "CheckFailed", "CheckpointNotSaved", "DamagedStore", "DiskFull",
           "InvalidParameter", "InvalidType", "MissingExtra", "OutputFailed", "Overflow",
           "UserCodeFailed", "WorkerDied", "describe_exception", "shorten_quoted",
           "shorten_long_words", "shown", "shown_path"]


class AttndepthError(Exception):
    """Base of every error attndepth raises on purpose.

    Its message is one a terminal can show: every word over 200 characters (a path in a
    deep folder, an echoed value) is cut in its middle, keeping both ends — a file's name
    stays named (:func:`shorten_long_words`)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        if args and isinstance(args[0], str):
            args = (shorten_long_words(args[0]), *args[1:])
        super().__init__(*args, **kwargs)
        if isinstance(self, OSError) and args:
            self.args = args  # OSError keeps the args its __new__ was given


class InvalidParameter(AttndepthError, ValueError):
    """A parameter value the function cannot take (bad input)."""


class InvalidType(AttndepthError, TypeError):
    """An argument of the wrong type (bad input)."""


class Overflow(AttndepthError, ArithmeticError, ValueError):
    """States or numbers beyond the range of the floating-point type in use."""


class MissingExtra(AttndepthError, ModuleNotFoundError):
    """An optional extra that is not installed; the message says how to install it."""


class DamagedStore(AttndepthError, ValueError):
    """A sweep store that cannot be read as a store."""


class CheckFailed(AttndepthError, ArithmeticError):
    """A measurement that contradicts a proved bound: a bug or a damaged computation."""


class WorkerDied(AttndepthError, RuntimeError):
    """A worker process of a sweep died; the rows it committed are kept."""


class OutputFailed(AttndepthError, OSError):
    """A file could not be written; it was left as it was, and the work is kept (CLI exit 3)."""


class DiskFull(OutputFailed):
    """The disk is full; every row committed or checkpoint saved before is kept (CLI exit 3)."""


class CheckpointNotSaved(UserWarning):
    """A finished computation's final checkpoint could not be written; its result is
    returned all the same (nothing computed is lost), and a rerun computes it again."""


class UserCodeFailed(AttndepthError, RuntimeError):
    """A user's claim or figure function raised, ran too long or returned a non-finite
    number; the message names it (CLI exit 2)."""


def shown(value: object, limit: int = 60, *, quote: bool = True) -> str:
    """``value`` as a message echoes it: ``repr`` (``str`` with ``quote=False``), cut to
    ``limit`` characters with the length said (``'aaaa…' (100,000 characters)``), so
    that no input, however long, floods a one-line error."""
    try:
        if isinstance(value, int) and not isinstance(value, bool) and \
                value.bit_length() > 4 * limit:
            return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
        text = repr(value) if quote else str(value)
    except Exception:  # noqa: BLE001 - a user's __repr__ may do anything
        return f"(a {type(value).__name__} that cannot be printed)"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def _cut_middle(text: str, limit: int) -> str:
    """``text`` with its middle cut to fit ``limit`` characters, both ends kept."""
    head = limit // 4
    return f"{text[:head]}…{text[len(text) - (limit - head):]} ({len(text):,} characters)"


def shown_path(path: str | os.PathLike[str], limit: int = 160) -> str:
    """``path`` as a message names it: whole up to ``limit`` characters, else its middle
    cut, so that a long folder never hides the file's own name (``/tmp/ab…/cd/x.json
    (231 characters)``)."""
    text = os.fsdecode(path)
    return text if len(text) <= limit else _cut_middle(text, limit)


#: A quoted value in a message, longer than a message should show.
_LONG_QUOTED = re.compile(r"""(['"])([^'"]{60})([^'"]{20,})\1""")
#: An unquoted word (a path, a number) longer than a message should show.
_LONG_WORD = re.compile(r"\S{200,}")


def shorten_quoted(message: str) -> str:
    """``message`` with every quoted value over 80 characters cut as :func:`shown` cuts
    them, and every word over 200 cut in the middle as :func:`shown_path` cuts it (a
    path keeps its file's name): the command line's last word on any message, whoever
    wrote it (an ``OSError`` naming a path of 5,000 characters too)."""
    message = _LONG_QUOTED.sub(
        lambda m: f"{m[1]}{m[2]}…{m[1]} ({len(m[2]) + len(m[3]):,} characters)", message)
    return shorten_long_words(message)


#: A word's quotes and brackets before it, and its quotes, brackets and punctuation after.
_WORD_PARTS = re.compile(r"""(["'(\[]*)(.*?)(["')\],;:.!?]*)""", re.DOTALL)


def shorten_long_words(message: str) -> str:
    """``message`` with every word over 200 characters cut in its middle to about 80
    (:func:`shown_path`; its quotes and punctuation kept): a long path keeps its file's
    name, ``'xxx…xxx'; (100,000 characters)``."""
    def cut(match: re.Match[str]) -> str:
        parts = _WORD_PARTS.fullmatch(match[0])
        lead, core, trail = parts.groups() if parts else ("", match[0], "")
        shortened, count = _cut_middle(core, 80).rsplit(" (", 1)
        return f"{lead}{shortened}{trail} ({count}"

    return _LONG_WORD.sub(cut, message)


def describe_exception(error: BaseException) -> str:
    """``Type: first line of the message``, even for an exception whose ``__str__``
    raises or returns something other than text."""
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001 - a user's __str__ may do anything
        text = "(its message could not be printed)"
    if not isinstance(text, str):
        text = "(its message is not text)"
    first = text.splitlines()[0] if text.strip() else ""
    return f"{type(error).__name__}: {first}" if first else type(error).__name__
