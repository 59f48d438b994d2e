"""What a rank measurement may spend, checked once before the work: its time and its inputs.

Every method that can run for hours (the degree blocks, the torus classes)
estimates its time from its grid sizes and refuses up front, with one message,
when the estimate exceeds the caller's ``max_seconds``
(:func:`refuse_over_budget`); memory is checked by
:func:`attndepth.validation.check_size` against the same 2 GiB guard everywhere.
The checks the per-block methods share (the configuration, the block bounds,
the progress flag) are here too, so that each method states only what is its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.rank.grids import SeparationRankConfig
from attndepth.validation import check_bool, check_int, check_seconds

#: Estimated seconds beyond which the per-block methods refuse up front (``max_seconds``
#: lifts it): 20 estimated minutes were at most about ten measured where calibrated
#: (:data:`attndepth.rank.degree_blocks.SECONDS_PER_PAIR_SCALE`).
MAX_BLOCK_SECONDS = 1200.0


def format_duration(seconds: float) -> str:
    """``45 s``, ``12 min`` or ``3.6 h``: an estimate as the refusals print it."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def refuse_over_budget(work: str, estimate: float, max_seconds: object) -> float:
    """Refuse ``work`` up front when its estimated time exceeds ``max_seconds``.

    Parameters
    ----------
    work : what would run, as the message names it ("the 14 degree blocks (largest
        4096² points)").
    estimate : its estimated seconds on this machine.
    max_seconds : the limit (``math.inf``: none), checked.

    Returns
    -------
    float, the checked limit.

    Raises
    ------
    InvalidParameter
        When the estimate exceeds the limit, saying how to get a lower bound instead.
    """
    limit = check_seconds("max_seconds", max_seconds)
    if estimate > limit:
        raise InvalidParameter(
            f"{work} would take about {format_duration(estimate)} here, more than the limit "
            f"of {format_duration(limit)}; lower max_points (--max-points) for a lower "
            f"bound, or raise max_seconds (--max-seconds) if you mean it")
    return limit


def check_block_case(config: object, bounds: object, method: str, *,
                     one_head: bool = False) -> list[int]:
    """The checks a per-degree-block method opens with: ``config`` a
    :class:`~attndepth.rank.grids.SeparationRankConfig` with ρ = 0 (and one head for the
    torus split), ``bounds`` K + 1 positive integers, one per degree block a = 0 … K.

    Parameters
    ----------
    config : the network and partition.
    bounds : the proved bound of each block
        (:func:`attndepth.theory.separation_rank.degree_block_bounds`).
    method : the method's name, for the messages.
    one_head : whether the method needs H = 1.

    Returns
    -------
    list of int, the bounds.
    """
    if not isinstance(config, SeparationRankConfig):
        raise InvalidType(f"config must be a SeparationRankConfig, got {type(config).__name__}")
    if config.residual != 0 or (one_head and config.heads != 1):
        needs = "one head and residual = 0" if one_head else "residual = 0"
        raise InvalidParameter(
            f"the {method} method needs {needs}, got heads = {config.heads} and residual = "
            f"{config.residual} (with rho = 1 f has parts of every degree and the blocks are "
            f"triangular, not diagonal; the exact method measures any network)")
    degree = (3 ** config.depth - 1) // 2
    if isinstance(bounds, str | bytes) or not isinstance(bounds, Sequence) \
            or len(bounds) != degree + 1:
        raise InvalidParameter(f"bounds must list K + 1 = {degree + 1} block bounds "
                               f"(a = 0 … K), got {bounds!r}")
    return [check_int("bound", bound, minimum=1) for bound in bounds]


def check_progress(progress: object) -> bool:
    """``progress`` is True or False (a tqdm bar after 2 s, or none)."""
    return check_bool("progress", progress)
