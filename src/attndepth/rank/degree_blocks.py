"""Separation rank block by block: the homogeneous parts f_a measured separately (ρ = 0).

With ρ = 0, f = Σ_{a=0}^{K} f_a with f_a of degree a in M_Q (2a in x_Q), and
sep(f) = Σ_a sep(f_a) exactly (the coefficient matrix is block diagonal; proof
in ``attndepth.theory.separation_rank.degree_block_bounds``). Each block has
its own proved bound, far below the whole: d = 4, L = 3, |P| = |Q| = 4 has
31,460 in 14 blocks of at most 11,440.

At depth 3 the parts are computed directly as the coefficients of matrix
polynomials in s (:mod:`attndepth.rank.evaluation.grid_parts`, 1.3–1.8× faster);
the scales below serve every other depth and the tests' oracle, evaluated by
the compiled kernel of :mod:`attndepth.rank.evaluation.compiled_scales` at
depth ≥ 4 where JAX is installed (the same numbers, fewer seconds).

Separating the parts (proof). f depends on x_Q only through M_Q (structural
lemma), and M_Q ↦ s·M_Q multiplies f_a by s^a, so for K + 1 distinct s_j

    F_j[r, c] := f(x_P^(r), t_j·x_Q^(c)) = Σ_a s_j^a F_a[r, c],   s_j = t_j²,

a Vandermonde system V F = (F_j) with V[j, a] = s_j^a, invertible over GF(p)
because the s_j = (j + 1)² are distinct modulo p for K + 1 < p/2 (t² = u²
forces t = ±u). So F_a = Σ_j (V⁻¹)[a, j] F_j exactly. Every F_a is evaluated on
the same nested grids (block a uses the first n_a points of each side), so
the K + 1 evaluations are shared by all blocks.

Certificate per block, as for the whole matrix
(:mod:`attndepth.rank.grids`): the GF(p) rank of F_a is a certified
lower bound of sep(f_a); it is proved equal when it meets the block's bound,
and equal with probability ≥ 1 − R_a·(3^{L+1} − 2)/p when it stays ``margin``
below the grid (Schwartz–Zippel: F_a's entries are polynomials of the same
degrees as f's). The blocks' failure probabilities add (union bound).

Memory: every block is built in one pass over the grid in row chunks (each
pair is evaluated once, at all K + 1 parts) and held as int32 centred residues
(|x| ≤ p/2 + 2 < 2^25); a block becomes float64 only when it is ranked, one at
a time, largest first. The peak is the int32 blocks in memory plus the
float64 copy of the largest (and the GEMM LU's panels, a third of that copy
more at 11,448²). Blocks are kept in memory, largest first, up to
:data:`BATCH_BYTES` of blocks and copy (3 GiB: what the largest block the
2 GiB guard allows, 16,384², takes alone); the rest are written to files
(memory-mapped, in a temporary directory or beside the checkpoint) and read
back one at a time to be ranked. Every class of the atlas up to 11,448 points
per side (d = 4, L = 3, |P| = 5, |Q| = 4: 0.87 GiB of int32 blocks and 0.98
GiB for the largest one's float64 copy) fits in memory whole; d = 4, L = 4,
|P| = |Q| = 1 (41 blocks, 3.7 GiB of int32) keeps its 4 largest in memory and
writes 37 to disk, where a second pass over the grid would cost 1.55× the
evaluation.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import flint
import numpy as np
from tqdm import tqdm

from attndepth.errors import CheckFailed, InvalidParameter, InvalidType
from attndepth.rank.arithmetic.modular import MAX_PRIME, check_prime
from attndepth.rank.arithmetic.modular_rank import (
    GEMM_RANK_MIN_SIDE,
    matmul_residues,
    rank_mod,
    rank_of_float_residues,
)
from attndepth.rank.block_checkpoint import (
    BlockProgress,
    ProgressSaver,
    load_progress,
    measurement_identity,
)
from attndepth.rank.budget import (
    MAX_BLOCK_SECONDS,
    check_block_case,
    check_progress,
    refuse_over_budget,
)
from attndepth.rank.evaluation.compiled_scales import (
    COMPILED_MIN_DEPTH,
    compiled_available,
    compiled_supports,
    evaluate_scales_compiled,
)
from attndepth.rank.evaluation.grid_evaluation import (
    CHUNK_PAIRS,
    evaluate_structured,
    evaluate_structured_scales,
)
from attndepth.rank.evaluation.grid_parts import PARTS_DEPTH, evaluate_structured_parts
from attndepth.rank.grids import (
    DEFAULT_MARGIN,
    RankCertificate,
    SeparationRankConfig,
    schwartz_zippel_bound,
)
from attndepth.rank.network import (
    LinearAttentionWeights,
    draw_linear_attention_weights,
)
from attndepth.rank.partitions import Partition
from attndepth.simulations.checkpoints import checkpoint_file, writer_lock
from attndepth.simulations.seeding import GRID_STREAM, spawn_generators
from attndepth.simulations.threads import available_cores
from attndepth.validation import check_int, check_margin, check_size

#: Largest prime below 2^26, the default field of block ranks (the GEMM rank's range).
BLOCK_PRIME = 67_108_859
#: The next prime below, for a second, independent measurement (``--verify``).
SECOND_BLOCK_PRIME = 67_108_837
#: Bytes the blocks in memory may hold at their peak: their int32 residues and the
#: float64 copy of the largest while that is ranked (3 GiB, what one 16,384² block
#: takes alone); the other blocks are kept in files.
BATCH_BYTES = 3 << 30
#: Pairs evaluated per row chunk, all K + 1 scales together (bounds what is held at once).
CHUNK_ENTRIES = 1 << 22
#: Points per side of the largest block grid (2 GiB guard: one 16,384² float64 block).
MAX_BLOCK_POINTS = 16_384
#: Seconds per evaluated pair and scale, and per cubed block side ranked: the
#: calibration of :func:`estimated_seconds` on a 2-core AVX-512 machine (d=4, L=3, N=8:
#: 538 s measured; d=6, L=3, N=2: 445 s; d=2, L=5, N=4: 184 s; d=3, L=4, N=2: 11 s),
#: which it overestimated by 1.0–2.4×. On a 2-core AVX2 machine (2026-12) the atlas'
#: classes took 1.0–1.1× the estimate with one head and up to 2.5× with H = d: the
#: model does not count the heads.
SECONDS_PER_PAIR_SCALE, SECONDS_PER_CUBED_SIDE = 4e-7, 2e-11


def estimated_seconds(sizes: Sequence[int]) -> float:
    """Up-front time estimate of measuring blocks of these grid sizes (one per degree).

    Evaluation visits max(n)² pairs, all K + 1 scales per pair (one pass for
    every block); ranking a block of side n costs n³ (the GEMM LU). The constants are
    :data:`SECONDS_PER_PAIR_SCALE` and :data:`SECONDS_PER_CUBED_SIDE`.

    Parameters
    ----------
    sizes : grid points per side of each block a = 0 … K (0: not measured).

    Returns
    -------
    float, seconds on this machine (2 cores).
    """
    pairs = max(sizes) ** 2
    cubes = sum(float(n) ** 3 for n in sizes)
    return SECONDS_PER_PAIR_SCALE * pairs * len(sizes) + SECONDS_PER_CUBED_SIDE * cubes


class BoundViolation(CheckFailed):
    """A certified rank above a proved upper bound: the bound or the evaluation is wrong."""


@dataclass(frozen=True)
class BlockRank:
    """The measured rank of one homogeneous part f_a, whole or split by torus class.

    Attributes
    ----------
    degree : a (degree in M_Q); the part has degree 2a in x_Q, 2(K − a) + 1 in x_P.
    bound : the block's proved upper bound min(h_Q(a), h_P(K − a)).
    grid : points per side of the block's evaluation matrix (of its largest class).
    rank : GF(p) rank (the classes' sum), a certified lower bound of sep(f_a).
    reason : ``upper-bound`` (rank = bound: proved), ``margin`` (rank ≤ grid −
        margin: equal with probability ≥ 1 − failure_probability), ``weights`` (torus:
        every class meets its class bound or stays below its grid by the margin: the
        rank at these special weights, a lower bound of the generic one) or
        ``max-points`` (grid capped: a lower bound only).
    failure_probability : 0, the Schwartz–Zippel bound, or None (unsaturated).
    rank_seconds : time of the rank.
    class_bounds, class_ranks : torus split only (empty otherwise):
        :func:`~attndepth.rank.torus_blocks.class_bounds` of each class and the GF(p)
        rank of F_{a,c}, in the torus's class order.
    """

    degree: int
    bound: int
    grid: int
    rank: int
    reason: str
    failure_probability: float | None
    rank_seconds: float
    class_bounds: tuple[int, ...] = ()
    class_ranks: tuple[int, ...] = ()

    def __post_init__(self) -> None:  # a checkpoint's JSON gives lists
        object.__setattr__(self, "class_bounds", tuple(self.class_bounds))
        object.__setattr__(self, "class_ranks", tuple(self.class_ranks))

    @property
    def saturated(self) -> bool:
        """Proved, or equal to the generic rank but for ``failure_probability``."""
        return self.reason in ("upper-bound", "margin")

    def as_dict(self) -> dict:
        record = {**asdict(self), "saturated": self.saturated}
        if not self.class_bounds:
            del record["class_bounds"], record["class_ranks"]
        else:
            record["class_bounds"] = list(self.class_bounds)
            record["class_ranks"] = list(self.class_ranks)
        return record


def separating_scales(degree: int, prime: int) -> tuple[np.ndarray, np.ndarray]:
    """Scales t_j = j + 1 and the inverse Vandermonde matrix of s_j = t_j² (module proof).

    Returns
    -------
    scales : (K + 1,) int64
    inverse : (K + 1, K + 1) int64 residues; F_a = Σ_j inverse[a, j]·F_j.
    """
    count = check_int("degree", degree, minimum=0) + 1
    if 2 * count >= prime:
        raise InvalidParameter(f"K + 1 = {count} scales need a prime > {2 * count}, got {prime}")
    squares = [(j + 1) ** 2 % prime for j in range(count)]
    vandermonde = flint.nmod_mat([[pow(s, a, prime) for a in range(count)] for s in squares],
                                 prime)
    inverse = vandermonde.inv()
    rows = [[int(inverse[a, j]) for j in range(count)] for a in range(count)]
    return np.arange(1, count + 1, dtype=np.int64), np.array(rows, dtype=np.int64)


def _resident_blocks(sizes: Sequence[int]) -> list[int]:
    """The blocks kept in memory, largest first: while their int32 blocks plus the
    float64 copy of the first (largest) take at most :data:`BATCH_BYTES`, and the
    largest always. The others are kept in files (module docstring)."""
    order = sorted((a for a, n in enumerate(sizes) if n), key=lambda a: -sizes[a])
    resident = order[:1]
    entries = sizes[order[0]] ** 2
    for a in order[1:]:
        entries += sizes[a] ** 2
        if 4 * entries + 8 * sizes[order[0]] ** 2 > BATCH_BYTES:
            break
        resident.append(a)
    return resident


#: Evaluations (pairs × scales) from which the blocks compile their kernel: below, the
#: NumPy evaluation (about 1 µs each) takes less than the compilation (a few seconds).
COMPILED_MIN_EVALUATIONS = 10**7


def _scales_evaluator(weights: LinearAttentionWeights,
                      evaluations: int) -> Callable[..., np.ndarray]:
    """The compiled evaluation for ``evaluations`` scaled pairs where it pays and applies
    (JAX installed, depth ≥ 3, a prime it is exact for), else the NumPy one: the same
    numbers (:mod:`~attndepth.rank.evaluation.compiled_scales`)."""
    if evaluations >= COMPILED_MIN_EVALUATIONS and weights.depth >= COMPILED_MIN_DEPTH \
            and weights.prime is not None and compiled_supports(weights.width, weights.prime) \
            and compiled_available():
        return evaluate_scales_compiled
    return evaluate_structured_scales


def evaluate_blocks(weights: LinearAttentionWeights, partition: Partition, XP: np.ndarray,
                    XQ: np.ndarray, coordinate: int, sizes: dict[int, int],
                    evaluator: Callable[..., np.ndarray] = evaluate_structured,
                    bar: tqdm | None = None, blocks: dict[int, np.ndarray] | None = None,
                    first_row: int = 0,
                    after_chunk: Callable[[int], None] | None = None) -> dict[int, np.ndarray]:
    """The evaluation matrices F_a of the homogeneous parts named in ``sizes``.

    Parameters
    ----------
    XP : (≥ max n_a, |P|, d) int64 residues; XQ : (≥ max n_a, |Q|, d).
    sizes : {a: n_a}; block a is F_a[r, c] = f_a(XP[r], XQ[c]) for r, c < n_a.
    blocks, first_row : resume: (n_a, n_a) int32 arrays whose rows below
        ``first_row`` are evaluated already (rows are independent of each other,
        :mod:`~attndepth.rank.block_checkpoint`); only the rest is.
    after_chunk : called with the number of rows evaluated after every row chunk.

    Returns
    -------
    {a: (n_a, n_a) int32 array of centred residues (|x| ≤ p/2 + 2)}.
    """
    prime = weights.prime
    if prime is None:
        raise InvalidParameter("degree blocks are residues: the weights must be drawn over "
                               "GF(p) (a prime), not as floats")
    degree = (3 ** weights.depth - 1) // 2
    scales, inverse = separating_scales(degree, prime)
    rows_needed = max(sizes.values())
    scales_evaluator = _scales_evaluator(weights, (rows_needed - first_row) * rows_needed
                                         * len(scales))
    if blocks is None:
        blocks = {a: np.empty((n, n), dtype=np.int32) for a, n in sizes.items()}
    start = first_row
    while start < rows_needed:
        columns = max(n for n in sizes.values() if n > start)
        # enough rows for the evaluator's cache-sized chunks to reach every core
        chunk = max(CHUNK_ENTRIES // (columns * len(scales)),
                    available_cores() * max(1, CHUNK_PAIRS // columns))
        rows = slice(start, min(start + chunk, rows_needed))
        if evaluator is evaluate_structured and weights.depth == PARTS_DEPTH:
            # the coefficients themselves, as matrix polynomials in s (grid_parts)
            parts = evaluate_structured_parts(weights, partition, XP[rows], XQ[:columns],
                                              coordinate)
            parts[parts > prime // 2] -= prime  # centred, as the GEMM below leaves them
        else:
            if evaluator is evaluate_structured:  # the first layer once per pair
                scaled = scales_evaluator(weights, partition, XP[rows], XQ[:columns],
                                          coordinate, scales)
            else:
                scaled = np.stack([evaluator(weights, partition, XP[rows],
                                             XQ[:columns] * t % prime, coordinate)
                                   for t in scales], axis=-1)
            # F_a = Σ_j inverse[a, j] F_j as one GEMM, (pairs, K + 1) @ inverseᵀ
            parts = matmul_residues(scaled.reshape(-1, len(scales)), inverse.T, prime)
            parts = parts.reshape(-1, columns, len(scales))
        for a, n in sizes.items():
            if n > start:
                stop = min(rows.stop, n)
                blocks[a][rows.start:stop] = parts[:stop - rows.start, :n, a]
        if bar is not None:
            bar.update(rows.stop - rows.start)
        start = rows.stop
        if after_chunk is not None:
            after_chunk(start)
    return blocks


@dataclass(frozen=True)
class BlockMeasurement:
    """Every degree block of one network (split by torus class or not), and the totals.

    Attributes
    ----------
    blocks : one :class:`BlockRank` per degree a = 0 … K.
    prime, seed, margin : the field, the seed of the weights and points, the margin.
    eval_seconds : time of the evaluation (every block in one pass).
    method : ``blocks`` (generic weights) or ``torus`` (commuting weights, split by class).
    order, classes : torus only: N rotations per plane and the N^⌊d/2⌋ classes.
    """

    blocks: tuple[BlockRank, ...]
    prime: int
    seed: int
    margin: int
    eval_seconds: float
    method: str = "blocks"
    order: int | None = None
    classes: int | None = None

    @property
    def rank(self) -> int:
        """Σ_a rank(F_a): a certified lower bound of sep(f)."""
        return sum(block.rank for block in self.blocks)

    @property
    def proved(self) -> bool:
        """Every block meets its bound: the sum is the generic rank."""
        return all(block.reason == "upper-bound" for block in self.blocks)

    @property
    def reason(self) -> str:
        """``upper-bound`` if every block is proved; else, for the torus split,
        ``lower-bound`` (its weights are special: no margin makes the sum the generic
        rank); else ``max-points`` if a block is capped, ``margin`` if none is."""
        if self.proved:
            return "upper-bound"
        if self.method == "torus":
            return "lower-bound"
        return "max-points" if any(block.reason == "max-points" for block in self.blocks) \
            else "margin"

    @property
    def failure_probability(self) -> float | None:
        """Union bound over the blocks saturated by margin; None if one is unsaturated."""
        if self.reason in ("max-points", "lower-bound"):
            return None
        probabilities = [block.failure_probability for block in self.blocks]
        if any(p is None for p in probabilities):
            return None
        return min(1.0, sum(p for p in probabilities if p is not None))

    def certificate(self, config: SeparationRankConfig) -> RankCertificate:
        """The measurement as a :class:`RankCertificate` (method ``blocks`` or ``torus``;
        the torus order and class count join the configuration)."""
        grid = max(block.grid for block in self.blocks)
        torus = ({"torus_order": self.order, "torus_classes": self.classes}
                 if self.method == "torus" else {})
        return RankCertificate(
            rank=self.rank, method=self.method, prime=self.prime, grid_p=grid, grid_q=grid,
            saturated=self.reason in ("upper-bound", "margin"), reason=self.reason,
            margin=self.margin, seed=self.seed, failure_probability=self.failure_probability,
            eval_seconds=self.eval_seconds,
            rank_seconds=sum(block.rank_seconds for block in self.blocks),
            config={**config.as_dict(), **torus},
            blocks=[block.as_dict() for block in self.blocks])


def measure_block_ranks(config: SeparationRankConfig, bounds: Sequence[int], seed: int = 0,
                        prime: int = BLOCK_PRIME, margin: int = DEFAULT_MARGIN,
                        max_points: int = MAX_BLOCK_POINTS, progress: bool = False,
                        evaluator: Callable[..., np.ndarray] = evaluate_structured,
                        max_seconds: float = MAX_BLOCK_SECONDS,
                        checkpoint: str | Path | None = None) -> BlockMeasurement:
    """Rank of every homogeneous part f_a of ``config``'s f on nested grids (module docstring).

    Parameters
    ----------
    config : SeparationRankConfig with ``residual = 0``.
    bounds : proved upper bounds of sep(f_a), a = 0 … K
        (``attndepth.theory.separation_rank.degree_block_bounds``); block a is
        evaluated on min(bound_a + margin, max_points) points per side.
    seed : seed of the weights and the grid points.
    prime : the field; below 2^26 the large blocks are ranked by the GEMM LU.
    margin, max_points : as for :func:`attndepth.rank.grids.rank_from_grids`.
    progress : a tqdm bar over the grid rows (after 2 s).
    max_seconds : refuse up front when :func:`estimated_seconds` of the blocks exceeds
        it (``math.inf``: no limit).
    checkpoint : a file the measurement saves its progress to, every
        :data:`~attndepth.rank.block_checkpoint.CHECKPOINT_SECONDS`
        and once done, and resumes from (the same numbers; proof in
        :mod:`~attndepth.rank.block_checkpoint`). A checkpoint of
        another measurement is refused (ValueError); a damaged one is warned about
        and the measurement starts over. Delete it once the result is kept: a
        measurement run again with it returns at once.
    """
    bounds = check_block_case(config, bounds, "blocks")
    degree = len(bounds) - 1
    prime = check_prime(prime)
    max_points = check_int("max_points", max_points, minimum=2,
                           maximum=MAX_BLOCK_POINTS)
    margin = check_margin(margin)
    progress = check_progress(progress)
    sizes = [min(bound + margin, max_points) for bound in bounds]
    # what ranking the largest block holds at once: its int32 residues and their float64
    # copy (_rank_block), 1.5 float64-equivalents per entry: 3 GiB for one 16,384² block
    check_size("the largest degree block (its int32 residues and their float64 copy)",
               3 * max(sizes) ** 2 // 2, limit=3 * MAX_BLOCK_POINTS ** 2 // 2)
    refuse_over_budget(f"the {len(sizes)} degree blocks (largest {max(sizes)}² points)",
                       estimated_seconds(sizes), max_seconds)
    path = _checkpoint_file(checkpoint)
    _check_disk_space(sizes, path)
    identity = measurement_identity(config.as_dict(), seed, prime, margin, sizes,
                                    f"{evaluator.__module__}.{evaluator.__qualname__}")
    with writer_lock(path, "block measurement") if path else contextlib.nullcontext():
        done = _measure_blocks(config, bounds, sizes, seed, prime, margin, evaluator,
                               progress, path, identity)
    return BlockMeasurement(blocks=tuple(BlockRank(**done.ranked[a]) for a in range(degree + 1)),
                            prime=prime, seed=seed, margin=margin,
                            eval_seconds=done.eval_seconds)


class _Recorder:
    """After each row chunk: the rows and evaluation time into ``done``, saved when due
    (the blocks' rows are views, not copies)."""

    def __init__(self, done: BlockProgress, blocks: dict[int, np.ndarray],
                 pending: dict[int, int], save: ProgressSaver) -> None:
        self.done, self.blocks, self.pending, self.save = done, blocks, pending, save
        self.eval_before, self.start = done.eval_seconds, time.perf_counter()

    def __call__(self, rows: int) -> None:
        done = self.done
        done.rows = rows
        done.eval_seconds = self.eval_before + time.perf_counter() - self.start
        done.blocks = {a: self.blocks[a][:min(rows, n)] for a, n in self.pending.items()}
        self.save(done)


def _checkpoint_file(checkpoint: str | Path | None) -> Path | None:
    if checkpoint is None:
        return None
    if not isinstance(checkpoint, (str, Path)):
        raise InvalidType(f"checkpoint must be a str or Path, got {type(checkpoint).__name__}")
    return checkpoint_file(checkpoint).path  # refuses what is not a checkpoint, up front


#: Disk space left free when blocks are kept in files.
DISK_RESERVE_BYTES = 1 << 30


def _check_disk_space(sizes: list[int], path: Path | None) -> None:
    """Refuse up front when the blocks past the memory budget would not fit on disk
    (with :data:`DISK_RESERVE_BYTES` to spare) where :func:`_block_files` puts them."""
    resident = set(_resident_blocks(sizes))
    needed = 4 * sum(n * n for a, n in enumerate(sizes) if n and a not in resident)
    if not needed:
        return
    where = path.parent if path is not None else Path(tempfile.gettempdir())
    where.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(where).free
    if needed + DISK_RESERVE_BYTES > free:
        raise InvalidParameter(
            f"the degree blocks past the {BATCH_BYTES / 2**30:.0f} GiB memory budget need "
            f"{needed / 2**30:.1f} GiB of files in {where}, which has "
            f"{free / 2**30:.1f} GiB free; lower max_points (--max-points) for a lower "
            f"bound, free space, or set TMPDIR")


@contextlib.contextmanager
def _block_files(path: Path | None) -> Iterator[Path]:
    """A directory for the blocks kept in files, removed afterwards: beside the
    checkpoint (replacing what a killed run left there), else a temporary one."""
    if path is None:
        with tempfile.TemporaryDirectory(prefix="attndepth-blocks-") as temporary:
            yield Path(temporary)
        return
    beside = path.with_name(f".{path.name}.blocks")
    shutil.rmtree(beside, ignore_errors=True)
    beside.mkdir(parents=True)
    try:
        yield beside
    finally:
        shutil.rmtree(beside, ignore_errors=True)


def _measure_blocks(config: SeparationRankConfig, bounds: list[int], sizes: list[int],
                    seed: int, prime: int, margin: int,
                    evaluator: Callable[..., np.ndarray], show: bool, path: Path | None,
                    identity: str) -> BlockProgress:
    """Evaluate every block in one pass and rank each, from the progress saved at
    ``path`` on (:mod:`~attndepth.rank.block_checkpoint`)."""
    done = (load_progress(path, identity, sizes) if path else None) or BlockProgress()
    pending = {a: sizes[a] for a in sorted(range(len(sizes)), key=lambda a: -sizes[a])
               if sizes[a] and a not in done.ranked}
    resident = set(_resident_blocks(sizes))
    on_disk = [a for a in pending if a not in resident]
    with _block_files(path) if on_disk else contextlib.nullcontext(Path()) as directory:
        blocks = {a: np.empty((n, n), dtype=np.int32) if a in resident else
                  np.lib.format.open_memmap(directory / f"{a}.npy", mode="w+",
                                            dtype=np.int32, shape=(n, n))
                  for a, n in pending.items()}
        for a, saved in done.blocks.items():  # the rows the checkpoint holds
            blocks[a][:len(saved)] = saved
        done.blocks = {a: blocks[a][:min(done.rows, n)] for a, n in pending.items()}
        save = ProgressSaver(path, identity)
        if pending and done.rows < max(pending.values()):
            _evaluate_pass(config, seed, prime, sizes, evaluator, show, pending, blocks,
                           done, save)
        for a in list(pending):  # largest first; each int32 block freed once ranked
            done.blocks.pop(a, None)
            ranked = _rank_block(blocks.pop(a), a, bounds[a], config.depth, prime, margin)
            done.ranked[a] = asdict(ranked)
            save(done)
    done.rows = 0
    save(done, final=True)  # everything: a run with this checkpoint returns at once
    return done


def _evaluate_pass(config: SeparationRankConfig, seed: int, prime: int, sizes: list[int],
                   evaluator: Callable[..., np.ndarray], show: bool, pending: dict[int, int],
                   blocks: dict[int, np.ndarray], done: BlockProgress,
                   save: ProgressSaver) -> None:
    """The rows of ``pending``'s blocks from ``done.rows`` on, into ``blocks``: the
    weights and grid points drawn from ``seed`` as by every run of this measurement."""
    partition = config.split
    weights = draw_linear_attention_weights(config.width, config.depth, config.heads, 0, 1,
                                            seed, prime=prime)
    generator = spawn_generators(seed, 1, GRID_STREAM)[0]
    points = max(sizes)
    XP = generator.integers(0, prime, (points, len(partition.p_positions), config.width))
    XQ = generator.integers(0, prime, (points, len(partition.q_positions), config.width))
    with tqdm(total=max(pending.values()), initial=done.rows, desc="blocks", unit=" rows",
              delay=2.0, disable=not show, leave=False) as bar:
        evaluate_blocks(weights, partition, XP, XQ, config.coordinate, pending, evaluator,
                        bar, blocks, done.rows, _Recorder(done, blocks, pending, save))


def _rank_block(matrix: np.ndarray, degree: int, bound: int, depth: int, prime: int,
                margin: int) -> BlockRank:
    start = time.perf_counter()
    grid = matrix.shape[0]
    # the caller hands over its only reference: dropping ours frees the int32 block
    # while the wider copy is ranked (0.5 GB of 1.6 at a 11,448² block)
    wide = np.asarray(matrix).astype(np.float64 if prime < MAX_PRIME
                                     and grid >= GEMM_RANK_MIN_SIDE else np.int64)
    del matrix
    if wide.dtype == np.float64:
        rank = rank_of_float_residues(wide, prime)
    else:
        rank = rank_mod(wide, prime)
    del wide
    seconds = time.perf_counter() - start
    if rank > bound:  # a certified lower bound above a proved upper bound: never silent
        raise BoundViolation(f"block a = {degree}: rank {rank} exceeds its proved bound "
                              f"{bound}; the bound or the evaluation is wrong")
    if rank == bound:
        reason, failure = "upper-bound", 0.0
    elif rank + margin <= grid:
        reason, failure = "margin", schwartz_zippel_bound(rank, depth, prime)
    else:
        reason, failure = "max-points", None
    return BlockRank(degree=degree, bound=bound, grid=grid, rank=rank, reason=reason,
                     failure_probability=failure, rank_seconds=seconds)
