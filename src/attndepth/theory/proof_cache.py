"""One computation per proof and process: the ``confirm_*`` checks remembered.

A ``confirm_*`` function is a pure function of its arguments (SymPy or exact
integers, no randomness beyond an explicit seed), and a claim asks it again for
every seed of its sample, every rival and every base seed. :func:`proof_cache`
keeps each answer for the life of the process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

Proof = TypeVar("Proof", bound=Callable[..., Any])


def proof_cache(function: Proof) -> Proof:
    """``functools.lru_cache`` (unbounded, typed) around a ``confirm_*`` check.

    Arguments that cannot be hashed (bad input, a list for an integer) skip the
    cache, so the check's own validation raises its clear error; an error is
    never remembered. ``typed``: ``True`` and ``1`` are different calls, so a
    check that refuses a bool still refuses it after an int of equal value.

    Parameters
    ----------
    function : callable (a check: its answer depends on its arguments alone)

    Returns
    -------
    callable
        The same signature and docstring; ``.cache_clear()`` forgets the answers.
    """
    cached = functools.lru_cache(maxsize=None, typed=True)(function)

    @functools.wraps(function)
    def confirm(*args: Any, **kwargs: Any) -> Any:
        try:
            hash((args, tuple(sorted(kwargs.items()))))
        except TypeError:
            return function(*args, **kwargs)
        return cached(*args, **kwargs)

    confirm.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return cast(Proof, confirm)
