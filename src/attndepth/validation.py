"""Input checks every layer shares (theory, simulations, figures, framework, CLI).

Each check returns the value in its canonical type or raises an attndepth error
(:mod:`attndepth.errors`; a ``ValueError``) naming the parameter, the value it
got and what is allowed, so that the command line prints it as one line. Like
the errors, this module imports nothing of attndepth's layers, and NumPy only
inside the one check of arrays, so that the SymPy-only theory may use it.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

from attndepth.errors import InvalidParameter

if TYPE_CHECKING:
    import numpy as np


def _bounds(minimum: float | None, maximum: float | None) -> str:
    """`` >= 1``, `` <= 9``, `` from 1 to 9`` or nothing: the range in a message."""
    if minimum is not None and maximum is not None:
        return f" from {minimum} to {maximum}"
    if minimum is not None:
        return f" >= {minimum}"
    return f" <= {maximum}" if maximum is not None else ""


def check_int(name: str, value: object, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """``value`` as an ``int`` in ``[minimum, maximum]``, or an error naming ``name``.

    Parameters
    ----------
    name : the parameter, for the message.
    value : an integer (a NumPy integer, or a float with an integral value, counts);
        ``True`` is not a width: booleans are refused.
    minimum, maximum : the inclusive range (None: unbounded).

    Returns
    -------
    int

    Raises
    ------
    InvalidParameter
        ``value`` is not an integer or lies outside the range; the message states
        the range (``"depth must be an integer >= 0, got -1"``).
    """
    wanted = f"{name} must be an integer{_bounds(minimum, maximum)}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        else:
            raise InvalidParameter(f"{wanted}, got {value!r}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise InvalidParameter(f"{wanted}, got {value}")
    return value


def check_optional_int(name: str, value: object, minimum: int | None = None,
                       maximum: int | None = None) -> int | None:
    """None, or :func:`check_int` of ``value`` (``"window must be None or an integer
    >= 1, ..."``)."""
    if value is None:
        return None
    try:
        return check_int(name, value, minimum, maximum)
    except InvalidParameter as error:
        raise InvalidParameter(str(error).replace(" must be ", " must be None or ", 1)) from None


def check_bool(name: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False`` (not 0, 1 or a string)."""
    if not isinstance(value, bool):
        raise InvalidParameter(f"{name} must be True or False, got {value!r}")
    return value


#: The largest saturation margin: the failure probability of a saturated rank is already
#: astronomically small at the default 8; a larger margin only grows every grid.
MAX_MARGIN = 1024


def check_margin(margin: object) -> int:
    """A saturation margin (saturation needs rank ≤ grid − margin): an integer from 1 to
    :data:`MAX_MARGIN`. A larger one would grow every grid to ``max_points``, an hour of
    work for a lower bound that a smaller margin certifies as well.

    Raises
    ------
    InvalidParameter
    """
    return check_int("margin", margin, minimum=1, maximum=MAX_MARGIN)


def check_real(name: str, value: object, minimum: float | None = None,
               maximum: float | None = None, strict_minimum: bool = False) -> float:
    """Return ``value`` as a finite ``float`` or raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameter(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise InvalidParameter(f"{name} must be finite, got {value}")
    if minimum is not None:
        if strict_minimum and value <= minimum:
            raise InvalidParameter(f"{name} must be > {minimum}, got {value}")
        if not strict_minimum and value < minimum:
            raise InvalidParameter(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InvalidParameter(f"{name} must be <= {maximum}, got {value}")
    return value


def check_positive(name: str, value: object) -> float:
    """``value`` as a finite ``float`` > 0 (:func:`check_real` with a strict minimum 0)."""
    return check_real(name, value, minimum=0, strict_minimum=True)


def check_seconds(name: str, value: object) -> float:
    """A time limit in seconds: a number > 0; ``math.inf`` is no limit (NaN is refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) > 0:
        raise InvalidParameter(f"{name} must be a number of seconds > 0 (inf: no limit), "
                               f"got {value!r}")
    return float(value)


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``allowed`` or raise ``ValueError``."""
    if value not in allowed:
        raise InvalidParameter(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return str(value)


def check_finite_array(name: str, array: object, ndim: int | None = None) -> np.ndarray:
    """Return ``array`` as a float64 array, rejecting NaN/inf and wrong ``ndim``."""
    import numpy as np

    try:
        array = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InvalidParameter(f"{name} must be a numeric array: {error}") from None
    if ndim is not None and array.ndim != ndim:
        raise InvalidParameter(f"{name} must have {ndim} dimensions, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise InvalidParameter(f"{name} must contain only finite values")
    return array


def check_seed(name: str, value: object) -> int:
    """A seed for ``numpy.random.SeedSequence``: a non-negative integer."""
    return check_int(name, value, minimum=0, maximum=2**63 - 1)


#: Largest array (in elements) a public function will allocate: 2^28 float64 = 2 GiB.
MAX_ELEMENTS = 2**28


def check_size(what: str, elements: int, limit: int = MAX_ELEMENTS) -> None:
    """Reject requests whose arrays would exceed ``limit`` elements, before allocating."""
    if elements > limit:
        raise InvalidParameter(f"{what} needs {_magnitude(elements)} array elements, more "
                               f"than the {limit:.3g} allowed ({limit * 8 / 2**30:.3g} GiB of "
                               f"float64); use smaller sizes")


def _magnitude(count: int | float) -> str:
    """A count for a message, however large (``{:.3g}`` of an int past float64 raises)."""
    try:
        return f"{float(count):.3g}"
    except OverflowError:
        return f"about 10^{len(str(int(count))) - 1}"
