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
from attndepth.validation import check_int

#: Largest prime below 2^31, the default modulus of exact computations.
DEFAULT_PRIME = 2_147_483_647
#: A second prime below 2^31 used to cross-check exact ranks.
SECOND_PRIME = 2_147_483_629
#: Primes below this have a GEMM rank (attndepth.rank.arithmetic.modular_rank).
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
