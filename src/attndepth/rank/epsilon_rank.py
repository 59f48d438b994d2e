"""ε-separation ranks: numerical ranks of grid matrices of one network output.

For a function f(x_P, x_Q) of the tokens at the positions P and Q of a
partition, the grid matrix of row points x_P^(a) and column points x_Q^(b) is
F[a, b] = f(x_P^(a), x_Q^(b)); here f = y^{L,i}_c, coordinate c of output token i
of one seeded network, and the points are i.i.d. tokens uniform in the cube
[−√3, √3]^d (unit variance per coordinate; :data:`CUBE`). With the
singular values σ₁ ≥ σ₂ ≥ … of F, the ε-rank is

    r_ε(F) = #{k : σ_k > ε·σ₁}.

If f = Σ_{k ≤ R} g_k(x_P) h_k(x_Q), every grid matrix has rank ≤ R, so
r_ε ≤ sep(f) at every ε (Levine et al. 2020, §3 define sep(f) as the least
such R). Softmax attention is not polynomial and its separation rank is in
general infinite; its ε-rank is finite and grows as ε → 0, so it is reported
as a curve over ε, not as one number. As the grids grow, σ_k/σ₁ of the
(scaled) sample matrix converge to the ratios of the singular values of the
integral operator with kernel f on L² of that uniform measure; a measurement is
``converged`` at ε when r_ε is the same on two successive grids and at least
:data:`MARGIN` below the grid size.

The floor. F is evaluated in float64, F₆₄ = F + E. By Weyl's inequality
|σ_k(F₆₄) − σ_k(F)| ≤ ‖E‖₂ ≤ ‖E‖_F, so a ratio σ_k/σ₁ below ‖E‖_F/σ₁ cannot
be told from round-off. E is measured on a sub-grid by evaluating the same
network in extended precision (``numpy.longdouble``: a 64-bit mantissa on
x86-64, 2¹¹ times finer than float64); its relative size δ per entry gives
‖E‖_F ≈ δ‖F‖_F, and the float64 SVD adds errors of order ε_mach‖F‖₂, so the
floor is max(δ, ε_mach)·‖F‖_F/σ₁ (:func:`roundoff_floor`).
ε-ranks are reported at ε ≥ :data:`FLOOR_FACTOR` × floor only (the others are
``None``). Where ``longdouble`` is no wider than float64 (ARM macOS, Windows)
the floor cannot be checked and :func:`roundoff_floor` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import DTypeLike

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.rank.evaluation.grid_evaluation import evaluate_plain
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import Partition, make_partition
from attndepth.simulations.models.blocks import NUMPY, block_forward
from attndepth.simulations.models.stacks import (
    StackConfig,
    attention_mask,
    check_finite_states,
    draw_softmax_weights,
)
from attndepth.simulations.seeding import GRID_STREAM, spawn_generators
from attndepth.validation import (
    check_finite_array,
    check_int,
    check_seed,
    check_size,
)

#: Grid points are uniform in [−CUBE, CUBE]^d: unit variance per coordinate, as the
#: stacks' Gaussian tokens, on a bounded full-dimensional domain (heavy Gaussian tails
#: make sample matrices of degree-3^L polynomials converge slowly; a sphere would make
#: polynomials dependent, |x|² being constant on it).
CUBE = float(np.sqrt(3.0))
#: ε-ranks are reported at ε ≥ FLOOR_FACTOR × the round-off floor only.
FLOOR_FACTOR = 10.0
#: Converged: r_ε at least MARGIN below the grid size (and equal on two grids).
MARGIN = 8
#: Grid growth factor between two measurements.
GROWTH = 1.5
#: Points per side of the sub-grid evaluated in extended precision.
FLOOR_POINTS = 24
#: Sequences per forward pass (memory: about 100 bytes per sequence and token).
CHUNK = 1 << 16

Evaluator = Callable[[np.ndarray, np.ndarray, DTypeLike], np.ndarray]


@dataclass(frozen=True)
class EpsilonRankCurve:
    """ε-ranks of one network output as the grids grew.

    Attributes
    ----------
    epsilons : (E,) the tolerances, decreasing.
    ranks : (E,) r_ε on the largest grid; None where ε is below FLOOR_FACTOR × floor.
    converged : (E,) whether r_ε was equal on the last two grids and MARGIN below the grid.
    floor : the round-off floor ‖E‖_F/σ₁ (module docstring); NaN if unchecked.
    grid : points per side of the largest grid.
    ratios : σ_k/σ₁ of the largest grid (its first ``max(ranks) + MARGIN`` values).
    """

    epsilons: tuple[float, ...]
    ranks: tuple[int | None, ...]
    converged: tuple[bool, ...]
    floor: float
    grid: int
    ratios: tuple[float, ...]

    def rank_at(self, epsilon: float) -> int | None:
        """r_ε at one of :attr:`epsilons` (None below the floor)."""
        if epsilon not in self.epsilons:
            raise InvalidParameter(f"epsilon {epsilon:g} was not measured; measured: "
                                   f"{', '.join(f'{e:g}' for e in self.epsilons)}")
        return self.ranks[self.epsilons.index(epsilon)]


def epsilon_ranks(matrix: np.ndarray, epsilons: Sequence[float]) -> list[int]:
    """r_ε = #{k : σ_k > ε·σ₁} of one matrix at every ε (0 for the zero matrix).

    Parameters
    ----------
    matrix : (m, n) real.
    epsilons : tolerances in (0, 1).

    Returns
    -------
    list of int, one per ε.
    """
    matrix = check_finite_array("matrix", matrix, ndim=2).astype(np.float64, copy=False)
    epsilons = _tolerances(epsilons)
    singular = np.linalg.svd(matrix, compute_uv=False)
    if singular.size == 0 or singular[0] == 0:
        return [0 for _ in epsilons]
    ratios = singular / singular[0]
    return [int(np.count_nonzero(ratios > epsilon)) for epsilon in epsilons]


def _tolerances(epsilons: Sequence[float]) -> tuple[float, ...]:
    """The tolerances in decreasing order, each a real number in (0, 1)."""
    try:
        values = tuple(sorted((float(e) for e in epsilons), reverse=True))
    except (TypeError, ValueError):
        raise InvalidParameter(f"epsilons must be numbers in (0, 1), got {epsilons!r}") from None
    if not values or not all(0 < e < 1 for e in values):
        raise InvalidParameter(f"epsilons must lie in (0, 1), got {values}")
    return values


def softmax_output_grid(config: StackConfig, seed: int, partition: Partition,
                        XP: np.ndarray, XQ: np.ndarray, coordinate: int = 0,
                        dtype: DTypeLike = np.float64, draw_depth: int | None = None) -> np.ndarray:
    """F[a, b] = y^{L,i}_c of stack 0 of ``seed`` with the tokens of P set to XP[a] and
    those of Q to XQ[b].

    Parameters
    ----------
    config : the softmax stack (``tokens`` = |P| + |Q|); its own dtype is ignored.
    seed : the stack's seed (its weights are those of ``run_stack(config, 1, seed)``).
    partition : P, Q and the output position i.
    XP : (G_P, |P|, d) row points; XQ : (G_Q, |Q|, d) column points.
    coordinate : c.
    dtype : float64, or numpy.longdouble for the extended-precision evaluation.
    draw_depth : None, or a depth ≥ ``config.depth``: the weights are then the first
        ``config.depth`` blocks of that deeper stack (nested stacks share their blocks).

    Returns
    -------
    (G_P, G_Q) array of ``dtype``.
    """
    drawn = config.depth if draw_depth is None else check_int("draw_depth", draw_depth,
                                                              minimum=config.depth)
    weights = draw_softmax_weights(replace(config, depth=drawn), 1, seed)
    layers = [{name: np.asarray(array, dtype=dtype) for name, array in
               weights.layer(index).items()} for index in range(config.depth)]
    forbidden = attention_mask(config.tokens, config.causal, config.window)
    rows, columns = XP.shape[0], XQ.shape[0]
    check_size("the grid's sequences", rows * columns * config.tokens * config.width)
    out = np.empty((rows, columns), dtype=dtype)
    per_chunk = max(1, CHUNK // max(1, columns))
    for start in range(0, rows, per_chunk):
        stop = min(rows, start + per_chunk)
        X = np.empty((stop - start, columns, config.tokens, config.width), dtype=dtype)
        X[:, :, list(partition.p_positions)] = XP[start:stop, None]
        X[:, :, list(partition.q_positions)] = XQ[None]
        X = X.reshape(-1, config.tokens, config.width)
        for index, layer in enumerate(layers):
            with np.errstate(over="ignore", invalid="ignore"):
                X, _ = block_forward(NUMPY, config, forbidden, X, layer, index)
            check_finite_states(np.asarray(X, dtype=np.float64), index + 1, config.variant)
        out[start:stop] = X[:, partition.position, coordinate].reshape(stop - start, columns)
    return out


def roundoff_floor(evaluate: Evaluator, XP: np.ndarray, XQ: np.ndarray,
                   frobenius_over_sigma: float, points: int = FLOOR_POINTS) -> float:
    """The round-off floor of σ_k/σ₁ of the float64 grid matrix (module docstring).

    The relative error δ = rms(E)/rms(F) of the float64 entries is measured on a
    sub-grid against extended precision; as a relative error per entry it carries
    over to the whole grid, whose ‖E‖_F is then about δ‖F‖_F. The float64 SVD
    itself adds errors of order ε_mach‖F‖₂ (LAPACK's backward stability), so δ is
    taken at least ε_mach. The floor is max(δ, ε_mach)·‖F‖_F/σ₁.

    Parameters
    ----------
    evaluate : ``evaluate(XP, XQ, dtype) -> F``.
    XP, XQ : the grid's points; the first ``points`` of each are evaluated twice.
    frobenius_over_sigma : ‖F‖_F/σ₁ of the full float64 matrix (≥ 1).

    Returns
    -------
    float: the floor, or NaN when numpy.longdouble is no wider than float64.
    """
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        return float("nan")
    sub_p, sub_q = XP[:points], XQ[:points]
    double = evaluate(sub_p, sub_q, np.float64)
    extended = evaluate(sub_p.astype(np.longdouble), sub_q.astype(np.longdouble),
                        np.longdouble)
    error = np.asarray(double, dtype=np.longdouble) - extended
    scale = float(np.sqrt(np.mean(np.square(extended))))
    if scale == 0:
        return float("nan")
    relative = float(np.sqrt(np.mean(np.square(error)))) / scale
    return max(relative, float(np.finfo(np.float64).eps)) * frobenius_over_sigma


def epsilon_rank_curve(evaluate: Evaluator, sides: tuple[int, int], width: int, seed: int,
                       epsilons: Sequence[float], start: int = 48,
                       max_points: int = 1536) -> EpsilonRankCurve:
    """Grow square grids of uniform tokens until r_ε is stable at every ε above the floor.

    Parameters
    ----------
    evaluate : ``evaluate(XP, XQ, dtype) -> F`` (:func:`softmax_output_grid` or the
        linear-attention oracle, bound to one network).
    sides : (|P|, |Q|).
    width : d.
    seed : seed of the grid points (stream GRID_STREAM).
    epsilons : tolerances in (0, 1); reported in decreasing order.
    start, max_points : first and largest points per side.

    Returns
    -------
    EpsilonRankCurve
    """
    epsilons = _tolerances(epsilons)
    start = check_int("start", start, minimum=MARGIN + 1)
    max_points = check_int("max_points", max_points, minimum=start)
    generator = spawn_generators(check_seed("seed", seed), 1, GRID_STREAM)[0]
    XP = generator.uniform(-CUBE, CUBE, (max_points, sides[0], width))
    XQ = generator.uniform(-CUBE, CUBE, (max_points, sides[1], width))
    size, previous = start, None
    while True:
        F = evaluate(XP[:size], XQ[:size], np.float64)
        singular = np.linalg.svd(F, compute_uv=False)
        ranks = epsilon_ranks(F, epsilons)
        stable = (previous is not None
                  and all(r == p and r <= size - MARGIN
                          for r, p in zip(ranks, previous, strict=True)))
        if stable or size == max_points:
            break
        previous, size = ranks, min(max_points, int(size * GROWTH))
    sigma = float(singular[0]) if singular.size else 0.0
    if sigma == 0:
        raise InvalidParameter("the grid matrix is zero: f vanishes on the grid")
    floor = roundoff_floor(evaluate, XP[:size], XQ[:size],
                           float(np.sqrt(np.sum(singular ** 2))) / sigma)
    reported = [None if not np.isnan(floor) and e < FLOOR_FACTOR * floor else r
                for e, r in zip(epsilons, ranks, strict=True)]
    converged = [previous is not None and r == p and r <= size - MARGIN
                 for r, p in zip(ranks, previous or ranks, strict=True)]
    shown = max([r for r in reported if r is not None], default=0) + MARGIN
    ratios = tuple(float(s / sigma) for s in singular[:shown]) if sigma else ()
    return EpsilonRankCurve(epsilons, tuple(reported), tuple(converged), floor, size, ratios)


def softmax_epsilon_ranks(config: StackConfig, seed: int, epsilons: Sequence[float],
                          partition: str = "balanced", coordinate: int = 0,
                          max_points: int = 1536,
                          draw_depth: int | None = None) -> EpsilonRankCurve:
    """ε-ranks of y^{L,0}_c of stack 0 of ``seed`` (weights and grids from ``seed``).

    Parameters
    ----------
    config : the softmax stack; ``tokens`` is N.
    seed : seed of the weights and of the grid points.
    epsilons : tolerances in (0, 1).
    partition : as for :func:`~attndepth.rank.partitions.make_partition`.
    coordinate : c.
    max_points : largest grid per side.
    draw_depth : as for :func:`softmax_output_grid` (the ranks of one stack's first L
        blocks, for every L, with one deep draw).

    Returns
    -------
    EpsilonRankCurve
    """
    if not isinstance(config, StackConfig):
        raise InvalidType(f"config must be a StackConfig, got {type(config).__name__}")
    split = make_partition(partition, config.tokens)

    def evaluate(XP: np.ndarray, XQ: np.ndarray, dtype: DTypeLike) -> np.ndarray:
        return softmax_output_grid(config, seed, split, XP, XQ, coordinate, dtype,
                                   draw_depth)

    return epsilon_rank_curve(evaluate, (len(split.p_positions), len(split.q_positions)),
                              config.width, seed, epsilons, max_points=max_points)


def linear_epsilon_ranks(width: int, depth: int, tokens: int, seed: int,
                         epsilons: Sequence[float], heads: int = 1, partition: str = "balanced",
                         coordinate: int = 0, max_points: int = 1536) -> EpsilonRankCurve:
    """The same measurement on the linear-attention network of Levine et al. (float
    weights), whose separation rank is certified exactly: the method's oracle.

    Parameters
    ----------
    width, depth, tokens, heads : the network (ρ = 0).
    seed : seed of the float weights and of the grid points.
    epsilons, partition, coordinate, max_points : as for :func:`softmax_epsilon_ranks`.

    Returns
    -------
    EpsilonRankCurve
    """
    split = make_partition(partition, tokens)
    weights = draw_linear_attention_weights(width, depth, heads, 0, 1, seed)

    def evaluate(XP: np.ndarray, XQ: np.ndarray, dtype: DTypeLike) -> np.ndarray:
        cast = weights if dtype is np.float64 else replace(
            weights, bilinear=weights.bilinear.astype(dtype),
            value_output=weights.value_output.astype(dtype))
        rows = XP.reshape(XP.shape[0], -1, width).astype(dtype)
        columns = XQ.reshape(XQ.shape[0], -1, width).astype(dtype)
        return evaluate_plain(cast, split, rows, columns, coordinate)

    return epsilon_rank_curve(evaluate, (len(split.p_positions), len(split.q_positions)),
                              width, seed, epsilons, max_points=max_points)
