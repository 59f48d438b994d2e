"""What a verify function returned, made plain and checked: an Outcome, with the values
its estimates read, finite where a user's claim compares them."""

from __future__ import annotations

from typing import Any

import numpy as np

from attndepth.errors import (
    InvalidParameter,
    InvalidType,
    UserCodeFailed,
)
from attndepth.framework.model import Claim, Outcome
from attndepth.framework.registry import is_users
from attndepth.framework.verdicts import DECIDED


def plain_return(returned: Any, batched: bool) -> Any:
    """What a user's verify function returned, as plain data: a batched return as a list,
    each Outcome with text fields and plain values (:func:`_plain`). Called inside the
    user's containment (:func:`attndepth.sandbox.user_code`), so that whatever the user's
    objects raise when read (``__len__``, ``__iter__``, ``__float__``, ``__str__``) is
    the claim's failure, the same on every path (verify, search, map, the plugin, the
    pool); a return that is not an Outcome is left for :func:`check_outcome` to refuse."""
    if batched and not isinstance(returned, (str, bytes)) and hasattr(returned, "__len__"):
        returned = list(returned)
        return [_plain_outcome(outcome) for outcome in returned]
    return _plain_outcome(returned)


def _plain_outcome(outcome: Any) -> Any:
    if type(outcome) is not Outcome:
        return outcome
    values = {str(key): _plain(value, 0) for key, value in dict(outcome.values).items()}
    return Outcome(str(outcome.predicted), str(outcome.measured), outcome.verdict,
                   str(outcome.note), values)


#: How deep :func:`_plain` follows lists and dicts in a user's values.
_PLAIN_DEPTH = 8


def _plain(value: Any, depth: int) -> Any:
    """``value`` with numbers read as Python numbers and containers as lists and dicts."""
    if depth > _PLAIN_DEPTH:
        raise InvalidParameter(f"Outcome.values is nested deeper than {_PLAIN_DEPTH} levels")
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {str(key): _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item, depth + 1) for item in value)
    if isinstance(value, np.integer):
        return int(value)
    if hasattr(value, "__float__"):
        return float(value)
    return value


def check_outcome(found: Claim, outcome: Any) -> None:
    """One outcome of the claim's verify function, refused unless usable (see
    :func:`attndepth.framework.running._sample`)."""
    if not isinstance(outcome, Outcome):
        raise InvalidType(f"claim {found.id!r}: its verify function returned "
                          f"{type(outcome).__name__}, not an Outcome (return "
                          f"attndepth.Outcome(predicted, measured, verdict, ...))")
    if outcome.verdict is None or outcome.verdict in DECIDED:
        missing = [key for e in found.estimates
                   for key in (e.measured, e.predicted, e.decidable)
                   if key is not None and key not in outcome.values]
        if outcome.verdict is None:  # the framework judges: every check must be there
            missing += [c.key for c in found.checks if c.key not in outcome.values]
        if missing:
            raise InvalidParameter(f"claim {found.id!r}: its estimates or checks read "
                                   f"Outcome.values {sorted(set(missing))}, which the "
                                   f"verify function did not return")
        for check in found.checks if outcome.verdict is None else ():
            value = outcome.values[check.key]
            wanted: tuple[type, ...] = ((int, float, np.integer, np.floating) if check.bounded
                                        else (bool, np.bool_))
            if value is not None and (not isinstance(value, wanted) or check.bounded
                                      and isinstance(value, (bool, np.bool_))):
                raise InvalidType(f"claim {found.id!r}: Outcome.values[{check.key!r}] (a "
                                  f"check) must be "
                                  f"{'a number' if check.bounded else 'True or False'} or "
                                  f"None, got {type(value).__name__}")
        for estimate in found.estimates:
            if (estimate.decidable is not None
                    and not isinstance(outcome.values[estimate.decidable], (bool, np.bool_))):
                raise InvalidType(f"claim {found.id!r}: Outcome.values"
                                  f"[{estimate.decidable!r}] (the estimate's decidable) must "
                                  f"be True or False, got "
                                  f"{type(outcome.values[estimate.decidable]).__name__}")
        if is_users(found):
            _refuse_non_finite(found, outcome)


def _refuse_non_finite(found: Claim, outcome: Outcome) -> None:
    """A user's estimate compares a NaN or an infinite number (or text): an error naming
    the value, never an ``inconclusive`` verdict drawn from what is left."""
    for estimate in found.estimates:
        for key in (estimate.measured, estimate.predicted):
            try:
                numbers = np.asarray(outcome.values[key], dtype=float)
            except (TypeError, ValueError):
                raise UserCodeFailed(f"claim {found.id!r}: Outcome.values[{key!r}] is not a "
                                     f"number or a list of numbers") from None
            bad = numbers.ravel()[~np.isfinite(numbers.ravel())]
            if bad.size:
                raise UserCodeFailed(f"claim {found.id!r}: Outcome.values[{key!r}] holds "
                                     f"{bad[0]}; a prediction or measurement must be finite")
