"""The command line's side of output files: reports written whole, and finished results
whose final checkpoint could not be saved (exit 3 after the result is printed)."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator

from attndepth.errors import CheckpointNotSaved
from attndepth.simulations.output_files import OutputFile, OutputKind, output_file, text_kind

#: An earlier ``verify`` report in any of its formats (table, Markdown, LaTeX, JSON, the
#: search's text and JSON): the first thing each writes.
REPORT = text_kind("an attndepth report",
                   r"\s*\{\s*\"preset\"", r"\s*\[\s*(\]|\{\s*\"claim\")", r"\| claim \|",
                   r"\\begin\{tabular\}", r"[A-Z]+ +\S+.*\(\d")
#: An earlier counterexample table (``verify --search --counterexamples``), CSV or JSON.
COUNTEREXAMPLES = text_kind("an attndepth counterexample table", r"claim[,\r\n]",
                            r"\s*\[\s*(\]|\{\s*\"claim\")")


def output_option(path: str | None, kind: OutputKind, option: str,
                  reading: tuple[str | None, ...] = ()) -> OutputFile | None:
    """Check the file an option names (``--out FILE``) before any work.

    Parameters
    ----------
    path : the option's value, or None when the option is not given.
    kind : what an earlier output there looks like (it may be replaced).
    option : the option's name, for the refusal (``"--out"``).
    reading : the command's inputs (never written; None entries skipped).

    Returns
    -------
    OutputFile or None

    Raises
    ------
    InvalidParameter
        The file may not be written; the message names it and how to go on.
    """
    if path is None:
        return None
    return output_file(path, kind, reading=reading,
                       hint=f"choose another file for {option}, or delete it")


def emit(text: str, out: OutputFile | None) -> None:
    """Print ``text`` to stdout, or write it (and a newline) whole to ``out``."""
    if out is None:
        print(text)
    else:
        out.write_text(text + "\n")


@contextlib.contextmanager
def unsaved_checkpoints() -> Iterator[list[str]]:
    """Collect the :class:`~attndepth.errors.CheckpointNotSaved` warnings of the block:
    a finished computation whose final checkpoint could not be written. The caller
    prints its result, then each line on stderr, and exits 3; other warnings pass."""
    lines: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CheckpointNotSaved)
        yield lines
    for warning in caught:
        if issubclass(warning.category, CheckpointNotSaved):
            lines.append(str(warning.message).splitlines()[0])
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)


def report_unsaved(lines: list[str]) -> int:
    """Print the collected lines (one each) on stderr; the exit code: 3 if any, else 0."""
    for line in lines:
        print(f"attndepth: {line}", file=sys.stderr)
    return 3 if lines else 0
