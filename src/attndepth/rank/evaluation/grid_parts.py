"""The homogeneous parts F_a of a depth-3 network on a grid, as polynomials in the Q scale.

:mod:`~attndepth.rank.degree_blocks` needs, at every grid pair, the
K + 1 values F_a[r, c] = f_a(x_P^(r), x_Q^(c)) of the parts of degree a in M_Q.
:func:`~attndepth.rank.evaluation.grid_evaluation.evaluate_structured_scales`
gets them from K + 1 evaluations at scaled columns and an inverse Vandermonde
matrix. At depth 3 (K = 13) this module computes the coefficients themselves:
scaling x_Q by t scales M_Q by s = t², and every intermediate quantity of the
network is a polynomial in s of low degree, so the parts come out of a few
products of matrix polynomials, with no evaluation at 14 points and no
Vandermonde system.

Derivation (exact over GF(p); the notation of ``evaluate_structured_scales``).
With T_P = ρI + T(M_P), T_Q = T(M_Q) for the first layer's linear transfer T,

    v(s) = u_0 + s·u_1                               (v_1 = T_0 x^i, degree 1)
    M(s) = C_0 + s·C_1 + s²·C_2 + s³·C_3             (M_1 = T_0 M_0 T_0ᵀ, degree 3)
    T(s) = R_0 + s·E_1 + s²·E_2 + s³·R_3             (T_1 = ρI + T_1(M_1), degree 3)

and the last layer, e_pᵀ T_2 v_2 with v_2 = T v and T_2 = ρI + Σ_h B_h (T M Tᵀ) A_hᵀ,
is

    f(s) = ρ·(v_2)_p + Σ_h (b_hᵀ T) · M · (Tᵀ A_hᵀ v_2),   b_h = B_hᵀ e_p,

with degrees v_2: 4, A_hᵀ v_2: 4, q_h = Tᵀ A_hᵀ v_2: 7, g_h = b_hᵀ T M: 6, and
g_h · q_h: 13 = K. The coefficient of s^a of f(s) is f_a at (x_P, x_Q): f_a is
homogeneous of degree a in M_Q (the structural lemma). Each product of matrix
polynomials is one broadcast batched product of every coefficient pair summed
along its anti-diagonals, in uint64 and reduced once where those sums stay below
2^64 (p < 2^26: up to 4,096 products of residues), else exact by
:func:`~attndepth.rank.arithmetic.modular.matmul_mod`. Per pair and head that
is about 36d² + 56d products, against 14 × (about 12d² + 5d) and a 14 × 14
product for the scales; the tests check the parts equal the scaled evaluations'
parts exactly.
"""

from __future__ import annotations

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.rank.arithmetic.modular import matmul_mod
from attndepth.rank.evaluation.grid_evaluation import (
    FirstLayerCubic,
    _Exact,
    _in_chunks,
    _kronecker,
    _transfer,
    reduce_nonnegative,
)
from attndepth.rank.network import LinearAttentionWeights
from attndepth.rank.partitions import Partition
from attndepth.validation import check_int

#: The depth this module evaluates (K = 13 parts).
PARTS_DEPTH = 3
#: Pairs per chunk: its products hold about 20·d·H entries a pair, so a quarter of the
#: plain evaluator's chunk keeps them in cache (measured 1.3–1.8× faster than 2^14 at
#: d = 4 and 6).
PARTS_CHUNK_PAIRS = 1 << 12


def polynomial_product(a: np.ndarray, b: np.ndarray, prime: int) -> np.ndarray:
    """Coefficients of the product of two matrix polynomials over GF(p).

    Parameters
    ----------
    a : (..., I, m, k) int64 residues, the coefficients of a(s) = Σ_i s^i a_i.
    b : (..., J, k, n) int64 residues; the leading axes broadcast with a's.
    prime : p.

    Returns
    -------
    (..., I + J − 1, m, n) int64 residues: c_k = Σ_{i+j=k} a_i b_j mod p.
    """
    if a.ndim < 3 or b.ndim < 3 or a.shape[-1] != b.shape[-2]:
        raise InvalidParameter(f"need coefficient stacks (..., I, m, k) and (..., J, k, n), got "
                               f"shapes {a.shape} and {b.shape}")
    first, second, inner = a.shape[-3], b.shape[-3], a.shape[-1]
    # every coefficient pair (i, j) at once: (..., I, 1, m, k) @ (..., 1, J, k, n)
    rows = np.asarray(a, dtype=np.int64)[..., :, None, :, :]
    columns = np.asarray(b, dtype=np.int64)[..., None, :, :, :]
    if inner * min(first, second) * (prime - 1) ** 2 < 2 ** 64:
        # Lazy: an anti-diagonal sums min(I, J) unreduced products of k terms < p² each,
        # < 2^64 by the test above, so one remainder at the end (of (I + J − 1)·m·n
        # entries instead of I·J·m·n more: 1.1–1.25× faster at d = 4, 5, measured).
        products = np.matmul(rows.view(np.uint64), columns.view(np.uint64))
    else:
        products = matmul_mod(rows, columns, prime).view(np.uint64)
    total = np.zeros(products.shape[:-4] + (first + second - 1,) + products.shape[-2:],
                     dtype=np.uint64)
    for i in range(first):  # lazy: < 2^64 by the test; reduced: min(I, J) terms < p
        total[..., i:i + second, :, :] += products[..., i, :, :, :]
    total %= np.uint64(prime)
    return total.view(np.int64)


