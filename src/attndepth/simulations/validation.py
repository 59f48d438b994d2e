"""Input checks shared by the public functions of ``simulations``.

Every check raises ``ValueError`` naming the parameter, the value it got and
what is allowed, so that the CLI can print it as one line.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from attndepth.errors import InvalidParameter


def check_int(name: str, value: object, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` or raise ``ValueError``.

    Booleans and non-integral numbers are rejected (``True`` is not a width).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        else:
            raise InvalidParameter(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise InvalidParameter(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InvalidParameter(f"{name} must be <= {maximum}, got {value}")
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


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``allowed`` or raise ``ValueError``."""
    if value not in allowed:
        raise InvalidParameter(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return str(value)


def check_finite_array(name: str, array: object, ndim: int | None = None) -> np.ndarray:
    """Return ``array`` as a float64 array, rejecting NaN/inf and wrong ``ndim``."""
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
