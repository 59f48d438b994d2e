"""Rank over GF(p): :func:`rank_mod`, by python-flint or, for large matrices over a prime
below 2^26, at BLAS speed by a recursive LU whose updates are float64 GEMMs.

The method of fflas-ffpack (Dumas, Giorgi & Pernet, "Dense linear algebra
over word-size prime fields: the FFLAS and FFPACK packages", ACM TOMS 35(3),
2008): residues are stored as float64 integers, products are summed by the
machine's GEMM, and the reduction modulo p is *delayed* until the sums could
stop being exact.

Exactness (proof). Residues are kept *centred*: after every reduction an
entry x satisfies |x| ≤ B with B = ⌊p/2⌋ + 2 (see :func:`_reduce`). A float64
holds every integer of magnitude ≤ 2^53 exactly, and a sum of integers whose
partial sums all stay ≤ 2^53 in magnitude is computed exactly whatever order
BLAS adds them in. A product of two entries is ≤ B², so an inner dimension
k with k·B² ≤ 2^52 gives exact dot products (:func:`inner_limit`). For
p ≤ 2^21 that is one GEMM per update with k up to 4096. For 2^21 < p < 2^26
the right factor is split into two balanced limbs, b = b_hi·2^s + b_lo with
|b_lo|, |b_hi| ≤ 2^(s−1) + 1: each product is ≤ B·(2^(s−1) + 1) and k reaches
2^15; the two reduced halves are recombined as r_hi·(2^s mod p) + r_lo, each
term ≤ B², exact while 2B² ≤ 2^52, i.e. p < 2^26 (why larger primes are refused).

Algorithm. Recursive LU with row pivoting on the column halves (Toledo 1997,
"Locality of reference in LU decomposition with partial pivoting", SIAM J.
Matrix Anal. Appl. 18(4)): factor the left half, apply its row permutation to
the right half, solve U₁₂ = L₁₁⁻¹ A₁₂ (recursive triangular solve), form the
Schur complement S = A₂₂ − L₂₁ U₁₂ by GEMM, factor S. A column whose Schur
complement is zero is dependent and dropped, so rank(A) = rank(A₁) + rank(S).
Narrow panels (≤ :data:`BASE_COLUMNS` columns) are factored through their top
block when it is invertible (FLINT inverts it, one GEMM gives L; see
:func:`_eliminate_panel`), else column by column. Only L is kept: the rank
needs the Schur complements, which L and the right half determine. Work:
(2/3)n³ multiply-adds for an n × n matrix of full rank (times two for two
limbs), almost all in GEMMs.

Memory: the float64 copy of the matrix plus row blocks of
:data:`UPDATE_ROWS` rows for the GEMM products; the input is never modified.
"""

from __future__ import annotations

import flint
import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.rank.arithmetic.modular import MAX_PRIME, check_prime
from attndepth.simulations.threads import available_cores
from attndepth.validation import check_int

#: Panels at most this wide are eliminated column by column in int64.
BASE_COLUMNS = 16
#: Rows per GEMM in a Schur-complement update (bounds the temporaries).
UPDATE_ROWS = 2048
#: Columns of the right factor split into limbs at once in a Schur-complement update.
UPDATE_COLUMNS = 1024
#: Columns per chunk when pivot columns move left after the recursion.
MOVE_COLUMNS = 256
#: Entries per pass of a reduction (cache-sized).
REDUCE_CHUNK = 1 << 15
#: Exact sums stay at or below this magnitude (half of float64's 2^53, see module proof).
EXACT_LIMIT = 2**52


def centred_bound(prime: int) -> int:
    """B = ⌊p/2⌋ + 2, the magnitude bound of every stored residue (:func:`_reduce`)."""
    return prime // 2 + 2


def limb_bits(prime: int) -> int:
    """Bits s of the low limb of the right factor, or 0 for no split (module proof).

    No split while a single GEMM stays exact for inner dimension ≥ 1024.
    """
    bound = centred_bound(prime)
    if EXACT_LIMIT // bound**2 >= 1024:
        return 0
    return (bound.bit_length() + 1) // 2 + 1


def inner_limit(prime: int) -> int:
    """Largest inner dimension k whose GEMM sums, plus one residue, stay ≤ 2^52 (exact)."""
    bound = centred_bound(prime)
    bits = limb_bits(prime)
    factor = bound if bits == 0 else 2 ** (bits - 1) + 1
    return (EXACT_LIMIT - bound) // (bound * factor)