def evaluate_structured_parts(weights: LinearAttentionWeights, partition: Partition,
                              XP: np.ndarray, XQ: np.ndarray, coordinate: int,
                              threads: int | None = None) -> np.ndarray:
    """F[r, c, a] = f_a(XP[r], XQ[c]) for a = 0 … 13 of a depth-3 network (module docstring).

    Parameters
    ----------
    weights : depth-3 weights modulo a prime (``weights.prime``).
    partition : the partition; XP's rows are ordered as ``partition.p_positions``.
    XP : (m_P, |P|, d) int64 residues; XQ : (m_Q, |Q|, d) int64 residues.
    coordinate : p, the output coordinate.
    threads : threads over the row chunks (default: the available cores).

    Returns
    -------
    (m_P, m_Q, 14) int64 residues: the coefficient of s^a of f(XP[r], t·XQ[c]), s = t².
    """
    if weights.prime is None:
        raise InvalidParameter("evaluate_structured_parts works modulo a prime (weights.prime)")
    if weights.depth != PARTS_DEPTH:
        raise InvalidParameter(f"evaluate_structured_parts takes depth {PARTS_DEPTH}, got "
                               f"{weights.depth}; use evaluate_structured_scales")
    prime, residual, d = weights.prime, weights.residual, weights.width
    coordinate = check_int("coordinate", coordinate, minimum=0, maximum=d - 1)
    parts = (3 ** PARTS_DEPTH - 1) // 2 + 1
    if XP.shape[0] == 0 or XQ.shape[0] == 0:
        return np.zeros((XP.shape[0], XQ.shape[0], parts), dtype=np.int64)
    arith = _Exact(prime)
    kron = _kronecker(weights, arith)
    x_i = XP[:, partition.p_positions.index(partition.position)][..., None]  # (m_P, d, 1)
    first = FirstLayerCubic(kron[0], XP, XQ, arith, residual)
    TP, TQ, C0, C3 = first.TP, first.TQ, first.C0, first.C3
    R0, R3 = _transfer(kron[1], C0, arith, residual), _transfer(kron[1], C3, arith, 0)
    u0 = arith.matmul(TP, x_i)
    heads = weights.bilinear.shape[2]
    # Every head at once: the rows (h, ·) of bilinear_t are A_hᵀ, those of b_rows b_hᵀ.
    bilinear_t = np.swapaxes(weights.bilinear[0, 2], -1, -2).reshape(heads * d, d)  # A_hᵀ
    b_rows = np.ascontiguousarray(weights.value_output[0, 2][:, coordinate, :])  # (H, d)

    def block(rows: slice) -> np.ndarray:
        C1, C2 = first.middle(rows)
        E1, E2 = _transfer(kron[1], C1, arith, 0), _transfer(kron[1], C2, arith, 0)
        shape = E1.shape
        T = np.stack([np.broadcast_to(R0[rows, None], shape), E1, E2,
                      np.broadcast_to(R3[None], shape)], axis=-3)  # (r, m, 4, d, d)
        M = np.stack([np.broadcast_to(C0[rows, None], shape), C1, C2,
                      np.broadcast_to(C3[None], shape)], axis=-3)
        v = np.stack([np.broadcast_to(u0[rows, None], shape[:-1] + (1,)),
                      arith.matmul(TQ[None], x_i[rows, None])], axis=-3)  # (r, m, 2, d, 1)
        v2 = polynomial_product(T, v, prime)  # degree 4
        Tt = np.swapaxes(T, -1, -2)
        total = np.zeros(shape[:2] + (parts,), dtype=np.int64)
        if residual:
            total[..., :v2.shape[-3]] += v2[..., coordinate, 0]
        # A_hᵀ v_2 of every head and coefficient as one 2-D product, (r·m·5, d) @ (d, H·d)
        W = matmul_mod(v2.reshape(-1, d), bilinear_t.T, prime)
        W = np.swapaxes(W.reshape(v2.shape[:-2] + (heads, d)), -1, -2)  # (r, m, 5, d, H)
        Q = polynomial_product(Tt, W, prime)  # q_h = Tᵀ A_hᵀ v_2, degree 7, (…, 8, d, H)
        G = polynomial_product(matmul_mod(b_rows, T, prime), M, prime)  # b_hᵀ T M, (…, 7, H, d)
        # Σ_h g_h · q_h: every coefficient pair (i, k) as one (7, H·d) @ (H·d, 8) product
        # per pair over the flattened (h, j) axes, then summed along its anti-diagonals
        g_terms, q_terms = G.shape[-3], Q.shape[-3]  # 7 and 8
        flat_g = G.reshape(G.shape[:-3] + (1, g_terms, heads * d))
        flat_q = np.moveaxis(np.swapaxes(Q, -1, -2), -3, -1).reshape(
            Q.shape[:-3] + (1, heads * d, q_terms))  # [h·d + j, k] = q_{h,k}[j]
        products = polynomial_product(flat_g, flat_q, prime)[..., 0, :, :]  # (…, 7, 8)
        for i in range(g_terms):  # at most 7 reduced terms < p, and ρ's one: < 2^34
            total[..., i:i + q_terms] += products[..., i, :]
        total = reduce_nonnegative(total, prime)
        return total

    return _in_chunks(block, XP.shape[0], XQ.shape[0], threads, PARTS_CHUNK_PAIRS)
