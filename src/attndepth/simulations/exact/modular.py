"""Exact arithmetic modulo a prime p < 2^31 with NumPy.

:func:`matmul_mod` (the only place products are summed) picks one of three
overflow-free strategies by the inner dimension k and the prime. Entries are
residues ``0 ≤ a_ik, b_kj ≤ p − 1 < 2^31``, so each product is ≤ (p − 1)² < 2^62.

1. **Lazy uint64** (k ≤ c with ``c = ⌊(2^64 − 1)/(p − 1)²⌋``, c ≥ 4 for every
   p < 2^31): a sum of k ≤ c products is ≤ c·(p − 1)² ≤ 2^64 − 1, so one uint64
   matmul and one reduction are exact. Tiny batched products (the d × d
   matrices of the separation-rank evaluator) take this path.
2. **float64 BLAS, b split in 16-bit limbs** (b two-dimensional, a shared
   right factor, and ``k·(p − 1)·(2^16 − 1) < 2^53``, i.e. k ≤ 64 for p ≈ 2^31):
   ``b = b_hi·2^16 + b_lo`` with ``b_lo < 2^16`` and ``b_hi < 2^15``. Every product
   ``a·b_lo, a·b_hi`` is < 2^47 and a sum of k of them is < 2^53, an integer that
   float64 represents exactly; every partial sum is such an integer too, so
   BLAS's rounding never acts. Then ``((hi mod p)·2^16 + lo) mod p`` in int64,
   with ``(hi mod p)·2^16 + lo < 2^47 + 2^53``.
3. **int64 with a split in 16-bit limbs** (otherwise; k ≤ 2^16): split
   ``a = a_hi·2^16 + a_lo`` with ``a_lo < 2^16``, ``a_hi < 2^15``; each product
   ``a_lo·b < 2^47``, ``a_hi·b < 2^46``, so a sum over k ≤ 2^16 stays < 2^63;
   reduce both, then ``(hi·2^16 + lo) mod p`` with ``hi·2^16 + lo < 2^48``.

In each case the result equals ``(a @ b) mod p`` because the integer identity
``a @ b = 2^16·(a_hi @ b) + a_lo @ b`` (or its transpose for b) holds exactly.
"""

from __future__ import annotations

import flint
import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.threads import available_cores
from attndepth.validation import check_int

#: Largest prime below 2^31, the default modulus of exact computations.
DEFAULT_PRIME = 2_147_483_647
#: A second prime below 2^31 used to cross-check exact ranks.
SECOND_PRIME = 2_147_483_629
#: Primes below this have a GEMM rank (attndepth.simulations.exact.modular_lu).
MAX_PRIME = 2**26
#: Largest inner dimension for which the proof above holds.
MAX_INNER_DIMENSION = 2**16


def check_prime(prime: object) -> int:
    """Return ``prime`` if it is a prime in (2, 2^31), else raise ``ValueError``."""
    prime = check_int("prime", prime, minimum=3, maximum=2**31 - 1)
    if not flint.fmpz(prime).is_prime():
        raise InvalidParameter(f"prime must be prime, got {prime} (composite)")
    return prime


def lazy_inner_limit(prime: int) -> int:
    """Largest k with k·(p − 1)² ≤ 2^64 − 1: inner sums a uint64 holds (strategy 1)."""
    return (2**64 - 1) // (prime - 1) ** 2


def matmul_mod(a: np.ndarray, b: np.ndarray, prime: int) -> np.ndarray:
    """``(a @ b) mod prime`` exactly, broadcasting like ``numpy.matmul``.

    a : (..., m, k), b : (..., k, n), int64 entries in [0, prime); k ≤ 2^16.
    Returns (..., m, n) int64 in [0, prime). The module docstring proves each
    of the three strategies overflow-free.
    """
    inner = a.shape[-1]
    if inner > MAX_INNER_DIMENSION:
        raise InvalidParameter(f"inner dimension must be <= {MAX_INNER_DIMENSION}, got {inner}")
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if inner <= lazy_inner_limit(prime):
        product = np.matmul(a.view(np.uint64), b.view(np.uint64))
        product %= np.uint64(prime)
        return product.view(np.int64)
    if b.ndim == 2 and inner * (prime - 1) * 0xFFFF < 2**53:
        columns = b.shape[1]
        limbs = np.concatenate([b & 0xFFFF, b >> 16], axis=1).astype(np.float64)
        sums = np.matmul(a.astype(np.float64), limbs)
        high = sums[..., columns:].astype(np.int64)
        low = sums[..., :columns].astype(np.int64)  # < 2^53: no reduction needed below
    else:
        high = np.matmul(a >> 16, b)
        low = np.matmul(a & 0xFFFF, b)
        low %= prime
    high %= prime
    high <<= 16
    high += low
    high %= prime
    return high


#: Smallest side from which rank_mod uses the GEMM elimination (primes < 2^26); measured
#: crossover on the 2-core bench machine: equal at 200², GEMM 2.7× faster at 1000².
GEMM_RANK_MIN_SIDE = 256


def rank_mod(matrix: np.ndarray, prime: int, threads: int | None = None) -> int:
    """Rank over GF(prime) of an integer matrix.

    Matrices with both sides ≥ :data:`GEMM_RANK_MIN_SIDE` over a prime below 2^26
    go to :func:`attndepth.simulations.exact.modular_lu.rank_mod_gemm` (recursive LU
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
        from attndepth.simulations.exact.modular_lu import rank_mod_gemm  # builds on this module

        return rank_mod_gemm(matrix, prime)
    threads = available_cores() if threads is None else check_int("threads", threads, minimum=1)
    integers = flint.fmpz_mat(matrix.tolist())
    previous = flint.ctx.threads
    flint.ctx.threads = threads
    try:
        return int(flint.nmod_mat(integers, prime).rank())
    finally:
        flint.ctx.threads = previous