class _Field:
    """Centred float64 arithmetic modulo one prime, with delayed reduction."""

    def __init__(self, prime: int):
        if prime >= MAX_PRIME:
            raise InvalidParameter(f"prime must be < 2^26 for the GEMM rank (two float64 limbs), "
                                   f"got {prime}; use rank_mod")
        self.prime = prime
        self.inverse = 1.0 / prime
        self.bits = limb_bits(prime)
        self.inner = inner_limit(prime)
        # rank-one updates (products ≤ B²) a panel takes before it must be reduced
        self.updates = EXACT_LIMIT // centred_bound(prime) ** 2 - 1
        self.high_weight = float(_centre((1 << self.bits) % prime, prime)) if self.bits else 0.0

    def reduce(self, x: np.ndarray) -> np.ndarray:
        """x − p·rint(x/p) in place, for integer-valued |x| ≤ 2^52; returns x.

        The computed quotient x·(1/p) is within 1/p of x/p (two roundings of
        relative size 2^-53 on |x/p| ≤ 2^52/p), so rint gives an integer within
        1/2 + 1/p of x/p and the result is ≤ p/2 + 1 ≤ B in magnitude; p·q and the
        difference are integers below 2^53, so both are exact. Large arrays go
        through in cache-sized row chunks (measured 8× faster than whole-array
        passes on 8·10^6 entries).
        """
        if x.ndim == 2 and x.size > REDUCE_CHUNK:
            step = max(1, REDUCE_CHUNK // x.shape[1])
            for start in range(0, x.shape[0], step):
                self._reduce(x[start:start + step])
        elif x.ndim == 1 and x.size > REDUCE_CHUNK:
            for start in range(0, x.size, REDUCE_CHUNK):
                self._reduce(x[start:start + REDUCE_CHUNK])
        else:
            self._reduce(x)
        return x

    def _reduce(self, x: np.ndarray) -> None:
        quotient = x * self.inverse
        np.rint(quotient, out=quotient)
        quotient *= self.prime
        x -= quotient

    def product(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(a @ b) reduced, a (m, k), b (k, n) centred; exact by the module proof."""
        out = None
        for start in range(0, a.shape[1], self.inner):
            part = self.apply(a[:, start:start + self.inner],
                              self.prepare(b[start:start + self.inner]))
            out = part if out is None else self.reduce(out.__iadd__(part))
        if out is None:
            return np.zeros((a.shape[0], b.shape[1]))
        return out

    def prepare(self, b: np.ndarray) -> np.ndarray:
        """The right factor as the GEMM takes it: itself, or [b_hi | b_lo] with two limbs."""
        if not self.bits:
            return b
        scale = float(1 << self.bits)
        high = np.rint(b / scale)
        low = b - high * scale  # |low| ≤ 2^(s−1), |high| ≤ B/2^s + 1
        return np.concatenate([high, low], axis=1)

    def apply(self, a: np.ndarray, prepared: np.ndarray) -> np.ndarray:
        """(a @ b) reduced from ``prepare(b)``; a's inner dimension ≤ ``inner``."""
        if not self.bits:
            return self.reduce(a @ prepared)
        columns = prepared.shape[1] // 2
        both = self.reduce(a @ prepared)
        out = both[:, :columns] * self.high_weight  # ≤ B², exact
        out += both[:, columns:]
        return self.reduce(out)

    def subtract(self, target: np.ndarray, a: np.ndarray, prepared: np.ndarray) -> None:
        """target ← (target − a @ b) reduced, in place, from ``prepare(b)``.

        Without limbs the product is subtracted unreduced (|target| ≤ B adds at
        most B to a sum :func:`inner_limit` keeps ≤ 2^52 − B). With two, each
        reduced half is subtracted directly: |target| ≤ B + B² + B < 2^52, one
        reduction fewer than going through :meth:`apply`.
        """
        if not self.bits:
            target -= a @ prepared
        else:
            columns = prepared.shape[1] // 2
            both = self.reduce(a @ prepared)
            high = both[:, :columns]
            high *= self.high_weight
            target -= high
            target -= both[:, columns:]
        self.reduce(target)


def matmul_residues(a: np.ndarray, b: np.ndarray, prime: int) -> np.ndarray:
    """(a @ b) mod prime for float64 matrices of integers (|entries| ≤ 2^52), by GEMM.

    Both factors are reduced to centred residues (copies) and multiplied by
    the exact limb scheme of the module docstring; the right factor is the one
    split, so pass the smaller matrix as ``b``. Returns centred residues
    (|x| ≤ ⌊p/2⌋ + 2) as float64.
    """
    field = _Field(check_prime(prime))
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise InvalidParameter(f"need matrices (m, k) and (k, n), got shapes {a.shape} and "
                               f"{b.shape}")
    return field.product(field.reduce(np.array(a, dtype=np.float64)),
                         field.reduce(np.array(b, dtype=np.float64)))


def _centre(value: int, prime: int) -> int:
    return value - prime if value > prime // 2 else value


def _eliminate_panel(A: np.ndarray, field: _Field) -> tuple[int, np.ndarray]:
    """Factor a narrow panel A (m, n ≤ BASE_COLUMNS) in place: one GEMM when its top is
    invertible, else column by column.

    Fast path: if the top n × n block T is invertible modulo p, the panel has
    full column rank, its first n rows are a valid set of pivot rows, and
    A = [I; A₂ T⁻¹]·T is a factorisation with unit-lower L = [I; A₂ T⁻¹]
    (U = T is not kept: the rank needs only L, see :func:`_factor`). T⁻¹ comes
    from FLINT (n² entries), L₂₁ = A₂ T⁻¹ from one exact GEMM — instead of n
    column steps of a dozen NumPy calls each (measured: the panels took 0.13 s
    of 0.45 s at 3000²).
    """
    m, n = A.shape
    if m >= n:
        field.reduce(A)
        inverse = _inverse_mod(A[:n], field.prime)
        if inverse is not None:
            A[n:] = field.product(A[n:], inverse)
            A[:n] = 0.0
            return n, np.arange(m)
    return _eliminate_columns(A, field)


def _inverse_mod(block: np.ndarray, prime: int) -> np.ndarray | None:
    """The centred inverse of a square float64 block of residues modulo ``prime``, or
    None if it is singular (FLINT's ``nmod_mat.inv``)."""
    matrix = flint.nmod_mat(block.astype(np.int64).tolist(), prime)
    try:
        inverse = matrix.inv()
    except ZeroDivisionError:
        return None
    residues = np.array([int(entry) for entry in inverse.entries()], dtype=np.float64)
    residues[residues > prime // 2] -= prime
    return residues.reshape(block.shape)


def _eliminate_columns(A: np.ndarray, field: _Field) -> tuple[int, np.ndarray]:
    """Column-by-column elimination of a narrow panel A (m, n ≤ BASE_COLUMNS), in place.

    Layout on return (the convention of :func:`_factor`): rows permuted by the
    returned ``perm``; the first k columns are the pivot columns with unit-lower
    L (strictly below the diagonal) and U (on and above it); columns k.. are
    dependent and hold nothing of use.

    Reduction is delayed here too: a column and the pivot row are reduced just
    before they are used, the rest of the panel only when ``field.updates``
    rank-one updates (each adding ≤ B² in magnitude) have accumulated.
    """
    m, n = A.shape
    perm = np.arange(m)
    pivots: list[int] = []
    rank = pending = 0
    for j in range(n):
        if rank == m:
            break
        column = field.reduce(A[rank:, j])
        nonzero = np.flatnonzero(column)
        if nonzero.size == 0:
            continue
        pivot = rank + int(nonzero[0])
        if pivot != rank:
            A[[rank, pivot]] = A[[pivot, rank]]
            perm[[rank, pivot]] = perm[[pivot, rank]]
        row = field.reduce(A[rank, j + 1:])
        inverse = float(_centre(pow(int(A[rank, j]) % field.prime, -1, field.prime),
                                field.prime))
        multipliers = field.reduce(A[rank + 1:, j] * inverse)
        A[rank + 1:, j] = multipliers
        if j + 1 < n:
            if pending >= field.updates:
                field.reduce(A[rank + 1:, j + 1:])
                pending = 0
            A[rank + 1:, j + 1:] -= np.multiply.outer(multipliers, row)
            pending += 1
        pivots.append(j)
        rank += 1
    field.reduce(A)
    chosen = set(pivots)
    order = pivots + [j for j in range(n) if j not in chosen]
    A[:] = A[:, order]
    return rank, perm


def _permute_rows(block: np.ndarray, perm: np.ndarray) -> None:
    """block[:] = block[perm], a column chunk at a time (bounded temporaries).

    Only the rows that move are copied (the first nonzero is the pivot, so on
    generic matrices most rows stay).
    """
    moved = np.flatnonzero(perm != np.arange(perm.size))
    if moved.size == 0:
        return
    source = perm[moved]
    for start in range(0, block.shape[1], UPDATE_ROWS):
        chunk = block[:, start:start + UPDATE_ROWS]
        chunk[moved] = chunk[source]


def _subtract_product(target: np.ndarray, left: np.ndarray, right: np.ndarray,
                      field: _Field) -> None:
    """target ← (target − left @ right) reduced, in row blocks of UPDATE_ROWS.

    The right factor is split into limbs once per column chunk, not per row
    block (:meth:`_Field.subtract` does the arithmetic).
    (Splitting the rows over threads with single-threaded BLAS was measured
    slower than BLAS's own threads: 1.0 s against 0.8 s at 3000².)
    """
    if left.shape[1] > field.inner:  # rare: chunk the inner dimension
        for start in range(0, target.shape[0], UPDATE_ROWS):
            block = target[start:start + UPDATE_ROWS]
            block -= field.product(left[start:start + UPDATE_ROWS], right)
            field.reduce(block)
        return
    # the right factor is prepared (split into limbs) one column chunk at a time, so the
    # workspace is k × 2·UPDATE_COLUMNS, not k × 2n (0.5 GB more at an 11,448² matrix)
    for first in range(0, right.shape[1], UPDATE_COLUMNS):
        columns = slice(first, first + UPDATE_COLUMNS)
        prepared = field.prepare(right[:, columns])
        for start in range(0, target.shape[0], UPDATE_ROWS):
            field.subtract(target[start:start + UPDATE_ROWS, columns],
                           left[start:start + UPDATE_ROWS], prepared)


def _solve_unit_lower(L: np.ndarray, B: np.ndarray, field: _Field) -> None:
    """B ← L⁻¹B in place for the unit-lower part of L (k, k) (strictly lower entries)."""
    k = L.shape[0]
    if k <= BASE_COLUMNS:
        if not np.tril(L, -1).any():  # L = I: a panel factored by its fast path
            return
        for i in range(1, k):
            B[i] -= field.product(L[i:i + 1, :i], B[:i])[0]
            field.reduce(B[i])
        return
    half = k // 2
    _solve_unit_lower(L[:half, :half], B[:half], field)
    _subtract_product(B[half:], L[half:, :half], B[:half], field)
    _solve_unit_lower(L[half:, half:], B[half:], field)


def _factor(A: np.ndarray, field: _Field) -> tuple[int, np.ndarray]:
    """Recursive LU of A (m, n) in place; returns (rank k, row permutation).

    On return the rows of A are permuted by ``perm`` and its first k columns
    hold, strictly below the diagonal, the unit-lower L of a factorisation
    A[:, independent] = L·U (all m rows); what lies on and above the diagonal
    is not used (U is needed by no later step of a rank).
    """
    m, n = A.shape
    if m == 0 or n == 0:
        return 0, np.arange(m)
    if n <= BASE_COLUMNS:
        return _eliminate_panel(A, field)
    half = n // 2
    left, right = A[:, :half], A[:, half:]
    k1, perm = _factor(left, field)
    _permute_rows(right, perm)
    if k1:
        _solve_unit_lower(left[:k1, :k1], right[:k1], field)
        _subtract_product(right[k1:], left[k1:, :k1], right[:k1], field)
    k2, perm2 = _factor(right[k1:], field)
    _permute_rows(left[k1:, :k1], perm2)
    perm[k1:] = perm[k1:][perm2]
    if k2 and k1 < half:  # the right half's pivot columns join the left's
        # moved left in column chunks (each copied first: source and target may overlap
        # within a chunk, and a chunk never overwrites a source column still to come)
        for first in range(0, k2, MOVE_COLUMNS):
            last = min(first + MOVE_COLUMNS, k2)
            A[:, k1 + first:k1 + last] = right[:, first:last].copy()
    return k1 + k2, perm


def rank_mod_gemm(matrix: np.ndarray, prime: int) -> int:
    """Rank over GF(prime) by recursive LU with float64 GEMM updates (module docstring).

    Parameters
    ----------
    matrix : array of integers, shape (rows, cols)
        Any integers (reduced modulo ``prime`` first); not modified.
    prime : int
        A prime below 2^26.

    Returns
    -------
    int
        The rank; equal to FLINT's ``nmod_mat.rank`` (the oracle in the tests).
    """
    prime = check_prime(prime)
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise InvalidParameter(f"matrix must be two-dimensional, got shape {matrix.shape}")
    if not np.issubdtype(matrix.dtype, np.integer):
        raise InvalidType(f"matrix must hold integers, got dtype {matrix.dtype}")
    if matrix.shape[1] > matrix.shape[0]:
        matrix = matrix.T  # the recursion halves columns; fewer columns, fewer levels
    work = np.empty(matrix.shape)
    for start in range(0, matrix.shape[0], UPDATE_ROWS):
        block = matrix[start:start + UPDATE_ROWS]
        if block.size and max(-int(block.min()), int(block.max())) > EXACT_LIMIT:
            block = np.mod(block, prime)
        work[start:start + UPDATE_ROWS] = block
    return rank_of_float_residues(work, prime)


def rank_of_float_residues(work: np.ndarray, prime: int) -> int:
    """Rank over GF(prime) of a float64 matrix of integers, **destroying** it.

    For callers that build the matrix in float64 themselves (the degree blocks
    of :mod:`attndepth.rank.degree_blocks`), saving the copy
    :func:`rank_mod_gemm` makes.

    Parameters
    ----------
    work : float64 array, shape (rows, cols), C-contiguous
        Integer values of magnitude ≤ 2^52 (any representatives modulo p);
        overwritten by the factorisation.
    prime : int
        A prime below 2^26.
    """
    prime = check_prime(prime)
    field = _Field(prime)
    if work.dtype != np.float64 or work.ndim != 2:
        raise InvalidType(f"work must be a two-dimensional float64 array, got {work.dtype} "
                          f"with shape {work.shape}")
    for start in range(0, work.shape[0], UPDATE_ROWS):
        field.reduce(work[start:start + UPDATE_ROWS])
    return _factor(work, field)[0]


#: Smallest side from which rank_mod uses the GEMM elimination (primes < 2^26); measured
#: crossover on the 2-core bench machine: equal at 200², GEMM 2.7× faster at 1000².
GEMM_RANK_MIN_SIDE = 256


def rank_mod(matrix: np.ndarray, prime: int, threads: int | None = None) -> int:
    """Rank over GF(prime) of an integer matrix.

    Matrices with both sides ≥ :data:`GEMM_RANK_MIN_SIDE` over a prime below 2^26
    go to :func:`rank_mod_gemm` (recursive LU
    with float64 GEMM updates); everything else to python-flint's ``nmod_mat``,
    which is also the GEMM path's oracle in the tests.

    Parameters
    ----------
    matrix : array of int64, shape (rows, cols)
        Entries in [0, prime).
    prime : int
    threads : int, optional
        FLINT threads for the elimination (default: the available cores;
        restored afterwards; the GEMM path uses BLAS's threads). Measured on the
        2-core bench machine: 2 threads take the rank of a 2500² matrix 1.6× faster
        than FLINT's default of 1.

    Notes
    -----
    The matrix enters FLINT through ``fmpz_mat`` (about 1.6× faster than
    building an ``nmod_mat`` entry by entry from Python integers, bench/RESULTS.md).
    """
    rows, cols = matrix.shape
    if rows == 0 or cols == 0:
        return 0
    if prime < MAX_PRIME and min(rows, cols) >= GEMM_RANK_MIN_SIDE:
        return rank_mod_gemm(matrix, prime)
    threads = available_cores() if threads is None else check_int("threads", threads, minimum=1)
    integers = flint.fmpz_mat(matrix.tolist())
    previous = flint.ctx.threads
    flint.ctx.threads = threads
    try:
        return int(flint.nmod_mat(integers, prime).rank())
    finally:
        flint.ctx.threads = previous
