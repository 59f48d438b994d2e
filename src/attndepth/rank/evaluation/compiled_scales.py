"""The scaled evaluations of the degree blocks, compiled with XLA (JAX, optional).

The numbers of :func:`~attndepth.rank.evaluation.grid_evaluation.evaluate_structured_scales`,
F[r, c, j] = f(XP[r], t_j·XQ[c]) over GF(p), computed by one fused XLA loop per
chunk of pairs instead of a sequence of NumPy passes over (pairs, d, d) stacks.
The arithmetic is the same (the first layer as a cubic in s = t², the middle
layers per scale, the last layer in vector form; that function's docstring
has the derivation), only laid out for the compiler: every d × d matrix is a
(d, d, N) array over the N pairs of a chunk, each product is written out as
d² multiply–adds of length-N vectors, and every residue is reduced by ``%``
with the prime a compile-time constant (a multiplication, not a division).

Exactness: every factor is a residue in [0, p), and every sum of products is
reduced before a multiplication uses it. The longest sum is a transfer's, d²
products, so every int64 intermediate stays below d²·(p − 1)² + p, which
:func:`compiled_supports` asks to be < 2^63 (d ≤ 8 allows p < 2^28; the
degree blocks' p is below 2^26). The Horner sums of the cubic are reduced
once, at the end, when p·s³ < 2^62 for every s (then they stay below
p·(s³ + s² + s + 1) < 2^63), and after every step otherwise. The tests ask for
equality with the NumPy function on hypothesis-drawn networks.

JAX is optional (the ``train`` extra): :func:`compiled_available` says
whether this path can run, and the degree blocks fall back to NumPy without
it. ``bench/exact.py`` measures the ratio (``compiled_against_numpy``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.rank.evaluation.grid_evaluation import (
    FirstLayerCubic,
    _Exact,
    _in_chunks,
    _kronecker,
    _transfer,
)
from attndepth.rank.network import LinearAttentionWeights
from attndepth.rank.partitions import Partition

#: Pairs per compiled call (whole rows of the grid; the last call is padded to the same
#: rows, so a grid compiles once, in a few seconds, and every call reuses it).
COMPILED_CHUNK_PAIRS = 1 << 15
#: Smallest depth the compiled path serves (below it the NumPy evaluation is cheap).
#: The degree blocks still compute depth 3 as polynomial parts (``grid_parts``), which
#: beat this path at their real chunk sizes with one or two heads.
COMPILED_MIN_DEPTH = 3


def compiled_available() -> bool:
    """Whether JAX can be imported (``pip install -e ".[train]"``)."""
    from attndepth.simulations.models.jax_stack import available

    return available()


def compiled_supports(width: int, prime: int) -> bool:
    """Whether every int64 intermediate of the kernel stays below 2^63 at this width and
    prime: d²·(p − 1)² + p < 2^63 (module docstring)."""
    return width * width * (prime - 1) ** 2 + prime < 2 ** 63


def evaluate_scales_compiled(weights: LinearAttentionWeights, partition: Partition,
                             XP: np.ndarray, XQ: np.ndarray, coordinate: int,
                             scales: np.ndarray, threads: int | None = None) -> np.ndarray:
    """F[r, c, j] = f(XP[r], t_j·XQ[c]) modulo ``weights.prime``, compiled (module docstring).

    Exactly :func:`~attndepth.rank.evaluation.grid_evaluation.evaluate_structured_scales`
    for depth ≥ 3; ValueError for a smaller depth, float weights, or a prime or
    scales whose products would leave int64.

    Parameters
    ----------
    weights : LinearAttentionWeights with a prime, depth ≥ 3.
    partition : the split of the positions; ``coordinate`` the output coordinate p.
    XP : (m_P, |P|, d), XQ : (m_Q, |Q|, d) int64 residues; scales : (S,) integers in [1, p).
    threads : chunks evaluated at once (default: the available cores).

    Returns
    -------
    (m_P, m_Q, S) int64 residues.
    """
    prime = weights.prime
    if prime is None:
        raise InvalidParameter("the compiled evaluation works modulo a prime (weights.prime)")
    if weights.depth < COMPILED_MIN_DEPTH:
        raise InvalidParameter(f"the compiled evaluation needs depth >= {COMPILED_MIN_DEPTH}, "
                               f"got {weights.depth}; use evaluate_structured_scales")
    scales = np.asarray(scales)
    if scales.ndim != 1 or scales.size == 0 or not np.issubdtype(scales.dtype, np.integer) \
            or scales.min() < 1 or scales.max() >= prime:
        raise InvalidParameter(f"scales must be a non-empty list of integers in [1, p), got "
                               f"{scales.tolist()!r}")
    squares = scales.astype(np.int64) ** 2 % prime
    if not compiled_supports(weights.width, prime):
        raise InvalidParameter(f"prime {prime} at width {weights.width} would overflow int64 in "
                               f"the compiled evaluation; use evaluate_structured_scales")
    # the cubic's Horner sums reduced once at the end where they fit (module docstring)
    lazy = all(prime * int(s) ** 3 < 2 ** 62 for s in squares)
    rows, columns = XP.shape[0], XQ.shape[0]
    if rows == 0 or columns == 0:
        return np.zeros((rows, columns, scales.size), dtype=np.int64)
    arith = _Exact(prime)
    kron = _kronecker(weights, arith)
    x_i = XP[:, partition.p_positions.index(partition.position)][..., None]
    first = FirstLayerCubic(kron[0], XP, XQ, arith, weights.residual)
    R0 = _transfer(kron[1], first.C0, arith, weights.residual)
    R3 = _transfer(kron[1], first.C3, arith, 0)
    u0 = arith.matmul(first.TP, x_i)[..., 0]
    row_side = (first.TP, first.MP, first.A, first.C0, R0, u0, x_i[..., 0])
    column_side = tuple(_soa(a) for a in (first.TQ, first.MQ, first.D, first.C3, R3))
    constants = (kron, weights.bilinear[0, -1].astype(np.int64),
                 weights.value_output[0, -1][:, coordinate, :].astype(np.int64), squares)
    kernel = _kernel(weights.width, weights.depth, weights.heads, weights.residual,
                     coordinate, prime, lazy)
    per_call = min(rows, max(1, COMPILED_CHUNK_PAIRS // columns))

    def block(chunk: slice) -> np.ndarray:
        picked = np.arange(chunk.start, min(chunk.stop, rows))
        padded = np.resize(picked, per_call)  # a fixed shape: one compilation per grid
        values = kernel(tuple(a[padded] for a in row_side), column_side, constants)
        return np.asarray(values)[:picked.size]

    return _in_chunks(block, rows, columns, threads, pairs=per_call * columns)


def _soa(array: np.ndarray) -> np.ndarray:
    """(m, *shape) → (*shape, m): the points last, the layout the kernel computes in."""
    return np.ascontiguousarray(np.moveaxis(array, 0, -1))


@lru_cache(maxsize=32)
def _kernel(width: int, depth: int, heads: int, residual: int, coordinate: int,
            prime: int, lazy: bool) -> Callable:
    """The jitted evaluation of one chunk for networks of this shape and prime."""
    from attndepth.simulations.models.jax_stack import load_jax

    jax = load_jax()
    jnp = jax.numpy
    d = width

    def mod(x):
        return x % prime

    def total(terms):
        result = terms[0]
        for term in terms[1:]:
            result = result + term
        return result

    def mat_mat(a, b):  # (d, d, N) @ (d, d, N)
        return mod(total([a[:, j][:, None] * b[j][None] for j in range(d)]))

    def mat_vec(a, v):  # (d, d, N) @ (d, N)
        return mod(total([a[:, j] * v[j][None] for j in range(d)]))

    def const_vec(c, v):  # constant (n, m) @ (m, N)
        return mod(total([c[:, j][:, None] * v[j][None] for j in range(c.shape[1])]))

    def transfer(k, M):  # vec(Σ_h B_h M A_hᵀ) = K vec(M), M (d, d, N)
        return const_vec(k, M.reshape(d * d, -1)).reshape(M.shape)

    def transpose(a):
        return jnp.swapaxes(a, 0, 1)

    def horner(coefficients, s):  # Σ_k s^k c_k mod p, lowest first
        result = coefficients[-1]
        for coefficient in reversed(coefficients[:-1]):
            result = result * s + coefficient
            if not lazy:
                result = mod(result)
        return mod(result) if lazy else result

    def chunk(row_side, column_side, constants):
        kron, A_last, b_rows, squares = constants
        r, c = row_side[0].shape[0], column_side[0].shape[-1]

        def rows_soa(X):  # (r, *shape) → (*shape, r·c), each row repeated over the columns
            X = jnp.broadcast_to(X[:, None], (r, c) + X.shape[1:])
            return jnp.moveaxis(X.reshape((r * c,) + X.shape[2:]), 0, -1)

        def columns_soa(X):  # (*shape, c) → (*shape, r·c), the columns tiled over the rows
            return jnp.broadcast_to(X[..., None, :], X.shape[:-1] + (r, c)).reshape(
                X.shape[:-1] + (r * c,))

        TP, MP, A, C0, R0, u0, x = (rows_soa(X) for X in row_side)
        TQ, MQ, D, C3, R3 = (columns_soa(X) for X in column_side)
        # C_1, C_2 of the cubic M_1(s) (FirstLayerCubic.middle) and their transfers
        BC = mod(mat_mat(TP, MQ) + mat_mat(TQ, MP))
        C1 = mod(mat_mat(A, transpose(TQ)) + mat_mat(BC, transpose(TP)))
        C2 = mod(mat_mat(BC, transpose(TQ)) + mat_mat(D, transpose(TP)))
        E1, E2 = transfer(kron[1], C1), transfer(kron[1], C2)
        u1 = mat_vec(TQ, x)
        eye = jnp.eye(d, dtype=jnp.int64)[:, :, None]

        def at_scale(s):
            T = horner((R0, E1, E2, R3), s)
            v = horner((u0, u1), s)
            M = horner((C0, C1, C2, C3), s)
            for layer in range(2, depth - 1):
                M = mat_mat(mat_mat(T, M), transpose(T))
                v = mat_vec(T, v)
                T = transfer(kron[layer], M)
                if residual:
                    T = mod(T + eye)
            # the last layer in vector form (evaluate_structured_scales' docstring)
            v = mat_vec(T, v)
            value = v[coordinate] if residual else jnp.zeros(v.shape[1:], jnp.int64)
            for h in range(heads):
                y = mod(total([b_rows[h, j] * T[j] for j in range(d)]))  # (Tᵀ b_h)ᵀ
                q = mat_vec(M, mat_vec(transpose(T), const_vec(A_last[h].T, v)))  # M Tᵀ A_hᵀ v'
                value = mod(value + mod(total([y[j] * q[j] for j in range(d)])))
            return value

        values = jax.lax.map(at_scale, squares)  # (S, r·c)
        return values.T.reshape(r, c, -1)

    return jax.jit(chunk)
