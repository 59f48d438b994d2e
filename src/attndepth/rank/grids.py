"""Separation rank of the analysed linear-attention network, measured (theory document §1).

For a partition (P, Q) of the N positions with the output position i ∈ P,
the *evaluation matrix* ``F[r, c] = f(x_P^(r), x_Q^(c))`` over sample points
of the P side (rows) and of the Q side (columns) is a matricization of f's
grid tensor: ``F = Σ_k g_k(x_P) h_k(x_Q)`` evaluated, so ``rank F ≤ sep(f)``
for any points (Levine et al. 2020, the lower-bound device of their proofs).

Exact method. Weights and points are drawn uniformly from GF(p) and f is
evaluated exactly modulo p (``attndepth.rank.arithmetic.modular``). Lift every residue to
an integer in [0, p): the GF(p) matrix is the reduction of an integer matrix
F_ℤ, and ``rank_p(F) ≤ rank_ℚ(F_ℤ) ≤ sep of the integer network ≤ generic
sep`` (a rank reached at one weight setting is reached on a Zariski-open
set). So every rank reported is a **certified lower bound** on the generic
separation rank, whatever the random draws.

Equality holds with probability ≥ 1 − R·(3^{L+1} − 2)/p (Schwartz–Zippel):
an R × R minor that is nonzero for generic weights and points is a
polynomial of degree ≤ R·(3^L + 2(3^L − 1)) in all of them (degree 3^L in
the inputs, 2(3^L − 1) in the weights, see ``attndepth.theory.separation_rank``), and it
vanishes at a uniform point of GF(p) with probability ≤ degree/p — provided
its integer coefficients are not all divisible by p, which a second prime
checks (:func:`verify_rank`). Grids grow until the rank stops growing:
``rank ≤ min(rows, cols) − margin`` (then more points add nothing, up to the
same probability), or until the rank reaches an upper bound supplied by the
caller (then it is proved equal).

Numeric method. The same matrix in float64 at Gaussian points, rank by SVD
with an explicit tolerance. A degree-3^L polynomial's evaluation matrix is
badly conditioned; beyond L = 2 the numeric rank is unreliable and is reported
with its singular-value gap for that reason.

Partitions live in :mod:`attndepth.rank.partitions`, the evaluation
of f on grids of points in :mod:`attndepth.rank.evaluation.grid_evaluation`; this
module holds the measurement and its certificate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
from tqdm import tqdm

from attndepth.errors import InvalidParameter, InvalidType, Overflow
from attndepth.rank.arithmetic.modular import DEFAULT_PRIME, SECOND_PRIME, check_prime
from attndepth.rank.arithmetic.modular_rank import rank_mod
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured
from attndepth.rank.network import (
    LinearAttentionWeights,
    draw_linear_attention_weights,
)
from attndepth.rank.partitions import Partition, make_partition
from attndepth.simulations.seeding import GRID_STREAM, spawn_generators
from attndepth.simulations.settings import setting
from attndepth.validation import check_int, check_margin, check_positive, check_size

#: Default number of points by which the rank must stay below the grid size.
DEFAULT_MARGIN = 8
#: Default cap on points per side; beyond it the rank is reported unsaturated.
DEFAULT_MAX_POINTS = 6144
#: Grid growth factor between rank checks.
GROWTH = 1.3
#: Worst-case evaluation work (pairs × depth × d⁴ multiply-adds) accepted by rank_from_grids,
#: about ten minutes on this 2-core machine; lower max_points to measure larger networks.
MAX_EVALUATION_WORK = 2e11
@dataclass(frozen=True)
class SeparationRankConfig:
    """The network and the function f = y^{L,i}_p whose separation rank is measured."""

    width: int = setting(description="width d (integer >= 1)", symbol="D")
    depth: int = setting(description="layers L (integer >= 0)", symbol="L")
    heads: int = setting(1, description="heads (integer >= 1 dividing d)", symbol="H")
    tokens: int = setting(2, description="positions N (integer >= 2)", symbol="N")
    partition: str = setting(
        "balanced", description="balanced | interleaved | sizes=A/B (A positions in P, B in Q) | "
                                "explicit P/Q like 0,1/2,3 (output position i = 0 must be in P)")
    residual: int = 0
    position: int = 0
    coordinate: int = 0

    def __post_init__(self) -> None:
        check_int("width", self.width, minimum=1)
        check_int("depth", self.depth, minimum=0)
        heads = check_int("heads", self.heads, minimum=1)
        if self.width % heads:
            raise InvalidParameter(f"heads must divide width={self.width}, got heads={heads}")
        if self.residual not in (0, 1) or isinstance(self.residual, bool):
            raise InvalidParameter(f"residual must be 0 or 1, got {self.residual!r}")
        check_int("coordinate", self.coordinate, minimum=0, maximum=self.width - 1)
        make_partition(self.partition, self.tokens, self.position)

    @property
    def split(self) -> Partition:
        return make_partition(self.partition, self.tokens, self.position)

    def as_dict(self) -> dict:
        return {**asdict(self), "p_positions": list(self.split.p_positions),
                "q_positions": list(self.split.q_positions)}


# ---------------------------------------------------------------- certificates


def schwartz_zippel_bound(rank: int, depth: int, prime: int) -> float:
    """Probability bound R·(3^{L+1} − 2)/p that a GF(p) rank falls short (module docstring).

    3^L (degree in the inputs) + 2(3^L − 1) (in the weights,
    ``attndepth.theory.separation_rank.weight_degree``) = 3^{L+1} − 2 per entry.
    """
    return min(1.0, rank * (3 ** (depth + 1) - 2) / prime)


@dataclass(frozen=True)
class RankCertificate:
    """What a rank measurement establishes, and how.

    Attributes
    ----------
    rank : rank of the evaluation matrix (a certified lower bound on the
        generic separation rank for ``method='exact'``).
    saturated : True when the grids stopped the rank from growing
        (``reason='margin'``) or the rank met the caller's upper bound
        (``reason='upper-bound'``: then rank = sep, proved).
    failure_probability : Schwartz–Zippel bound on Pr[rank < generic sep]
        when saturated by margin; 0 when proved; None for numeric.
    tolerance, gap : numeric only: the SVD threshold and σ_r/σ_{r+1}.
    blocks : method ``blocks`` only: one dict per homogeneous part f_a
        (:class:`attndepth.rank.degree_blocks.BlockRank`); the rank is
        their sum, the grids the largest block's.
    """

    rank: int
    method: str
    prime: int | None
    grid_p: int
    grid_q: int
    saturated: bool
    reason: str
    margin: int
    seed: int
    failure_probability: float | None
    eval_seconds: float
    rank_seconds: float
    config: dict
    tolerance: float | None = None
    gap: float | None = None
    history: list[tuple[int, int]] = field(default_factory=list)
    blocks: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def _draw_points(generator: np.random.Generator, count: int, positions: int, width: int,
                 prime: int | None) -> np.ndarray:
    if prime is None:
        return generator.standard_normal((count, positions, width))
    return generator.integers(0, prime, (count, positions, width), dtype=np.int64)


def _numeric_rank(F: np.ndarray, tolerance: float | None) -> tuple[int, float, float]:
    """SVD rank of F after scaling rows and columns to unit max (rank-preserving).

    Returns (rank, tolerance used, gap σ_r/σ_{r+1}). Default tolerance:
    σ_max·max(m, n)·eps, as ``numpy.linalg.matrix_rank``.
    """
    scaled = F / np.maximum(np.abs(F).max(axis=1, keepdims=True), np.finfo(float).tiny)
    scaled /= np.maximum(np.abs(scaled).max(axis=0, keepdims=True), np.finfo(float).tiny)
    singular = np.linalg.svd(scaled, compute_uv=False)
    if tolerance is None:
        tolerance = float(singular[0] * max(F.shape) * np.finfo(float).eps)
    rank = int(np.sum(singular > tolerance))
    if 0 < rank < singular.size:
        gap = float(singular[rank - 1] / max(singular[rank], np.finfo(float).tiny))
    else:
        gap = math.inf
    return rank, tolerance, gap


def rank_from_grids(
    config: SeparationRankConfig,
    seed: int = 0,
    method: str = "exact",
    prime: int | None = DEFAULT_PRIME,
    margin: int = DEFAULT_MARGIN,
    max_points: int = DEFAULT_MAX_POINTS,
    rank_cap: int | None = None,
    tolerance: float | None = None,
    start_points: int | None = None,
    progress: bool = False,
    evaluator: Callable[..., np.ndarray] = evaluate_structured,
    weights: LinearAttentionWeights | None = None,
) -> RankCertificate:
    """Grow evaluation grids until the rank of F stops growing; return a certificate.

    This layer knows no theory: a proved bound enters only as ``rank_cap``.
    :func:`attndepth.measure_rank` is the same measurement with every proved
    bound of the theory supplied (and the per-degree blocks).

    Parameters
    ----------
    method : ``exact`` (GF(prime)) or ``numeric`` (float64 SVD).
    margin : saturation needs ``rank ≤ min(grid_p, grid_q) − margin``.
    max_points : points per side at most; beyond, ``saturated=False`` and the
        rank is only a lower bound.
    rank_cap : an upper bound on sep (e.g. from ``theory``); reaching it
        proves the rank.
    progress : show a tqdm bar (after 2 s) while the grids grow.
    start_points : first grid size. Default: ``rank_cap + margin`` when a cap is
        given and fits in ``max_points`` (one evaluation and one rank then end the
        measurement: the rank either meets the cap or stays ``margin`` below the
        grid), else 16 (the grids grow by 1.3× per step, each step a new rank).
    weights : a given network (its ``prime`` must match the method); default:
        drawn from ``seed``.
    """
    if not isinstance(config, SeparationRankConfig):
        raise InvalidType(f"config must be a SeparationRankConfig, got {type(config).__name__}")
    if method not in ("exact", "numeric"):
        raise InvalidParameter(f"method must be exact or numeric, got {method!r}")
    if weights is not None and not isinstance(weights, LinearAttentionWeights):
        raise InvalidType(f"weights must be LinearAttentionWeights or None, got "
                          f"{type(weights).__name__}")
    if tolerance is not None:
        tolerance = check_positive("tolerance (a singular-value threshold)", tolerance)
    if not isinstance(progress, bool):
        raise InvalidType(f"progress must be True or False, got {progress!r}")
    max_points = check_int("max_points", max_points, minimum=2)
    margin = check_margin(margin)
    if rank_cap is not None:
        rank_cap = check_int("rank_cap", rank_cap, minimum=0)
    if start_points is None:
        start_points = (rank_cap + margin if rank_cap is not None
                        and rank_cap + margin <= max_points else 16)
    start_points = check_int("start_points", start_points, minimum=1)
    exact = method == "exact"
    field_prime = check_prime(prime) if exact else 0  # 0: no field (float64)
    prime = field_prime if exact else None
    check_size("the evaluation matrix", max_points * max_points)
    work = float(max_points) ** 2 * max(1, config.depth) * config.width**4
    if work > MAX_EVALUATION_WORK:
        raise InvalidParameter(f"max_points={max_points} at width {config.width} and depth "
                               f"{config.depth} means up to {work:.2g} operations (limit "
                               f"{MAX_EVALUATION_WORK:.0e}); lower max_points or the size")
    partition = config.split
    if weights is None:
        weights = draw_linear_attention_weights(config.width, config.depth, config.heads,
                                                config.residual, 1, seed, prime=prime)
    elif weights.prime != prime or weights.width != config.width \
            or weights.depth != config.depth or weights.residual != config.residual:
        raise InvalidParameter("weights must match the config (width, depth, residual) and the "
                               "method's prime")
    generator = spawn_generators(seed, 1, GRID_STREAM)[0]
    size = min(start_points, max_points)
    XP = _draw_points(generator, 0, len(partition.p_positions), config.width, prime)
    XQ = _draw_points(generator, 0, len(partition.q_positions), config.width, prime)
    F = np.zeros((0, 0), dtype=np.int64 if exact else np.float64)
    eval_seconds = rank_seconds = 0.0
    history: list[tuple[int, int]] = []
    bar = tqdm(desc="grid", unit=" pts", delay=2.0, disable=not progress, leave=False)
    try:
        while True:
            grown = size - XP.shape[0]
            new_p = _draw_points(generator, grown, len(partition.p_positions), config.width, prime)
            new_q = _draw_points(generator, grown, len(partition.q_positions), config.width, prime)
            start = time.perf_counter()
            with np.errstate(over="ignore", invalid="ignore"):  # checked just below
                right = evaluator(weights, partition, XP, new_q, config.coordinate)
                bottom = evaluator(weights, partition, new_p, np.concatenate([XQ, new_q]),
                                   config.coordinate)
            F = np.concatenate([np.concatenate([F, right], axis=1), bottom], axis=0)
            # f is a polynomial of degree 3^L: on random points it is never 0, so a zero
            # or subnormal value is underflow, as silent as an overflow is loud
            if not exact and not (np.isfinite(F).all()
                                  and (np.abs(F) >= np.finfo(np.float64).tiny).all()):
                raise Overflow(f"the numeric evaluation under- or overflowed float64 at depth "
                               f"{config.depth} (f scales like |x|^(3^L)); use the exact "
                               f"method")
            XP, XQ = np.concatenate([XP, new_p]), np.concatenate([XQ, new_q])
            eval_seconds += time.perf_counter() - start
            start = time.perf_counter()
            if exact:
                rank, used_tolerance, gap = rank_mod(F, field_prime), None, None
            else:
                rank, used_tolerance, gap = _numeric_rank(F, tolerance)
            rank_seconds += time.perf_counter() - start
            history.append((size, rank))
            bar.update(grown)
            bar.set_postfix(rank=rank)
            if rank_cap is not None and rank >= rank_cap:
                saturated, reason = True, "upper-bound"
                break
            if rank + margin <= size:
                saturated, reason = True, "margin"
                break
            if size >= max_points:
                saturated, reason = False, "max-points"
                break
            size = min(max_points, max(math.ceil(size * GROWTH), rank + 2 * margin))
    finally:
        bar.close()
    if not exact:
        failure = None
    elif reason == "upper-bound":
        failure = 0.0
    else:
        failure = schwartz_zippel_bound(rank, config.depth, field_prime)
    return RankCertificate(
        rank=rank, method=method, prime=prime, grid_p=size, grid_q=size,
        saturated=saturated, reason=reason, margin=margin, seed=seed,
        failure_probability=failure if saturated else None,
        eval_seconds=eval_seconds, rank_seconds=rank_seconds, config=config.as_dict(),
        tolerance=used_tolerance, gap=gap, history=history,
    )


def certified_rank(config: SeparationRankConfig, seed: int, bound: int,
                   prime: int = DEFAULT_PRIME) -> RankCertificate:
    """The exact rank measured against a proved upper bound, in one step when it is tight.

    The grids start (and end) at ``bound + DEFAULT_MARGIN`` points per side:
    one evaluation and one rank either meet ``bound`` (the rank is proved) or
    stay ``DEFAULT_MARGIN`` below the grid (saturated). Claims and figures
    both measure exact ranks through this function.

    Parameters
    ----------
    config : SeparationRankConfig
    seed : int
        Seed of the weights and grid points.
    bound : int
        A proved upper bound of the separation rank (``attndepth.theory``).
    prime : int
        The field GF(prime).
    """
    bound = check_int("bound", bound, minimum=1)
    points = bound + DEFAULT_MARGIN
    return rank_from_grids(config, seed, "exact", prime, rank_cap=bound, start_points=points,
                           max_points=points)


@dataclass(frozen=True)
class VerifiedRank:
    """Two independent exact measurements (another prime and another seed)."""

    first: RankCertificate
    second: RankCertificate

    @property
    def agree(self) -> bool:
        return self.first.rank == self.second.rank


def verify_rank(config: SeparationRankConfig, seed: int = 0, other_seed: int | None = None,
                prime: int = DEFAULT_PRIME, other_prime: int = SECOND_PRIME,
                **options) -> VerifiedRank:
    """Measure the exact rank twice: (seed, prime) and (other_seed, other_prime).

    A disagreement is reported through ``agree`` (never averaged); the larger
    rank is then the better certified lower bound.
    """
    if other_prime == prime:
        raise InvalidParameter(f"other_prime must differ from prime={prime}")
    other_seed = seed + 1 if other_seed is None else other_seed
    return VerifiedRank(
        first=rank_from_grids(config, seed, "exact", prime, **options),
        second=rank_from_grids(config, other_seed, "exact", other_prime, **options),
    )
