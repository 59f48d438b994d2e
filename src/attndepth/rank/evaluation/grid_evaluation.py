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
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.rank.arithmetic.modular import (
    matmul_mod,
)
from attndepth.rank.network import (
    LinearAttentionWeights,
    linear_attention_states,
)
from attndepth.rank.partitions import Partition
from attndepth.simulations.threads import available_cores, single_threaded_blas
from attndepth.validation import check_int, check_size

#: Pairs (row point, column point) evaluated per chunk, bounding memory.
CHUNK_PAIRS = 1 << 14


class _Exact:
    """Arithmetic modulo a prime on int64 residues."""

    def __init__(self, prime: int):
        self.prime = prime

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return matmul_mod(a, b, self.prime)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return reduce_nonnegative(a + b, self.prime)


def reduce_nonnegative(values: np.ndarray, prime: int) -> np.ndarray:
    """``values mod prime`` in place for a fresh int64 array of non-negative entries.

    Through a uint64 view: unsigned remainders skip the sign handling of
    int64 ``%`` (about 3× faster in NumPy, measured).
    """
    unsigned = values.view(np.uint64)
    unsigned %= np.uint64(prime)
    return values


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


def _in_chunks(block, rows: int, columns: int, threads: int | None,
               pairs: int | None = None) -> np.ndarray:
    """``block(row slice)`` over every row of the grid in chunks of about ``pairs``
    (default :data:`CHUNK_PAIRS`) pairs, on ``threads`` threads (default: the available
    cores; NumPy releases the GIL in its loops), stacked along the rows."""
    rows_per_chunk = max(1, (CHUNK_PAIRS if pairs is None else pairs) // columns)
    chunks = [slice(start, start + rows_per_chunk) for start in range(0, rows, rows_per_chunk)]
    if threads is not None:
        threads = check_int("threads", threads, minimum=1)
    threads = min(len(chunks), available_cores() if threads is None else threads)
    with single_threaded_blas():
        if threads == 1:
            return np.concatenate([block(rows) for rows in chunks], axis=0)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return np.concatenate(list(pool.map(block, chunks)), axis=0)


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

    return _in_chunks(block, XP.shape[0], XQ.shape[0], threads)


class FirstLayerCubic:
    """M_1(s) = C_0 + s·C_1 + s²·C_2 + s³·C_3 for columns scaled by t, s = t²
    (the proof in :func:`evaluate_structured_scales`).

    Built from the row points' and column points' Gram matrices M_P, M_Q and
    first-layer transfers T_P = ρI + T(M_P), T_Q = T(M_Q); C_0 depends on the row
    point alone, C_3 on the column point alone, and :meth:`middle` gives C_1, C_2
    for every pair of a row slice.
    """

    def __init__(self, kron0: np.ndarray, XP: np.ndarray, XQ: np.ndarray, arith: _Exact,
                 residual: int):
        self.arith = arith
        self.MP, self.MQ = _gram(XP, arith), _gram(XQ, arith)
        self.TP = _transfer(kron0, self.MP, arith, residual)
        self.TQ = _transfer(kron0, self.MQ, arith, 0)
        self.TPt, self.TQt = np.swapaxes(self.TP, -1, -2), np.swapaxes(self.TQ, -1, -2)
        self.A, self.D = arith.matmul(self.TP, self.MP), arith.matmul(self.TQ, self.MQ)
        self.C0, self.C3 = arith.matmul(self.A, self.TPt), arith.matmul(self.D, self.TQt)

    def middle(self, rows: slice) -> tuple[np.ndarray, np.ndarray]:
        """C_1, C_2 of every (row in ``rows``, column) pair; each (r, m_Q, d, d)."""
        arith = self.arith
        BC = arith.add(arith.matmul(self.TP[rows, None], self.MQ[None]),
                       arith.matmul(self.TQ[None], self.MP[rows, None]))
        C1 = arith.add(arith.matmul(self.A[rows, None], self.TQt[None]),
                       arith.matmul(BC, self.TPt[rows, None]))
        C2 = arith.add(arith.matmul(BC, self.TQt[None]),
                       arith.matmul(self.D[None], self.TPt[rows, None]))
        return C1, C2


def evaluate_structured_scales(weights: LinearAttentionWeights, partition: Partition,
                               XP: np.ndarray, XQ: np.ndarray, coordinate: int,
                               scales: np.ndarray, threads: int | None = None) -> np.ndarray:
    """F[r, c, j] = f(XP[r], t_j·XQ[c]) for every scale t_j at once (exact arithmetic).

    What :mod:`~attndepth.rank.degree_blocks` needs to separate the
    homogeneous parts, with the first layer done once per pair instead of once
    per pair and scale. Proof: scaling x_Q by t scales M_Q by s = t², so with
    T_P = ρI + T(M_P) and T_Q = T(M_Q) (T linear, the module docstring)

        T_0(s) = T_P + s·T_Q,   M_0(s) = M_P + s·M_Q,   v_1(s) = T_P x + s·T_Q x,
        M_1(s) = T_0 M_0 T_0ᵀ = C_0 + s·C_1 + s²·C_2 + s³·C_3,
        T_1(s) = ρI + T_1(M_1(s)) = (ρI + T_1(C_0)) + s·T_1(C_1) + s²·T_1(C_2) + s³·T_1(C_3)

    (T_1 is linear), where, with A = T_P M_P, B = T_P M_Q, C = T_Q M_P, D = T_Q M_Q,

        C_0 = A T_Pᵀ,  C_1 = A T_Qᵀ + (B + C) T_Pᵀ,  C_2 = (B + C) T_Qᵀ + D T_Pᵀ,  C_3 = D T_Qᵀ.

    C_0 and its transfer depend on the row point only, C_3 on the column point
    only; per pair remain six d × d products and two d² × d² transfers (for
    depth 2 only the row of the last layer: two d × d² products), instead of
    one transfer per scale. The layers from 2 on run per pair and scale as in
    :func:`evaluate_structured`, except the last, in vector form: with
    M' = T M Tᵀ and v' = T v,

        e_pᵀ(ρI + Σ_h B_h M' A_hᵀ) v' = ρ·v'_p + Σ_h (Tᵀ b_h)ᵀ M (Tᵀ A_hᵀ v'),

    b_h = B_hᵀ e_p (row p of B_h): five matrix–vector products per head
    instead of M' (two d × d products) and a row of the d² × d² transfer.
    The numbers are exactly those of :func:`evaluate_structured` on the scaled
    columns (hypothesis test over depth, heads, residual and chunking).

    Parameters
    ----------
    XP : (m_P, |P|, d), XQ : (m_Q, |Q|, d) int64 residues; scales : (S,) int64.

    Returns
    -------
    (m_P, m_Q, S) int64 residues.
    """
    if weights.prime is None:
        raise InvalidParameter("evaluate_structured_scales works modulo a prime (weights.prime)")
    scales = np.asarray(scales)
    if scales.ndim != 1 or scales.size == 0 or not np.issubdtype(scales.dtype, np.integer) \
            or scales.min() < 1 or scales.max() >= weights.prime:
        raise InvalidParameter(f"scales must be a non-empty list of integers in [1, p), got "
                         f"{scales.tolist()!r}")
    scales = scales.astype(np.int64)
    if weights.depth < 2 or XP.shape[0] == 0 or XQ.shape[0] == 0:
        return np.stack([evaluate_structured(weights, partition, XP, XQ * t % weights.prime,
                                             coordinate, threads) for t in scales], axis=-1)
    arith = _Exact(weights.prime)
    prime = weights.prime
    squares = scales * scales % prime
    kron = _kronecker(weights, arith)
    depth = weights.depth
    x_i = XP[:, partition.p_positions.index(partition.position)][..., None]  # (m_P, d, 1)
    first = FirstLayerCubic(kron[0], XP, XQ, arith, weights.residual)
    TP, TQ, C0, C3 = first.TP, first.TQ, first.C0, first.C3
    last = depth == 2

    def transfer(M: np.ndarray, residual: int) -> np.ndarray:
        if last:
            return _transfer_row(kron[1], M, arith, coordinate)
        return _transfer(kron[1], M, arith, residual)

    R0, R3 = transfer(C0, 0 if last else weights.residual), transfer(C3, 0)
    u0 = arith.matmul(TP, x_i)  # (m_P, d, 1)

    # Σ_k s^k c_k (Horner) with one reduction at the end when every partial sum fits:
    # with c_k < p the sum is < p·(s³ + s² + s + 1) ≤ 2p·s³, so p·s³ < 2^62 keeps int64
    # exact (the degree blocks' s = (j + 1)² are small: p·s³ < 2^49 at L = 3);
    # otherwise reduce after every step.
    lazy = all(prime * int(s) ** 3 < 2 ** 62 for s in squares)

    def poly(coefficients, s: int) -> np.ndarray:
        """Σ_k s^k c_k mod p."""
        total = coefficients[-1]
        for c in reversed(coefficients[:-1]):
            total = total * s + c
            if not lazy:
                total = reduce_nonnegative(total, prime)
        return reduce_nonnegative(total, prime) if lazy else total

    def block(rows: slice) -> np.ndarray:
        C1, C2 = first.middle(rows)
        E1, E2 = transfer(C1, 0), transfer(C2, 0)
        u1 = arith.matmul(TQ[None], x_i[rows, None])  # (r, m_Q, d, 1)
        out = np.empty((C1.shape[0], C1.shape[1], scales.size), dtype=np.int64)
        for j, s in enumerate(squares):
            s = int(s)
            T = poly((R0[rows, None], E1, E2, R3[None]), s)
            v = poly((u0[rows, None], u1), s)
            if last:
                value = arith.matmul(T, v)[..., 0, 0]
                if weights.residual:  # e_pᵀ(ρI)v, left out of the row transfer
                    value = arith.add(value, v[..., coordinate, 0])
                out[..., j] = value
                continue
            M = poly((C0[rows, None], C1, C2, C3[None]), s)
            for layer in range(2, depth - 1):
                M = arith.matmul(arith.matmul(T, M), np.swapaxes(T, -1, -2))
                v = arith.matmul(T, v)
                T = _transfer(kron[layer], M, arith, weights.residual)
            out[..., j] = last_layer(T, M, v)
        return out

    A_last = weights.bilinear[0, depth - 1]  # (heads, d, d)
    b_rows = weights.value_output[0, depth - 1][:, coordinate:coordinate + 1, :]  # (H, 1, d)

    def last_layer(T: np.ndarray, M: np.ndarray, v: np.ndarray) -> np.ndarray:
        """e_pᵀ T_L v_L of the last layer from its input T, M, v; (..., d, d) -> (...)."""
        v = arith.matmul(T, v)  # v' = T v, (..., d, 1)
        value: Any = v[..., coordinate, 0].copy() if weights.residual else 0
        for b, A in zip(b_rows, A_last, strict=True):
            y = arith.matmul(b, T)  # (Tᵀ b)ᵀ, (..., 1, d)
            q = arith.matmul(np.swapaxes(T, -1, -2), arith.matmul(A.T, v))  # Tᵀ Aᵀ v'
            value = arith.add(value, arith.matmul(y, arith.matmul(M, q))[..., 0, 0])
        return value

    return _in_chunks(block, XP.shape[0], XQ.shape[0], threads)


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


