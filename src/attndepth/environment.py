"""The environment variables attndepth reads, each parsed and checked here, in one place.

Every variable is declared once in :data:`VARIABLES` (its name, what it sets, its
parser); library code reads a value through :func:`setting`, and the command line
checks every variable that is set with :func:`check_environment` before any work, so a
bad value is one line naming the variable and exit 2, whichever command runs (a value
is echoed shortened). Like :mod:`attndepth.errors`, this module imports no layer.

``ATTNDEPTH_THREADS``
    threads attndepth starts: an integer from 1 to 64
``ATTNDEPTH_CLAIM_SECONDS``
    time limit of one call of a user's verify function: seconds, > 0 and at most a day
``ATTNDEPTH_CLAIM_MEMORY``
    memory one call of a user's function may allocate: GiB, > 0
``ATTNDEPTH_DOMAIN_RECORD``
    a domain record read beside the shipped one: a path
``ATTNDEPTH_TORCH_DEVICE``
    the device of the PyTorch models: ``cpu``, ``cuda`` or ``cuda:N`` (N < 1000)

Two variables of other programs are read or set here too: ``XDG_CACHE_HOME`` (where
attndepth keeps its cache, :func:`cache_folder`) and hypothesis's
``HYPOTHESIS_STORAGE_DIRECTORY`` (:func:`keep_hypothesis_files_in_cache`). A worker
process that takes a share of the machine sets its own values with :func:`set_here`.
No other module of attndepth reads or writes ``os.environ``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attndepth.errors import InvalidParameter, shown

#: The most threads: FLINT refuses more than 64 (an assertion inside python-flint).
MAX_THREADS = 64
#: The largest claim time limit the variable may set (a day).
MAX_CLAIM_SECONDS = 86400.0


@dataclass(frozen=True)
class Variable:
    """One environment variable.

    Attributes
    ----------
    name : the variable.
    wanted : what it must hold, in words (for the refusal).
    parse : ``text -> value``; raises ValueError when the text is not such a value.
    """

    name: str
    wanted: str
    parse: Callable[[str], Any]


def _threads(text: str) -> int:
    text = text.strip()
    # ASCII digits only (str.isdigit() also accepts '٣' and '²'), at most two of them
    if not (text.isascii() and text.isdigit() and len(text) <= 2) \
            or not 1 <= int(text) <= MAX_THREADS:
        raise ValueError(text)
    return int(text)


def _positive(maximum: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        text = text.strip()
        value = float(text) if len(text) <= 20 else math.nan
        if not 0 < value <= maximum:  # NaN too
            raise ValueError(text)
        return value

    return parse


def _path(text: str) -> str:
    if not text or "\x00" in text or len(text) > 4096:
        raise ValueError(text)
    return text


#: A torch device attndepth runs on: ``cpu``, ``cuda`` or ``cuda:N`` (N < 1000).
DEVICE = re.compile(r"cpu|cuda(:(0|[1-9][0-9]{0,2}))?")


def _device(text: str) -> str:
    if not DEVICE.fullmatch(text):
        raise ValueError(text)
    return text


#: Every variable attndepth reads: name -> Variable.
VARIABLES: dict[str, Variable] = {v.name: v for v in (
    Variable("ATTNDEPTH_THREADS", f"an integer from 1 to {MAX_THREADS}", _threads),
    Variable("ATTNDEPTH_CLAIM_SECONDS",
             f"a number of seconds > 0 and <= {MAX_CLAIM_SECONDS:g}",
             _positive(MAX_CLAIM_SECONDS)),
    Variable("ATTNDEPTH_CLAIM_MEMORY", "a number of GiB > 0", _positive(2.0**40)),
    Variable("ATTNDEPTH_DOMAIN_RECORD", "the path of a domain record", _path),
    Variable("ATTNDEPTH_TORCH_DEVICE", "cpu, cuda or cuda:N (N < 1000)", _device),
)}


def setting(name: str) -> Any:
    """The value of variable ``name``, parsed (None when unset).

    Raises
    ------
    InvalidParameter
        The variable is set to a value it cannot take; the message names it, says
        what it must hold and echoes the value shortened.
    """
    variable = VARIABLES[name]
    text = os.environ.get(name)
    if text is None:
        return None
    try:
        return variable.parse(text)
    except ValueError:
        raise InvalidParameter(f"{name} must be {variable.wanted}, got {shown(text, 40)}") \
            from None


def set_here(name: str, value: object) -> None:
    """Set variable ``name`` to ``value`` in this process (and the processes it starts),
    checked as :func:`setting` checks it: a worker's share of the threads or memory.

    Raises
    ------
    InvalidParameter
        ``value`` is not one the variable can take.
    """
    variable = VARIABLES[name]
    text = str(value)
    try:
        variable.parse(text)
    except ValueError:
        raise InvalidParameter(f"{name} must be {variable.wanted}, got {shown(text, 40)}") \
            from None
    os.environ[name] = text


def is_set(name: str) -> bool:
    """Whether variable ``name`` is set (to anything)."""
    return name in os.environ


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/attndepth`` (default ``~/.cache/attndepth``): attndepth's cache."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attndepth"


def keep_hypothesis_files_in_cache() -> None:
    """Hypothesis keeps its files in :func:`cache_folder` unless the user named a place
    (``HYPOTHESIS_STORAGE_DIRECTORY``; hypothesis's default is the current directory)."""
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY",
                          str(cache_folder() / "hypothesis-storage"))


def check_environment() -> None:
    """Parse every variable that is set (:func:`setting`): the command line's door.

    Raises
    ------
    InvalidParameter
        The first variable set to a value it cannot take.
    """
    for name in VARIABLES:
        setting(name)
