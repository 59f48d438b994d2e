"""Degree blocks split again by torus weight: far smaller matrices, at weights that commute.

Why. A degree block F_a of d = 5, L = 3, |P| = |Q| = 5 has bound 116,280; as
a dense matrix it does not fit in memory. At weights that commute with
rotations the coefficient matrix of f_a is itself block diagonal, by the
weight of a torus, and the blocks are about T times smaller (T classes).

Weights. ``planes = ⌊d/2⌋`` coordinate planes (0, 1), (2, 3), …; the
commutant C consists of the matrices that are 2 × 2 blocks α·I + β·J on the
planes (J = [[0, −1], [1, 0]]) and a free entry γ at (d − 1, d − 1) when d is
odd. :func:`commutant_weights` draws A_l, B_l ∈ C uniformly over GF(p) (one
head, ρ = 0). The output functional is u = e_{d−1} for odd d and
u = e_0 + ι·e_1 (ι² = −1) for even d, realised as the last layer's row
``coordinate`` of B replaced by uᵀB (only that row of the last B enters f).

Proof that the split is exact. Let p ≡ 1 (mod 4·N) be prime, ι ∈ GF(p) a
square root of −1, and R(λ) the matrix acting on plane k by
[[(λ_k + λ_k⁻¹)/2, −(λ_k − λ_k⁻¹)/(2ι)], [(λ_k − λ_k⁻¹)/(2ι), (λ_k + λ_k⁻¹)/2]]
and as 1 on the free coordinate, over the Laurent ring GF(p)[λ^{±1}].

1. R(λ)ᵀR(λ) = I and R(λ) commutes with C (each plane's block is
   a·I + b·J with a² + b² = 1). Hence, for tokens x ↦ R x all at once,
   M ↦ R M Rᵀ, T_l = Σ B M Aᵀ ↦ R T_l Rᵀ (B R = R B, Rᵀ Aᵀ = Aᵀ Rᵀ), v ↦ R v,
   and the output y ↦ R y: a polynomial identity over the ring.
2. In the coordinates z_k = x_{2k} + ι x_{2k+1}, z̄_k = x_{2k} − ι x_{2k+1}
   (an invertible change of each token, det = −2ι), R(λ) is diagonal:
   z_k ↦ λ_k z_k, z̄_k ↦ λ_k⁻¹ z̄_k. A monomial has the weight
   w ∈ ℤ^planes, w_k = (# z_k) − (# z̄_k). The functional satisfies
   uᵀR(λ) = λ^χ uᵀ (χ = 0 for e_{d−1}; for e_0 + ι e_1, uᵀx = z_0 and χ = e_0).
3. By 1 and 2, f(R(λ)x_P, R(λ)x_Q) = λ^χ f(x_P, x_Q) identically in λ, so every
   monomial z^α(P) z^β(Q) of f has weight(α) + weight(β) = χ. The
   coefficient matrix C_a of f_a (rows: P-monomials in z, columns:
   Q-monomials) is block diagonal by the P-weight w, and so by any coarser
   grading: the class c = w mod N ∈ (ℤ/N)^planes. Hence
   rank C_a = Σ_c rank C_{a,c}, C_{a,c} the coefficient matrix of
   f_{a,c} := Σ_{w ≡ c} f_{a,w}.
4. Separating the classes: with ζ of order N and R_s := R(ζ^{s_1}, …),
   rotating the P tokens alone gives f_a(R_s x_P, x_Q) = Σ_w ζ^{s·w} f_{a,w}
   = Σ_c ζ^{s·c} f_{a,c}, so f_{a,c} = N^{−planes} Σ_s ζ^{−s·c} f_a(R_s x_P, x_Q)
   (discrete Fourier inversion on (ℤ/N)^planes; N is invertible mod p).
   Each pair of grid points is evaluated at the T = N^planes rotations of its
   P point, and the degree parts are separated as in
   :mod:`~attndepth.rank.degree_blocks`; both gradings commute
   (scaling x_Q commutes with rotating x_P).
5. Certificate: F_{a,c}[r, s] = f_{a,c}(x_P^(r), x_Q^(s)) factors through
   C_{a,c}, so Σ_{a,c} rank F_{a,c} ≤ rank of f's coefficient matrix over GF(p)
   ≤ its rank over ℚ for the integer lift of the weights (minors vanishing
   over ℤ vanish mod p) = the separation rank of that integer network ≤ the
   generic separation rank. It is **proved** equal to the generic rank when
   it meets bound (d); otherwise it is a certified **lower bound** only — the
   commuting weights are special, and their rank can fall short of the
   generic one (d = 3, L = 3, |P| = |Q| = 3: 3,098 of 3,102 at seed 0).

Cost. A block of side n costs n² pair evaluations; T classes of side n cost
T·n² and hold about T times the rank, so capping each class at n certifies
what a dense block of side T·n would, at 1/T of its evaluations and 1/T of its
memory. Classes are nearly equal when the weight spread per plane (about
√a) exceeds N; T beyond that gains little.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import flint
import numpy as np
from tqdm import tqdm

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.rank.arithmetic.modular import check_prime
from attndepth.rank.arithmetic.modular_rank import (
    GEMM_RANK_MIN_SIDE,
    matmul_residues,
    rank_mod,
    rank_of_float_residues,
)
from attndepth.rank.budget import (
    MAX_BLOCK_SECONDS,
    check_block_case,
    check_progress,
    refuse_over_budget,
)
from attndepth.rank.degree_blocks import (
    CHUNK_ENTRIES,
    BlockMeasurement,
    BlockRank,
    BoundViolation,
    separating_scales,
)
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured_scales
from attndepth.rank.grids import (
    DEFAULT_MARGIN,
    SeparationRankConfig,
)
from attndepth.rank.network import LinearAttentionWeights
from attndepth.rank.partitions import Partition
from attndepth.simulations.seeding import GRID_STREAM, WEIGHTS_STREAM, spawn_generators
from attndepth.validation import check_int, check_margin, check_size

#: Rotations per plane (N): 6 splits a block into 36 classes at d = 4, 5 (T = N^⌊d/2⌋).
DEFAULT_ORDER = 6
#: Largest N accepted (T grows as N^⌊d/2⌋).
MAX_ORDER = 16
#: Largest number of classes T accepted.
MAX_CLASSES = 4096
#: Default points per side of every class (capped classes give lower bounds).
DEFAULT_CLASS_POINTS = 1024
#: Largest class grid (a dense class of this side is 128 MiB as float64).
MAX_CLASS_POINTS = 4096
#: Primes below this are ranked by the GEMM LU (as the degree blocks' default field).
PRIME_LIMIT = 1 << 26
#: Seconds per evaluated pair, rotation and scale on this 2-core machine up to d = 5:
#: d = 5, L = 3, |P| = |Q| = 5, T = 36 took 355 s on 1,024-point classes (estimate
#: 317 s) and 215 s on 835-point classes (estimate 211 s). Beyond d = 5 the cost grows
#: like d⁴ (the d² × d² transfers): d = 6, |P| = |Q| = 2, T = 216 on 164- and then
#: 246-point classes took about 330 s (estimate 330 s).
SECONDS_PER_PAIR_SCALE = 6e-7


def estimated_seconds(classes: int, sizes: Sequence[int], width: int = 5) -> float:
    """Up-front time estimate of the evaluation: T·max(n)² pairs at every scale.

    Parameters
    ----------
    classes : T.
    sizes : points per side of the largest class of each block a = 0 … K.
    width : d; the cost per pair grows like (d/5)⁴ beyond d = 5.

    Returns
    -------
    float, seconds on this machine (2 cores).
    """
    per_pair = SECONDS_PER_PAIR_SCALE * max(1.0, (width / 5) ** 4)
    return per_pair * classes * max(sizes) ** 2 * len(sizes)


@functools.cache
def torus_prime(order: int) -> int:
    """The largest prime p < 2^26 with p ≡ 1 (mod lcm(4, N)): ι and ζ_N lie in GF(p).

    Parameters
    ----------
    order : N ≥ 1, the order of the rotations.

    Returns
    -------
    int
    """
    order = check_int("order", order, minimum=1, maximum=MAX_ORDER)
    step = math.lcm(4, order)
    candidate = (PRIME_LIMIT - 2) // step * step + 1
    while not flint.fmpz(candidate).is_prime():
        candidate -= step
    return candidate


def _root_of_unity(order: int, prime: int) -> int:
    """A primitive ``order``-th root of unity in GF(prime) (order divides prime − 1)."""
    factors = [int(q) for q, _ in flint.fmpz(order).factor()]
    for g in range(2, prime):
        z = pow(g, (prime - 1) // order, prime)
        if all(pow(z, order // q, prime) != 1 for q in factors):
            return z
    raise InvalidParameter(f"GF({prime}) has no element of order {order}")  # pragma: no cover


def check_torus_prime(prime: object, order: int) -> int:
    """``prime`` if it is a prime below 2^26 with p ≡ 1 (mod lcm(4, N)), else a clear error.

    Parameters
    ----------
    prime : the candidate field size.
    order : N; GF(p) must hold ι (ι² = −1) and a primitive N-th root of unity.

    Returns
    -------
    int, the prime.
    """
    prime = check_prime(prime)
    step = math.lcm(4, order)
    if prime >= PRIME_LIMIT or prime % step != 1:
        raise InvalidParameter(f"the torus split needs a prime below 2^26 with p = 1 mod "
                               f"{step} (square roots of -1 and of unity of order {order}), "
                               f"got {prime}; the default is {torus_prime(order)}")
    return prime


@dataclass(frozen=True)
class Torus:
    """The rotations R_s, s ∈ (ℤ/N)^planes, and the Fourier inversion to the classes.

    Attributes
    ----------
    width, order, prime : d, N and p.
    iota : ι with ι² = −1 mod p.
    rotations : (T, d, d) int64; R_s rotates plane k by ζ^{s_k}.
    inversion : (T, T) int64; f_c = Σ_s inversion[c, s]·f(R_s x_P, x_Q)
        (= N^{−planes} ζ^{−s·c}).
    classes : the T classes c, in the order of ``inversion``'s rows.
    """

    width: int
    order: int
    prime: int
    iota: int
    rotations: np.ndarray
    inversion: np.ndarray
    classes: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> int:
        """T, the number of classes."""
        return len(self.classes)


def make_torus(width: int, order: int, prime: int) -> Torus:
    """The rotations and the inversion of the module docstring (step 4).

    Parameters
    ----------
    width : d ≥ 1; ⌊d/2⌋ planes.
    order : N, 1 ≤ N ≤ :data:`MAX_ORDER`.
    prime : p ≡ 1 (mod lcm(4, N)), below 2^26.

    Returns
    -------
    Torus
    """
    width = check_int("width", width, minimum=1)
    order = check_int("order", order, minimum=1, maximum=MAX_ORDER)
    prime = check_torus_prime(prime, order)
    planes = width // 2
    if order ** planes > MAX_CLASSES:
        raise InvalidParameter(f"N^planes = {order}^{planes} = {order ** planes} classes, more "
                               f"than {MAX_CLASSES}; take a smaller order")
    iota = _root_of_unity(4, prime)
    zeta = _root_of_unity(order, prime)
    half, half_iota = pow(2, -1, prime), pow(2 * iota, -1, prime)
    elements = tuple(itertools.product(range(order), repeat=planes))
    rotations = np.zeros((len(elements), width, width), dtype=np.int64)
    for index, element in enumerate(elements):
        rotations[index] = np.eye(width, dtype=np.int64)
        for plane, power in enumerate(element):
            z = pow(zeta, power, prime)
            z_inv = pow(z, -1, prime)
            cos, sin = (z + z_inv) * half % prime, (z - z_inv) * half_iota % prime
            k = 2 * plane
            rotations[index, k, k] = rotations[index, k + 1, k + 1] = cos
            rotations[index, k, k + 1], rotations[index, k + 1, k] = (-sin) % prime, sin
    scale = pow(order ** planes, -1, prime)
    inversion = np.array([[scale * pow(zeta, -sum(a * b for a, b in zip(c, s, strict=True))
                                       % order, prime) % prime
                           for s in elements] for c in elements], dtype=np.int64)
    return Torus(width=width, order=order, prime=prime, iota=iota, rotations=rotations,
                 inversion=inversion, classes=elements)


def coordinate_weights(width: int) -> list[tuple[int, ...]]:
    """The torus weight of each coordinate of z: z_k ↦ +e_k, z̄_k ↦ −e_k, the free one 0.

    Parameters
    ----------
    width : d.

    Returns
    -------
    d weight vectors in ℤ^⌊d/2⌋ (z_0, z̄_0, z_1, z̄_1, …, then the free coordinate).
    """
    planes = check_int("width", width, minimum=1) // 2
    weights = []
    for plane in range(planes):
        for sign in (1, -1):
            weights.append(tuple(sign if k == plane else 0 for k in range(planes)))
    if width % 2:
        weights.append((0,) * planes)
    return weights


def class_bounds(width: int, depth: int, torus: Torus) -> list[list[int]]:
    """Upper bounds of rank C_{a,c} at commuting weights: monomials counted by class.

    In the coordinates z (module docstring), f depends on x_Q through the
    entries G_kl = Σ_q z_{q,k} z_{q,l} (k ≤ l) of the Gram matrix, of weight
    w_k + w_l, and on x_P through x^i_k (weight w_k) times the entries of the P
    Gram matrix (structural lemma). So the Q side of f_{a,c} lies in the span
    of the degree-a monomials in the G_kl of weight ≡ χ − c (mod N), and the P
    side in the span of x^i_k times the degree-(K − a) monomials of weight
    ≡ c − w_k; rank C_{a,c} is at most the smaller count. These spanning sets
    may be dependent (|Q| < d, |P| ≤ d), so the bound need not be met; and
    Σ_c of it may lie below the block's generic bound, since the torus grading
    trades rows against columns class by class.

    Parameters
    ----------
    width, depth : d and L.
    torus : the classes (:func:`make_torus`).

    Returns
    -------
    bounds[a][c] for a = 0 … K and c in ``torus.classes`` order.
    """
    if not isinstance(torus, Torus):
        raise InvalidType(f"torus must be a Torus (make_torus), got {type(torus).__name__}")
    width = check_int("width", width, minimum=1)
    if width != torus.width:
        raise InvalidParameter(f"the torus is for width {torus.width}, got width {width}")
    order, degree = torus.order, (3 ** check_int("depth", depth, minimum=1) - 1) // 2
    index = {c: k for k, c in enumerate(torus.classes)}
    coordinates = coordinate_weights(width)
    planes = width // 2

    def shift(c: tuple[int, ...], w: tuple[int, ...], sign: int = 1) -> int:
        return index[tuple((a + sign * b) % order for a, b in zip(c, w, strict=True))]

    # counts[b][c]: degree-b monomials in the Gram entries of weight class c
    entries = [tuple(a + b for a, b in zip(coordinates[k], coordinates[l], strict=True))
               for k in range(width) for l in range(k, width)]
    counts = np.zeros((degree + 1, torus.size), dtype=object)
    counts[0, index[(0,) * planes]] = 1
    for entry in entries:
        moved = np.array([shift(c, entry, -1) for c in torus.classes])
        for b in range(1, degree + 1):  # unbounded multiplicity: ascending degrees
            counts[b] += counts[b - 1][moved]
    chi = (0,) * planes if width % 2 else coordinates[0]
    bounds = []
    for a in range(degree + 1):
        row = []
        for c in torus.classes:
            q_side = counts[a][shift(chi, c, -1)]
            p_side = sum(counts[degree - a][shift(c, w, -1)] for w in coordinates)
            row.append(int(min(q_side, p_side)))
        bounds.append(row)
    return bounds


def commutant_weights(width: int, depth: int, seed: int, prime: int) -> tuple[
        LinearAttentionWeights, int]:
    """Weights A_l, B_l in the commutant of the rotations, and the output coordinate.

    Each plane's 2 × 2 block is α·I + β·J and the free diagonal entry (odd d)
    γ, all uniform in GF(p), independently per layer and matrix (one head,
    ρ = 0). For even d the last layer's row 0 of B becomes uᵀB,
    u = e_0 + ι·e_1 (module docstring), so that f has one torus weight.

    Parameters
    ----------
    width, depth : d ≥ 1 and L ≥ 1.
    seed : seed of the draw (stream of the weights).
    prime : p ≡ 1 (mod 4), below 2^26.

    Returns
    -------
    weights : LinearAttentionWeights, batch 1, one head.
    coordinate : the output row read: d − 1 for odd d, 0 for even d.
    """
    width = check_int("width", width, minimum=1)
    depth = check_int("depth", depth, minimum=1)
    prime = check_torus_prime(prime, 1)
    rng = spawn_generators(seed, 1, WEIGHTS_STREAM)[0]
    planes = width // 2

    def draw() -> np.ndarray:
        matrix = np.zeros((width, width), dtype=np.int64)
        for plane in range(planes):
            alpha, beta = (int(v) for v in rng.integers(0, prime, 2))
            k = 2 * plane
            matrix[k, k] = matrix[k + 1, k + 1] = alpha
            matrix[k, k + 1], matrix[k + 1, k] = (-beta) % prime, beta
        if width % 2:
            matrix[width - 1, width - 1] = int(rng.integers(0, prime))
        return matrix

    bilinear = np.stack([draw() for _ in range(depth)])[None, :, None]
    value_output = np.stack([draw() for _ in range(depth)])[None, :, None]
    coordinate = width - 1
    if width % 2 == 0:
        coordinate = 0
        iota = _root_of_unity(4, prime)
        last = value_output[0, depth - 1, 0]
        last[0] = (last[0] + iota * last[1]) % prime  # row 0 := (e_0 + ι e_1)ᵀ B
    return LinearAttentionWeights(bilinear=bilinear, value_output=value_output, residual=0,
                                  prime=prime, seed=seed), coordinate


def evaluate_torus_blocks(weights: LinearAttentionWeights, partition: Partition,
                          XP: np.ndarray, XQ: np.ndarray, coordinate: int, torus: Torus,
                          sizes: Mapping[int, Sequence[int]], bar: tqdm | None = None
                          ) -> dict[int, list[np.ndarray]]:
    """The evaluation matrices F_{a,c} of every degree a in ``sizes`` and every class c.

    Parameters
    ----------
    weights : commuting weights (:func:`commutant_weights`) over ``torus.prime``.
    XP : (≥ max n, |P|, d), XQ : (≥ max n, |Q|, d) int64 residues.
    coordinate : the output row the weights were built for.
    torus : :func:`make_torus` (d, N, p).
    sizes : {a: [n_{a,c} for c in torus.classes]};
        F_{a,c}[r, s] = f_{a,c}(XP[r], XQ[s]) for r, s < n_{a,c}.

    Returns
    -------
    {a: [(n_{a,c}, n_{a,c}) int32 arrays of centred residues, class order of the torus]}.
    """
    prime = weights.prime
    if prime != torus.prime:
        raise InvalidParameter(f"the weights are over GF({prime}), the torus over "
                               f"GF({torus.prime})")
    degree = (3 ** weights.depth - 1) // 2
    scales, inverse = separating_scales(degree, prime)
    count = torus.size
    widest = {a: max(row) for a, row in sizes.items()}
    points = max(widest.values())
    blocks = {a: [np.empty((n, n), dtype=np.int32) for n in row] for a, row in sizes.items()}
    rotate_t = np.ascontiguousarray(np.swapaxes(torus.rotations, 1, 2))
    rows_per_chunk = max(1, CHUNK_ENTRIES // (points * len(scales) * count))
    # one chunk holds its evaluations, their degree parts and their classes at once
    check_size("one chunk of the torus evaluation", 3 * rows_per_chunk * points * len(scales)
               * count)
    for start in range(0, points, rows_per_chunk):
        rows = slice(start, min(start + rows_per_chunk, points))
        base = XP[rows]  # (r, |P|, d)
        rotated = np.concatenate([base @ rotate_t[s] % prime for s in range(count)])
        columns = max(n for n in widest.values() if n > start)
        scaled = evaluate_structured_scales(weights, partition, rotated, XQ[:columns],
                                            coordinate, scales)  # (T r, m, S)
        # degree parts F_{a} = Σ_j inverse[a, j] F_j, then classes Σ_s inversion[c, s] F_s
        parts = matmul_residues(scaled.reshape(-1, len(scales)), inverse.T, prime)
        del scaled
        r = rows.stop - rows.start
        parts = parts.reshape(count, r * columns * len(scales))
        classes = matmul_residues(np.ascontiguousarray(parts.T), torus.inversion.T, prime)
        del parts
        classes = classes.reshape(r, columns, len(scales), count)
        for a, row in sizes.items():
            for c, n in enumerate(row):
                if n > start:
                    stop = min(rows.stop, n)
                    blocks[a][c][start:stop] = classes[:stop - start, :n, a, c]
        if bar is not None:
            bar.update(r)
    return blocks


def _rank(matrix: np.ndarray, prime: int) -> int:
    if matrix.shape[0] >= GEMM_RANK_MIN_SIDE:
        return rank_of_float_residues(matrix.astype(np.float64), prime)
    return rank_mod(matrix.astype(np.int64) % prime, prime)


def measure_torus_ranks(config: SeparationRankConfig, bounds: list[int], seed: int = 0,
                        order: int = DEFAULT_ORDER, prime: int | None = None,
                        margin: int = DEFAULT_MARGIN,
                        max_points: int = DEFAULT_CLASS_POINTS,
                        progress: bool = False,
                        max_seconds: float = MAX_BLOCK_SECONDS) -> BlockMeasurement:
    """Rank of every class F_{a,c} of ``config``'s f at commuting weights (module docstring).

    Parameters
    ----------
    config : one head, ρ = 0 (the degree blocks need ρ = 0; the commutant is drawn
        for one head). Its ``coordinate`` is not used: the output row is set by
        :func:`commutant_weights`.
    bounds : proved bound of each degree block a = 0 … K
        (``attndepth.theory.separation_rank.degree_block_bounds``).
    seed : seed of the weights and of the grid points.
    order : N, rotations per plane; T = N^⌊d/2⌋ classes.
    prime : p ≡ 1 (mod lcm(4, N)) below 2^26; default :func:`torus_prime` (N).
    margin : a class is saturated at these weights when its rank ≤ grid − margin.
    max_points : points per side of every class (≤ :data:`MAX_CLASS_POINTS`);
        class c of block a uses min(class bound + margin, max_points)
        (:func:`class_bounds`; a class bound of 0 is not evaluated).
    progress : a tqdm bar over the grid rows (after 2 s).
    max_seconds : refuse up front when :func:`estimated_seconds` exceeds it
        (``math.inf``: no limit).

    Returns
    -------
    BlockMeasurement
        Method ``torus``: each block with its classes' bounds and ranks.
    """
    bounds = check_block_case(config, bounds, "torus", one_head=True)
    degree = len(bounds) - 1
    order = check_int("order", order, minimum=1, maximum=MAX_ORDER)
    prime = torus_prime(order) if prime is None else check_torus_prime(prime, order)
    max_points = check_int("max_points", max_points, minimum=2, maximum=MAX_CLASS_POINTS)
    margin = check_margin(margin)
    progress = check_progress(progress)
    torus = make_torus(config.width, order, prime)
    limits = class_bounds(config.width, config.depth, torus)
    sizes = {a: [min(limit + margin, max_points) if limit else 0 for limit in row]
             for a, row in enumerate(limits)}
    check_size("the torus classes of every degree block",  # int32: half a float64 each
               sum(n * n for row in sizes.values() for n in row) // 2)
    widest = [max(row) for row in sizes.values()]
    refuse_over_budget(f"{torus.size} classes of the {len(sizes)} degree blocks on up to "
                       f"{max(widest)}² points",
                       estimated_seconds(torus.size, widest, config.width), max_seconds)
    weights, coordinate = commutant_weights(config.width, config.depth, seed, prime)
    partition = config.split
    generator = spawn_generators(seed, 1, GRID_STREAM)[0]
    points = max(widest)
    XP = generator.integers(0, prime, (points, len(partition.p_positions), config.width))
    XQ = generator.integers(0, prime, (points, len(partition.q_positions), config.width))
    start = time.perf_counter()
    with tqdm(total=points, desc="torus blocks", unit=" rows", delay=2.0,
              disable=not progress, leave=False) as bar:
        built = evaluate_torus_blocks(weights, partition, XP, XQ, coordinate, torus, sizes,
                                      bar)
    eval_seconds = time.perf_counter() - start
    results = []
    for a in range(degree + 1):
        start = time.perf_counter()
        stack = built.pop(a)
        ranks = tuple(_rank(matrix, prime) if matrix.size else 0 for matrix in stack)
        del stack
        for c, (rank_c, limit) in enumerate(zip(ranks, limits[a], strict=True)):
            if rank_c > limit:
                raise BoundViolation(f"block a = {a}, class {torus.classes[c]}: rank {rank_c} "
                                     f"exceeds the class bound {limit}; the bound or the "
                                     f"evaluation is wrong")
        rank = sum(ranks)
        if rank > bounds[a]:
            raise BoundViolation(f"block a = {a}: the classes sum to {rank}, above its proved "
                                 f"bound {bounds[a]}; the bound or the evaluation is wrong")
        settled = all(r == limit or r + margin <= n
                      for r, limit, n in zip(ranks, limits[a], sizes[a], strict=True))
        reason = ("upper-bound" if rank == bounds[a] else
                  "weights" if settled else "max-points")
        results.append(BlockRank(degree=a, bound=bounds[a], grid=max(sizes[a]), rank=rank,
                                 reason=reason,
                                 failure_probability=0.0 if reason == "upper-bound" else None,
                                 rank_seconds=time.perf_counter() - start,
                                 class_bounds=tuple(limits[a]), class_ranks=ranks))
    return BlockMeasurement(blocks=tuple(results), prime=prime, seed=seed, margin=margin,
                            eval_seconds=eval_seconds, method="torus", order=order,
                            classes=torus.size)
