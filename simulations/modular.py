"""Exact arithmetic modulo a prime p < 2^31 with NumPy int64.

Overflow-freedom of :func:`matmul_mod` (the only place products are summed):

Let ``0 ≤ a_ik, b_kj < p < 2^31`` and split ``a = a_hi·2^16 + a_lo`` with
``0 ≤ a_lo < 2^16`` and ``0 ≤ a_hi < 2^15``. Each product ``a_lo·b`` is
``< 2^16·2^31 = 2^47`` and each ``a_hi·b < 2^46``, so a sum over an inner
dimension ``k ≤ 2^16`` stays ``< 2^63``: no int64 overflow. Then
``hi := (Σ a_hi b) mod p < 2^31``, ``hi·2^16 < 2^47``, and
``(hi·2^16 + (Σ a_lo b) mod p) < 2^48`` is reduced once more. Every
intermediate is a non-negative int64 below 2^63, and the result equals
``(a @ b) mod p`` because ``a @ b = 2^16·(a_hi @ b) + a_lo @ b``.
"""

from __future__ import annotations

import numbers

import flint
import numpy as np

#: Largest prime below 2^31, the default modulus of exact computations.
DEFAULT_PRIME = 2_147_483_647
#: A second prime below 2^31 used to cross-check exact ranks.
SECOND_PRIME = 2_147_483_629
#: Largest inner dimension for which the proof above holds.
MAX_INNER_DIMENSION = 2**16


def check_prime(prime: object) -> int:
    """Return ``prime`` if it is a prime in (2, 2^31), else raise ``ValueError``."""
    if isinstance(prime, bool) or not isinstance(prime, numbers.Integral):
        raise ValueError(f"prime must be an integer, got {prime!r}")
    prime = int(prime)
    if not 2 < prime < 2**31:
        raise ValueError(f"prime must lie in (2, 2^31), got {prime}")
    if not flint.fmpz(prime).is_prime():
        raise ValueError(f"prime must be prime, got {prime} (composite)")
    return prime


def matmul_mod(a: np.ndarray, b: np.ndarray, prime: int) -> np.ndarray:
    """``(a @ b) mod prime`` exactly, broadcasting like ``numpy.matmul``.

    a : (..., m, k), b : (..., k, n), int64 entries in [0, prime); k ≤ 2^16.
    Returns (..., m, n) int64 in [0, prime). See the module docstring for the
    proof that no intermediate overflows.
    """
    if a.shape[-1] > MAX_INNER_DIMENSION:
        raise ValueError(f"inner dimension must be <= {MAX_INNER_DIMENSION}, got {a.shape[-1]}")
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    high = np.matmul(a >> 16, b) % prime
    low = np.matmul(a & 0xFFFF, b) % prime
    high <<= 16
    high += low
    high %= prime
    return high


def rank_mod(matrix: np.ndarray, prime: int) -> int:
    """Rank over GF(prime) of an integer matrix, by python-flint's ``nmod_mat``.

    matrix : (rows, cols) int64 with entries in [0, prime).
    """
    rows, cols = matrix.shape
    if rows == 0 or cols == 0:
        return 0
    return int(flint.nmod_mat(rows, cols, matrix.ravel().tolist(), prime).rank())
