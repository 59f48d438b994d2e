"""Exact (GF(p)) and float64 evaluation of f = y^{L,i}_p on grids of point pairs.

Fast path (structural lemma, docs/theory.md §1): f = e_pᵀ T_{L−1}⋯T_0 x^i with
``T_l = ρI + Σ_h B_h M_l A_hᵀ`` and ``M_{l+1} = T_l M_l T_lᵀ``,
``M_0 = M_P + M_Q``. T_0 is linear in M_0, so T_0 = ρI + T(M_P) + T(M_Q) is a
broadcast sum; per pair only d × d products remain. The plain path runs the
network on the full token matrices and is the oracle in the tests.

Each evaluator returns the evaluation matrix ``F[r, c] = f(x_P^(r), x_Q^(c))``
for row points (P side) and column points (Q side); the exact one works in
chunks of :data:`CHUNK_PAIRS` pairs on every core.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from attndepth.simulations.linear_attention import (
    LinearAttentionWeights,
    linear_attention_states,
)
from attndepth.simulations.modular import (
    matmul_mod,
)
from attndepth.simulations.partitions import Partition
from attndepth.simulations.threads import available_cores, single_threaded_blas
from attndepth.simulations.validation import check_int, check_size

#: Pairs (row point, column point) evaluated per chunk, bounding memory.
CHUNK_PAIRS = 1 << 14


class _Exact:
    """Arithmetic modulo a prime on int64 residues."""

    def __init__(self, prime: int):
        self.prime = prime

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return matmul_mod(a, b, self.prime)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a + b) % self.prime


class _Float:
    """float64 arithmetic."""

    @staticmethod
    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.matmul(a, b)

    @staticmethod
    def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b


def _arithmetic(weights: LinearAttentionWeights) -> _Exact | _Float:
    return _Float() if weights.prime is None else _Exact(weights.prime)


def _kronecker(weights: LinearAttentionWeights, arith) -> np.ndarray:
    """K_l with vec(Σ_h B_h M A_hᵀ) = K_l vec(M), row-major vec; (depth, d², d²).

    (B M Aᵀ)_{ab} = Σ_{cd} B_{ac} M_{cd} A_{bd}, so K[(a,b),(c,d)] = Σ_h B_h[a,c] A_h[b,d].
    """
    A, B = weights.bilinear[0], weights.value_output[0]
    depth, heads, d, _ = A.shape
    # Three d⁴ arrays live at once (the result, one head's product, its remainder).
    check_size("the Kronecker transfer matrices", 3 * depth * d**4)
    if weights.prime is None:
        return np.einsum("lhac,lhbd->labcd", B, A).reshape(depth, d * d, d * d)
    # Exact in int64: residues are < p < 2^31, so a product is < 2^62 and a sum of two
    # reduced terms < 2^32; reduce after every head.
    prime = weights.prime
    K = np.zeros((depth, d, d, d, d), dtype=np.int64)
    for h in range(heads):
        term = np.einsum("lac,lbd->labcd", B[:, h].astype(np.int64), A[:, h].astype(np.int64))
        K += term % prime
        K %= prime
    return K.reshape(depth, d * d, d * d)


def _transfer(kron: np.ndarray, M: np.ndarray, arith, residual: int) -> np.ndarray:
    """T = ρI + Σ_h B_h M A_hᵀ for a stack of M; M (..., d, d) -> (..., d, d)."""
    d = M.shape[-1]
    flat = M.reshape(-1, d * d)
    T = arith.matmul(flat, np.ascontiguousarray(kron.T)).reshape(M.shape)
    if residual:
        T = arith.add(T, np.eye(d, dtype=T.dtype))
    return T


def _transfer_row(kron: np.ndarray, M: np.ndarray, arith, row: int) -> np.ndarray:
    """Row ``row`` of Σ_h B_h M A_hᵀ (without ρI); M (..., d, d) -> (..., 1, d).

    The last layer needs only e_pᵀ T, so only the d rows (p, ·) of K are applied:
    d³ instead of d⁴ operations per pair.
    """
    d = M.shape[-1]
    flat = M.reshape(-1, d * d)
    block = np.ascontiguousarray(kron[row * d:(row + 1) * d].T)  # (d², d)
    return arith.matmul(flat, block).reshape(M.shape[:-2] + (1, d))


def _gram(X: np.ndarray, arith) -> np.ndarray:
    """Σ_j x^j x^jᵀ for X (m, positions, d) -> (m, d, d)."""
    return arith.matmul(np.ascontiguousarray(np.swapaxes(X, -1, -2)), X)


def evaluate_structured(weights: LinearAttentionWeights, partition: Partition,
                        XP: np.ndarray, XQ: np.ndarray, coordinate: int,
                        threads: int | None = None) -> np.ndarray:
    """F[r, c] = f(XP[r], XQ[c]) through the structural lemma.

    XP : (m_P, |P|, d), rows ordered as ``partition.p_positions``;
    XQ : (m_Q, |Q|, d). Returns (m_P, m_Q), float64 or int64 residues.
    Pairs are processed in chunks of about ``CHUNK_PAIRS`` rows × columns, on
    ``threads`` threads (default: the available cores; NumPy releases the GIL
    in its loops). Per pair and layer the work is two d × d products and one
    d² × d² transfer (only e_pᵀ T_{L−1}, d³ operations, at the last layer).
    """
    if XP.shape[0] == 0 or XQ.shape[0] == 0:
        return np.zeros((XP.shape[0], XQ.shape[0]), dtype=XP.dtype)
    arith = _arithmetic(weights)
    kron = _kronecker(weights, arith)
    depth, d = weights.depth, weights.width
    x_i = XP[:, partition.p_positions.index(partition.position)]  # (m_P, d)
    if depth == 0:
        return np.repeat(x_i[:, coordinate:coordinate + 1], XQ.shape[0], axis=1)
    MP, MQ = _gram(XP, arith), _gram(XQ, arith)
    TP = _transfer(kron[0], MP, arith, weights.residual)  # carries ρI once
    TQ = _transfer(kron[0], MQ, arith, 0)

    def block(rows: slice) -> np.ndarray:
        T = arith.add(TP[rows, None], TQ[None])  # T_0, (r, m_Q, d, d)
        v = np.broadcast_to(x_i[rows, None, :, None], T.shape[:2] + (d, 1))
        if depth == 1:
            last_row = T[..., coordinate:coordinate + 1, :]
        else:
            M = arith.add(MP[rows, None], MQ[None])
        for layer in range(1, depth):
            M = arith.matmul(arith.matmul(T, M), np.swapaxes(T, -1, -2))
            v = arith.matmul(T, v)
            if layer < depth - 1:
                T = _transfer(kron[layer], M, arith, weights.residual)
            else:
                last_row = _transfer_row(kron[layer], M, arith, coordinate)
        out = arith.matmul(last_row, v)[..., 0, 0]
        if weights.residual and depth > 1:  # e_pᵀ(ρI)v, left out of _transfer_row
            out = arith.add(out, v[..., coordinate, 0])
        return out

    rows_per_chunk = max(1, CHUNK_PAIRS // XQ.shape[0])
    chunks = [slice(start, start + rows_per_chunk)
              for start in range(0, XP.shape[0], rows_per_chunk)]
    if threads is not None:
        threads = check_int("threads", threads, minimum=1)
    threads = min(len(chunks), available_cores() if threads is None else threads)
    with single_threaded_blas():
        if threads == 1:
            return np.concatenate([block(rows) for rows in chunks], axis=0)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return np.concatenate(list(pool.map(block, chunks)), axis=0)


def evaluate_plain(weights: LinearAttentionWeights, partition: Partition,
                   XP: np.ndarray, XQ: np.ndarray, coordinate: int) -> np.ndarray:
    """The same matrix by running the network on every (row, column) token matrix.

    The oracle for :func:`evaluate_structured`; memory grows with m_P·m_Q·N·d.
    """
    m_p, m_q = XP.shape[0], XQ.shape[0]
    if m_p == 0 or m_q == 0:
        return np.zeros((m_p, m_q), dtype=XP.dtype)
    tokens = len(partition.p_positions) + len(partition.q_positions)
    Y = np.empty((m_p, m_q, tokens, weights.width), dtype=XP.dtype)
    Y[:, :, list(partition.p_positions)] = XP[:, None]
    Y[:, :, list(partition.q_positions)] = XQ[None]
    out = linear_attention_states(Y.reshape(m_p * m_q, tokens, weights.width), weights)[-1]
    return out[:, partition.position, coordinate].reshape(m_p, m_q)


