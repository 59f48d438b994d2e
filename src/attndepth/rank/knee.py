"""Where ln sep stops growing like 3^L: the knee, decided from certified ranks and proved bounds.

The knee of a regime (width d, |P| = |Q| = q) is the first depth κ whose next
layer no longer squares the separation rank:

    κ = min{L ≥ 1 : sep(L + 1) < sep(L)²},  i.e.  ln sep(L+1) / ln sep(L) < 2.

Below Levine et al.'s threshold ln sep ≈ 3^L·c and the ratio is about 3;
above it ln sep grows linearly in L and the ratio falls towards 1; 2 splits
the two. The paper puts the threshold at L_th = log₃ d (§4).

Deciding κ needs no exact rank beyond what it uses. With a certified lower
bound lo(L) (a GF(p) rank, possibly on capped grids) and a proved upper bound
hi(L) (bound (d)) at every depth,

    ratio(L) ≥ ln lo(L+1) / ln hi(L)   and   ratio(L) ≤ ln hi(L+1) / ln lo(L),

so κ is **decided** when every L < κ has lo(L+1) ≥ hi(L)² and
hi(κ+1) < lo(κ)². Only lo(κ) has to be large; the ranks of deeper networks are
never needed. Where a bracket straddles 2 the knee is reported undecided with
the depths it can still take.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from attndepth.errors import InvalidParameter
from attndepth.rank.budget import MAX_BLOCK_SECONDS
from attndepth.rank.degree_blocks import measure_block_ranks
from attndepth.rank.grids import DEFAULT_MARGIN, SeparationRankConfig
from attndepth.rank.knee_certificates import (
    KneeCertificate,
    certificate_command,
    shipped_certificate,
)
from attndepth.rank.torus_blocks import (
    DEFAULT_CLASS_POINTS,
    DEFAULT_ORDER,
    MAX_CLASS_POINTS,
    MAX_CLASSES,
    MAX_ORDER,
    class_bounds,
    estimated_seconds,
    make_torus,
    measure_torus_ranks,
    torus_prime,
)
from attndepth.simulations.version import TOOLKIT_VERSION
from attndepth.validation import check_int

#: The growth ratio ln sep(L+1) / ln sep(L) that splits doubly exponential (≈ 3)
#: from exponential (→ 1) growth.
KNEE_RATIO = 2.0


@dataclass(frozen=True)
class KneeDecision:
    """The knee of one regime and how it is established.

    Attributes
    ----------
    knee : κ when decided, else None.
    earliest, latest : the depths κ can still take (equal when decided;
        ``latest`` None when no depth in the data has a ratio surely below 2).
    ratio_low, ratio_high : the bracket of ln sep(L+1)/ln sep(L), L = 1, 2, ….
    """

    knee: int | None
    earliest: int
    latest: int | None
    ratio_low: tuple[float, ...]
    ratio_high: tuple[float, ...]

    @property
    def decided(self) -> bool:
        return self.knee is not None


def decide_knee(lower: Sequence[int], upper: Sequence[int]) -> KneeDecision:
    """Decide κ from certified lower bounds and proved upper bounds of sep(L), L = 1, 2, ….

    Parameters
    ----------
    lower, upper : sep bounds at depths 1 … n (index 0 is L = 1), each ≥ 2 and
        lower[k] ≤ upper[k]. A depth not measured can pass lower = 2.

    Returns
    -------
    KneeDecision
    """
    if len(lower) != len(upper) or len(lower) < 2:
        raise InvalidParameter(f"lower and upper must list the same depths (at least 2), got "
                               f"{len(lower)} and {len(upper)}")
    for depth, (lo, hi) in enumerate(zip(lower, upper, strict=True), start=1):
        if isinstance(lo, bool) or isinstance(hi, bool) or not isinstance(lo, int) \
                or not isinstance(hi, int) or not 2 <= lo <= hi:
            raise InvalidParameter(f"depth {depth}: need integers 2 <= lower <= upper, got "
                                   f"{lo!r} and {hi!r}")
    ratio_low = tuple(math.log(lower[k + 1]) / math.log(upper[k]) for k in range(len(lower) - 1))
    ratio_high = tuple(math.log(upper[k + 1]) / math.log(lower[k])
                       for k in range(len(lower) - 1))
    earliest = latest = None
    for depth, (low, high) in enumerate(zip(ratio_low, ratio_high, strict=True), start=1):
        if earliest is None and low < KNEE_RATIO:
            earliest = depth  # the first depth whose ratio may be below 2
        if high < KNEE_RATIO:
            latest = depth  # the first depth whose ratio is surely below 2
            break
    earliest = earliest if earliest is not None else len(ratio_low) + 1
    knee = latest if latest is not None and earliest == latest else None
    return KneeDecision(knee=knee, earliest=earliest, latest=latest, ratio_low=ratio_low,
                        ratio_high=ratio_high)


def required_lower(upper: Sequence[int], knee: int) -> list[int]:
    """The certified ranks that decide ``knee`` when the upper bounds are ``upper``.

    lo(L) ≥ hi(L−1)² for 2 ≤ L ≤ κ (each step before the knee squares at least),
    and lo(κ) > √hi(κ+1) (the step after it surely does not); lo(1) needs nothing
    beyond 2. Index 0 is L = 1.
    """
    if not 1 <= knee < len(upper):
        raise InvalidParameter(f"knee must lie in 1 … {len(upper) - 1}, got {knee}")
    needed = [2] * knee
    for depth in range(2, knee + 1):
        needed[depth - 1] = upper[depth - 2] ** 2
    needed[knee - 1] = max(needed[knee - 1], math.isqrt(upper[knee]) + 1)
    return needed


def grid_cap(block_bounds: Sequence[int], needed: int, margin: int) -> int:
    """Smallest grid per block whose ranks, if each block met min(bound, grid − margin),
    would sum to ``needed``: the cheapest measurement that can certify it.

    A block on an n-point grid has rank ≤ n; blocks of the tight family meet
    their bound, so capped at n they give min(bound, n − margin) (the margin
    keeps the saturation test meaningful). Returns the largest block's full
    grid when even that is needed.
    """
    if not block_bounds or any(isinstance(b, bool) or not isinstance(b, int) or b < 1
                               for b in block_bounds):
        raise InvalidParameter(f"block_bounds must be a non-empty list of integers >= 1, got "
                               f"{list(block_bounds)!r}")
    needed = check_int("needed", needed, minimum=1)
    margin = check_int("margin", margin, minimum=0)
    full = max(block_bounds) + margin
    low, high = margin + 1, full
    if sum(block_bounds) < needed:
        return full
    while low < high:
        middle = (low + high) // 2
        if sum(min(bound, middle - margin) for bound in block_bounds) >= needed:
            high = middle
        else:
            low = middle + 1
    return low


@dataclass(frozen=True)
class RegimeKnee:
    """The knee of one regime (d, |P| = |Q| = q), with the ranks that decide it.

    Attributes
    ----------
    width, q_size : d and q.
    upper : proved bound (d) at depths 1 … n.
    lower : certified lower bounds at the same depths (2 where not measured).
    grids : largest block grid used at each measured depth (per class for the torus).
    decision : :class:`KneeDecision`.
    seconds : time of the measurements.
    methods : how each measured depth was certified: ``blocks`` (dense degree
        blocks, generic weights) or ``torus`` (degree blocks split by torus
        class at commuting weights, :mod:`~attndepth.rank.torus_blocks`).
    shipped : the depths whose lower bound was read from the shipped certificates
        (:mod:`~attndepth.rank.knee_certificates`) instead of measured.
    depth_seconds : the time spent certifying each measured depth.
    """

    width: int
    q_size: int
    upper: tuple[int, ...]
    lower: tuple[int, ...]
    grids: dict[int, int]
    decision: KneeDecision
    seconds: float
    methods: dict[int, str] = field(default_factory=dict)
    shipped: tuple[int, ...] = ()
    depth_seconds: dict[int, float] = field(default_factory=dict)


#: The torus grid is sized for this much more than the target (commuting weights can
#: fall short of the class counts, and the counts only estimate a class's rank).
TORUS_SLACK = 1.2


def torus_cap(width: int, depth: int, block_bounds: Sequence[int], needed: int,
              order: int, margin: int) -> int:
    """Points per class expected to certify ``needed`` with the torus split of order N.

    Each class is expected to hold its share of its block's bound: the class
    counts of :func:`~attndepth.rank.torus_blocks.class_bounds`,
    scaled down where they add up to more than the block's proved bound (the
    counts ignore |P| and |Q|). The grid is :func:`grid_cap` of these shares for
    TORUS_SLACK × ``needed``.

    Parameters
    ----------
    width, depth : d and L.
    block_bounds : the proved bound of each degree block a = 0 … K.
    needed : the certified rank wanted.
    order : N.
    margin : the saturation margin.

    Returns
    -------
    int, points per side of the largest class.
    """
    torus = make_torus(width, order, torus_prime(order))
    shares: list[int] = []
    for row, bound in zip(class_bounds(width, depth, torus), block_bounds, strict=True):
        total = sum(row)
        scale = min(1.0, bound / total) if total else 0.0
        shares.extend(max(1, math.ceil(count * scale)) for count in row if count)
    return grid_cap(shares, math.ceil(TORUS_SLACK * needed), margin)


def measure_knee(width: int, q_size: int, upper_bound: Callable[[int], int],
                 block_bounds: Callable[[int], list[int]], seed: int = 0,
                 max_depth: int = 4, max_points: int = 4096,
                 torus_order: int | None = DEFAULT_ORDER,
                 torus_points: int = DEFAULT_CLASS_POINTS, shipped: bool = True) -> RegimeKnee:
    """Decide the knee of (d, |P| = |Q| = q) with the cheapest certified measurements.

    The candidate knee is the one bound (d) would have if it were the rank; the
    ranks that would decide it (:func:`required_lower`) are then measured by
    the degree-block method on grids capped at :func:`grid_cap` (a capped
    block's rank is still a certified lower bound), never above ``max_points``.
    Where that cannot reach the rank that decides the knee, the degree blocks
    are split by torus class at commuting weights
    (:func:`~attndepth.rank.torus_blocks.measure_torus_ranks`,
    N = ``torus_order``, T = N^⌊d/2⌋ classes of at most ``torus_points`` points
    per side, sized by :func:`torus_cap`, once more at 1.5× if the first
    grid falls short): a certified lower bound at 1/T of the evaluations.
    Where neither reaches it, depth L is measured by the blocks for the weaker
    target hi(L − 1)² instead when that fits: meeting it proves that layer
    L − 1 → L still squares, so κ ≥ L (the decision's ``earliest``) although κ
    stays undecided. A depth that fits none is not measured, and the knee is
    reported undecided. Whether the measured ranks decide the knee is then
    checked by :func:`decide_knee` on the measured numbers alone.

    Parameters
    ----------
    upper_bound : depth L ↦ a proved upper bound of sep at (d, L, q, q)
        (``attndepth.theory.separation_rank.separation_rank_bounds(...).best``).
    block_bounds : depth L ↦ the proved bound of each degree block
        (``attndepth.theory.separation_rank.degree_block_bounds``).
    torus_order : N of the torus split, or None to use the dense blocks only.
    torus_points : the torus split's largest grid per class (≤ 4096).
    shipped : read a shipped certificate that reaches a target before measuring it
        (:func:`~attndepth.rank.knee_certificates.shipped_certificate`; a certified
        lower bound whatever the seed); False measures every depth.
    """
    if torus_order is not None:
        torus_order = check_int("torus_order", torus_order, minimum=1, maximum=MAX_ORDER)
    torus_points = check_int("torus_points", torus_points, minimum=2,
                             maximum=MAX_CLASS_POINTS)
    start = time.perf_counter()
    upper: list[int] = []
    for depth in range(1, max_depth + 1):
        upper.append(upper_bound(depth))
        if len(upper) >= 2 and decide_knee(upper, upper).decided:
            break
    candidate = decide_knee(upper, upper)
    lower = [2] * len(upper)
    grids: dict[int, int] = {}
    methods: dict[int, str] = {}
    read: list[int] = []
    spent: dict[int, float] = {}
    if candidate.decided and candidate.knee is not None:  # decided: a knee
        needed = required_lower(upper, candidate.knee)
        for depth in range(1, candidate.knee + 1):
            if needed[depth - 1] <= 2:  # nothing to certify at this depth
                continue
            bounds = block_bounds(depth)
            config = SeparationRankConfig(width=width, depth=depth, tokens=2 * q_size,
                                          partition=f"sizes={q_size}/{q_size}")
            # the rank that decides the knee, then the weaker one that proves κ ≥ depth
            targets = [needed[depth - 1]]
            if depth >= 2 and upper[depth - 2] ** 2 < targets[0]:
                targets.append(upper[depth - 2] ** 2)
            for target in targets:
                if lower[depth - 1] < target:
                    found = shipped_certificate(width, q_size, depth, target) if shipped \
                        else None
                    if found is not None:
                        read.append(depth)
                    began = time.perf_counter()
                    measured = ((found.rank, found.grid, found.method) if found is not None
                                else _certify(config, bounds, target, seed, max_points,
                                              torus_order, torus_points))
                    spent[depth] = spent.get(depth, 0.0) + time.perf_counter() - began
                    if measured is not None and measured[0] > lower[depth - 1]:
                        lower[depth - 1], grids[depth], methods[depth] = measured
                if lower[depth - 1] >= target:
                    break
            if lower[depth - 1] < needed[depth - 1]:
                break  # the knee stays undecided: deeper ranks cannot decide it
    return RegimeKnee(width=width, q_size=q_size, upper=tuple(upper), lower=tuple(lower),
                      grids=grids, decision=decide_knee(lower, upper),
                      seconds=time.perf_counter() - start, methods=methods,
                      shipped=tuple(sorted(set(read))), depth_seconds=spent)


def _certify(config: SeparationRankConfig, bounds: list[int], target: int, seed: int,
             max_points: int, torus_order: int | None,
             torus_points: int) -> tuple[int, int, str] | None:
    """(certified rank, grid, method) of the cheapest measurement expected to reach
    ``target``: dense blocks within ``max_points``, else the torus split; None when
    neither is expected to reach it within its limits."""
    if sum(min(b, max_points - DEFAULT_MARGIN) for b in bounds) >= target:
        cap = grid_cap(bounds, target, DEFAULT_MARGIN)
        measured = measure_block_ranks(config, bounds, seed,
                                       max_points=max(min(cap, max_points), 2))
        return max(2, measured.rank), max(block.grid for block in measured.blocks), "blocks"
    if torus_order is None:
        return None
    split = _torus_lower(config, bounds, target, seed, torus_order, torus_points)
    return None if split is None else (*split, "torus")


def _torus_lower(config: SeparationRankConfig, bounds: list[int], target: int, seed: int,
                 order: int, max_points: int) -> tuple[int, int] | None:
    """(certified rank, grid per class) of the torus split sized for ``target``, or None
    when no grid within ``max_points`` and the time limit is expected to reach it.

    The grid is :func:`torus_cap`'s; if its rank falls short, the grid grows once
    by half (within ``max_points`` and the time limit of the degree blocks).
    """
    classes = order ** (config.width // 2)
    if classes > MAX_CLASSES or sum(min(b, classes * (max_points - DEFAULT_MARGIN))
                                    for b in bounds) < target:
        return None
    cap = min(torus_cap(config.width, config.depth, bounds, target, order, DEFAULT_MARGIN),
              max_points, MAX_CLASS_POINTS)

    def affordable(grid: int) -> bool:
        sizes = [min(b + DEFAULT_MARGIN, grid) for b in bounds]
        return estimated_seconds(classes, sizes, config.width) <= MAX_BLOCK_SECONDS

    if not affordable(cap):
        return None
    measured = measure_torus_ranks(config, bounds, seed, order=order, max_points=max(cap, 2))
    larger = min(math.ceil(1.5 * cap), max_points, MAX_CLASS_POINTS)
    if measured.rank < target and larger > cap and affordable(larger):
        cap = larger
        measured = measure_torus_ranks(config, bounds, seed, order=order, max_points=cap)
    return max(2, measured.rank), cap


def measure_certificates(width: int, q_size: int, upper_bound: Callable[[int], int],
                         block_bounds: Callable[[int], list[int]], seed: int = 0,
                         torus_order: int = DEFAULT_ORDER) -> list[KneeCertificate]:
    """Measure a regime's knee afresh and return its certified depths as certificates.

    What ``attndepth atlas knees`` ships (:mod:`~attndepth.rank.knee_certificates`):
    :func:`measure_knee` with ``shipped=False`` at the default grids, every measured
    depth as one row with the command that measures it again.

    Returns
    -------
    list of KneeCertificate
        One per measured depth, with the time its measurements took.
    """
    regime = measure_knee(width, q_size, upper_bound, block_bounds, seed,
                          torus_order=torus_order, shipped=False)
    return [KneeCertificate(width, q_size, depth, regime.lower[depth - 1], method,
                            regime.grids[depth], torus_order if method == "torus" else 0,
                            seed, round(regime.depth_seconds.get(depth, 0.0), 3),
                            TOOLKIT_VERSION,
                            certificate_command(width, q_size, depth, method,
                                                regime.grids[depth],
                                                torus_order if method == "torus" else 0,
                                                seed))
            for depth, method in sorted(regime.methods.items())]
