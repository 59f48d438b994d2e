"""A user's code, contained: time and memory limits, signals and ``os._exit``.

A user's claim, figure or claims file runs inside :func:`user_code`: whatever it
raises (``SystemExit``, a ``BaseException`` subclass, a call of ``os._exit``), a time
limit reached (``SIGALRM``) or an allocation beyond its memory (``RLIMIT_DATA``) is one
:class:`~attndepth.errors.UserCodeFailed` naming it (CLI exit 2); Ctrl-C and
attndepth's own errors pass unchanged. Like :mod:`attndepth.errors`, this module imports
no layer of attndepth.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from attndepth.environment import setting
from attndepth.errors import AttndepthError, UserCodeFailed, describe_exception, shown

__all__ = ["DEFAULT_MEMORY_SHARE", "MEMORY_VARIABLE", "ProcessExitCalled", "no_process_exit",
           "user_code", "user_memory"]


class _TimeLimit(BaseException):
    """Raised by the alarm of :func:`user_code` inside the user's function (a
    BaseException, so that the function's own ``except Exception`` cannot swallow it)."""


class ProcessExitCalled(BaseException):
    """Raised in place of ``os._exit(code)`` while a user's code runs
    (:func:`no_process_exit`): a user's file or function cannot end attndepth's process
    with no word."""

    def __init__(self, code: object) -> None:
        super().__init__(f"called os._exit({shown(code, 20)})")


@contextlib.contextmanager
def no_process_exit() -> Iterator[None]:
    """While the block runs, ``os._exit`` raises :class:`ProcessExitCalled` instead of
    ending the process (restored after; the one path by which :func:`user_code` and the
    loading of a claims file contain a user's ``os._exit``)."""
    real = os._exit

    def refuse(code: object = 0) -> None:
        raise ProcessExitCalled(code)

    os._exit = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = real


@contextlib.contextmanager
def user_code(what: str, seconds: float | None = None) -> Iterator[None]:
    """Run a user's function: whatever it raises — any exception, ``SystemExit`` (also
    ``sys.exit(0)``), a ``BaseException`` subclass, one whose message cannot be
    printed, a call of ``os._exit`` (:func:`no_process_exit`) — becomes one
    :class:`UserCodeFailed` naming ``what``. Ctrl-C
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
        with no_process_exit():
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
    gib = setting(MEMORY_VARIABLE)
    if gib is not None:
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
