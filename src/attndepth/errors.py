"""The errors attndepth raises: one base class, and subclasses users can catch as the
standard types they already know.

=========================  ==========================================  =========
class                      also a                                      CLI exit
=========================  ==========================================  =========
:class:`InvalidParameter`  ``ValueError``: bad input (a size, a        2
                           name, a file that is not what it should be)
:class:`InvalidType`       ``TypeError``: an argument of the wrong     2
                           type
:class:`Overflow`          ``ArithmeticError`` (and ``ValueError``):   2
                           states or numbers beyond float64's range
:class:`MissingExtra`      ``ModuleNotFoundError``: an optional extra  2
                           (``train``, ``search``, ...) not installed
:class:`DamagedStore`      ``ValueError``: a sweep store that cannot   2
                           be read; ``attndepth store recover``
:class:`CheckFailed`       ``ArithmeticError``: a measurement          1
                           contradicting a proved bound
:class:`WorkerDied`        ``RuntimeError``: a sweep worker process    3
                           died (the committed rows are kept)
=========================  ==========================================  =========

Anything else escaping the command line is an internal bug: it prints a short
traceback and asks for a report, exit code 4 (:data:`EXIT_INTERNAL_ERROR`).
This module imports nothing from attndepth, so every layer may import it.
"""

from __future__ import annotations

__all__ = ["AttndepthError", "CheckFailed", "DamagedStore", "InvalidParameter", "InvalidType",
           "MissingExtra", "Overflow", "WorkerDied"]


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
