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

Anything else escaping the command line is an internal bug: it prints a short
traceback and asks for a report, exit code 4
(``attndepth.cli.main.EXIT_INTERNAL_ERROR``).
This module imports nothing from attndepth, so every layer may import it.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator

__all__ = ["AttndepthError", "CheckFailed", "CheckpointNotSaved", "DamagedStore", "DiskFull",
           "InvalidParameter", "InvalidType", "MissingExtra", "OutputFailed", "Overflow",
           "UserCodeFailed", "WorkerDied", "describe_exception", "user_code", "user_memory"]


class AttndepthError(Exception):
    """Base of every error attndepth raises on purpose."""


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


class _TimeLimit(BaseException):
    """Raised by the alarm of :func:`user_code` inside the user's function (a
    BaseException, so that the function's own ``except Exception`` cannot swallow it)."""


@contextlib.contextmanager
def user_code(what: str, seconds: float | None = None) -> Iterator[None]:
    """Run a user's function: whatever it raises — any exception, ``SystemExit`` (also
    ``sys.exit(0)``), a ``BaseException`` subclass, one whose message cannot be
    printed — becomes one :class:`UserCodeFailed` naming ``what``. Ctrl-C
    (``KeyboardInterrupt``) still stops the run, and attndepth's own errors raised
    on behalf of the user's code pass unchanged.

    Parameters
    ----------
    what : the function, for the message (``"claim 'mine.rate'"``).
    seconds : a time limit (wall clock). It is enforced with ``SIGALRM`` in the main
        thread of a process (the CLI, a sweep's worker processes); elsewhere (a
        thread) it is not, and the function runs to its end. None: no limit.

    Notes
    -----
    Memory is bounded too, in the main thread of a process on Linux: while the
    function runs, the process may map at most :func:`user_memory` bytes of data
    beyond what it held before (``RLIMIT_DATA``), so an allocation without bound
    fails with a ``MemoryError`` (one :class:`UserCodeFailed`) instead of drawing
    the machine's out-of-memory killer.
    """
    import signal
    import threading

    main_thread = threading.current_thread() is threading.main_thread()
    timed = seconds is not None and hasattr(signal, "setitimer") and main_thread
    memory = _limit_memory() if main_thread else None
    if timed and seconds is not None:
        def alarm(signum: int, frame: object) -> None:
            raise _TimeLimit

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except (KeyboardInterrupt, AttndepthError):
        raise
    except _TimeLimit:
        raise UserCodeFailed(f"{what} ran longer than its limit of {seconds:g} s "
                             f"(ATTNDEPTH_CLAIM_SECONDS)") from None
    except MemoryError:
        raise UserCodeFailed(f"{what} raised MemoryError: it allocated more than its "
                             f"{user_memory() / 2**30:.3g} GiB (ATTNDEPTH_CLAIM_MEMORY)"
                             ) from None
    except BaseException as error:  # noqa: BLE001 - user code: contained, never fatal
        raise UserCodeFailed(f"{what} raised {describe_exception(error)}") from None
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        if memory is not None:
            _restore_memory(memory)


#: Environment variable: the memory (GiB) one call of a user's function may allocate
#: beyond what the process holds; default :data:`DEFAULT_MEMORY_SHARE` of the machine's.
MEMORY_VARIABLE = "ATTNDEPTH_CLAIM_MEMORY"
DEFAULT_MEMORY_SHARE = 0.8


def user_memory() -> int:
    """Bytes one call of a user's function may allocate: ``$ATTNDEPTH_CLAIM_MEMORY`` GiB
    (a number > 0), or :data:`DEFAULT_MEMORY_SHARE` of the machine's physical memory.

    Raises
    ------
    InvalidParameter
        The variable is set to anything but a number of GiB > 0.
    """
    setting = os.environ.get(MEMORY_VARIABLE)
    if setting is not None:
        text = setting.strip()
        try:
            gib = float(text) if len(text) <= 20 else math.nan
        except ValueError:
            gib = math.nan
        if not 0 < gib < 2**40:  # NaN too
            shown = setting if len(setting) <= 40 else setting[:40] + "..."
            raise InvalidParameter(f"{MEMORY_VARIABLE} must be a number of GiB > 0, got "
                                   f"{shown!r}")
        return int(gib * 2**30)
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 2**40
    return int(DEFAULT_MEMORY_SHARE * physical)


def _data_bytes() -> int | None:
    """The data this process has mapped (Linux ``VmData``), or None where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _limit_memory() -> tuple[int, int] | None:
    """Lower ``RLIMIT_DATA`` to the data held now plus :func:`user_memory`; the previous
    (soft, hard) limits, or None where nothing was changed."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    held = _data_bytes()
    if held is None:
        return None
    previous = resource.getrlimit(resource.RLIMIT_DATA)
    soft, hard = previous
    wanted = held + user_memory()
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            wanted = min(wanted, bound)
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))
    except (ValueError, OSError):
        return None
    return previous


def _restore_memory(previous: tuple[int, int]) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_DATA, previous)
