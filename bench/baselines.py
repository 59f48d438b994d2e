"""The implementations before optimisation, kept only to measure before/after ratios.

Each function computes the same numbers as today's code (the bench checks it)
the way the toolkit did before: nothing here is used by the toolkit itself.
"""

from __future__ import annotations

import flint
import numpy as np

from attndepth.rank.arithmetic.modular import matmul_mod
from attndepth.rank.evaluation.grid_evaluation import (
    _gram,
    _kronecker,
    _transfer,
    reduce_nonnegative,
)
from attndepth.simulations.models.stacks import LAYER_NORM_EPS, SoftmaxWeights, StackConfig
from attndepth.simulations.seeding import WEIGHTS_STREAM, spawn_generators


def matmul_mod_limbs(a: np.ndarray, b: np.ndarray, prime: int) -> np.ndarray:
    """``(a @ b) mod p`` by int64 16-bit limbs of a, for every shape (the old single strategy)."""
    high = np.matmul(a >> 16, b) % prime
    low = np.matmul(a & 0xFFFF, b) % prime
    high <<= 16
    high += low
    high %= prime
    return high


class _LimbArithmetic:
    def __init__(self, prime: int):
        self.prime = prime

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return matmul_mod_limbs(a, b, self.prime)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a + b) % self.prime


def evaluate_structured_before(weights, partition, XP, XQ, coordinate: int,
                               chunk_pairs: int = 1 << 20) -> np.ndarray:
    """The exact structural-lemma evaluator before: limbs everywhere, the whole T_{L−1},
    chunks of 2^20 pairs. Exact weights and depth ≥ 1 only."""
    arith = _LimbArithmetic(weights.prime)
    kron = _kronecker(weights, arith)
    depth, d = weights.depth, weights.width
    x_i = XP[:, partition.p_positions.index(partition.position)]
    MP, MQ = _gram(XP, arith), _gram(XQ, arith)
    TP = _transfer(kron[0], MP, arith, weights.residual)
    TQ = _transfer(kron[0], MQ, arith, 0)
    blocks = []
    for start in range(0, XP.shape[0], max(1, chunk_pairs // XQ.shape[0])):
        rows = slice(start, start + max(1, chunk_pairs // XQ.shape[0]))
        T = arith.add(TP[rows, None], TQ[None])
        v = np.broadcast_to(x_i[rows, None, :, None], T.shape[:2] + (d, 1))
        M = arith.add(MP[rows, None], MQ[None])
        for layer in range(1, depth):
            M = arith.matmul(arith.matmul(T, M), np.swapaxes(T, -1, -2))
            v = arith.matmul(T, v)
            T = _transfer(kron[layer], M, arith, weights.residual)
        blocks.append(arith.matmul(T[..., coordinate:coordinate + 1, :], v)[..., 0, 0])
    return np.concatenate(blocks, axis=0)


def rank_mod_before(matrix: np.ndarray, prime: int) -> int:
    """GF(p) rank as before: an ``nmod_mat`` built entry by entry, FLINT's default threads."""
    rows, cols = matrix.shape
    return int(flint.nmod_mat(rows, cols, matrix.ravel().tolist(), prime).rank())


def draw_weights_before(config: StackConfig, batch: int, seed: int) -> list[np.ndarray]:
    """Weights as first written: per-stack temporaries, then ``np.stack``."""
    d, depth = config.width, config.depth
    draws: dict[str, list] = {k: [] for k in ("q", "k", "v", "o")}
    for rng in spawn_generators(seed, batch, WEIGHTS_STREAM):
        for name in draws:
            draws[name].append(rng.standard_normal((depth, d, d)) / np.sqrt(d))
    return [np.stack(v) for v in draws.values()]


def _layer_norm_before(X: np.ndarray) -> np.ndarray:
    centred = X - X.mean(axis=-1, keepdims=True)
    scale = np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + LAYER_NORM_EPS)
    centred /= scale
    return centred


def post_ln_stack_before(config: StackConfig, weights: SoftmaxWeights,
                         X0: np.ndarray) -> np.ndarray:
    """The post-LN forward pass before: separate Q, K, V products through 4-D head views,
    ``mean`` reductions in LayerNorm and a full ``isfinite`` scan per layer."""
    query, key, value, output = (np.ascontiguousarray(w) for w in (
        weights.query, weights.key, weights.value, weights.output))
    X = X0
    batch, n, d = X.shape
    heads, dk = config.heads, config.width // config.heads
    for layer in range(config.depth):
        with np.errstate(over="ignore", invalid="ignore"):
            Q = (X @ query[:, layer]).reshape(batch, n, heads, dk).transpose(0, 2, 1, 3)
            K = (X @ key[:, layer]).reshape(batch, n, heads, dk).transpose(0, 2, 1, 3)
            logits = Q @ K.transpose(0, 1, 3, 2)
            logits *= 1.0 / (np.sqrt(dk) * config.temperature)
            logits -= logits.max(axis=-1, keepdims=True)
            np.exp(logits, out=logits)
            logits /= logits.sum(axis=-1, keepdims=True)
            V = (X @ value[:, layer]).reshape(batch, n, heads, dk).transpose(0, 2, 1, 3)
            mixed = (logits @ V).transpose(0, 2, 1, 3).reshape(batch, n, d)
            X = _layer_norm_before(X + mixed @ output[:, layer])
        if not np.all(np.isfinite(X)):
            raise ValueError("overflow")
    return X


def variant_stack_before(config: StackConfig, weights: SoftmaxWeights,
                         X0: np.ndarray) -> np.ndarray:
    """The forward pass before the block specification: one loop per backend, the six
    variants as a closed list of branches (``_combine``), no skip scale, no QK-norm."""
    from attndepth.simulations.models.stacks import (
        attention_from_projections,
        layer_norm,
        mix_values,
        remove_token_mean,
    )

    def combine(X: np.ndarray, update: np.ndarray) -> np.ndarray:
        variant = config.variant
        if variant == "pure":
            return update
        if config.residual_scale != 1.0:
            update = config.residual_scale * update
        if variant in ("residual", "pre-ln"):
            return X + update
        if variant == "post-ln":
            return layer_norm(X + update)
        if variant == "post-ln-deesc-a":
            return layer_norm(X + remove_token_mean(update, config.tau))
        return layer_norm(remove_token_mean(X + update, config.tau))

    X, d = X0, config.width
    for layer in range(config.depth):
        with np.errstate(over="ignore", invalid="ignore"):
            attend_to = layer_norm(X) if config.variant == "pre-ln" else X
            projected = attend_to @ weights.projections[:, layer]
            P = attention_from_projections(projected[..., :d], projected[..., d:2 * d],
                                           config.heads, config.temperature, config.causal,
                                           config.window)
            Y = combine(X, mix_values(P, projected[..., 2 * d:], weights.output[:, layer]))
            if config.ffn:
                ffn_input = layer_norm(Y) if config.variant == "pre-ln" else Y
                hidden = ffn_input @ weights.ffn_in[:, layer]
                np.maximum(hidden, 0.0, out=hidden)
                Y = combine(Y, hidden @ weights.ffn_out[:, layer])
        total = Y.sum()
        if not np.isfinite(total) and not np.all(np.isfinite(Y)):
            raise ValueError("overflow")
        X = Y
    return X


def polynomial_product_before(a: np.ndarray, b: np.ndarray, prime: int) -> np.ndarray:
    """Matrix-polynomial product with a remainder after every coefficient product (before
    the lazy anti-diagonal sums)."""
    products = matmul_mod(a[..., :, None, :, :], b[..., None, :, :, :], prime)
    first, second = a.shape[-3], b.shape[-3]
    total = np.zeros(products.shape[:-4] + (first + second - 1,) + products.shape[-2:],
                     dtype=np.int64)
    for i in range(first):
        total[..., i:i + second, :, :] += products[..., i, :, :, :]
    return reduce_nonnegative(total, prime)


def _greedy_batches(sizes: list[int], peak_bytes) -> list[list[int]]:
    """Block indices, largest first, grouped while ``peak_bytes(entries, largest)`` (the
    batch's int32 entries and its largest block's side) allows; a block alone otherwise."""
    order = sorted((a for a, n in enumerate(sizes) if n), key=lambda a: -sizes[a])
    batches: list[list[int]] = []
    entries = 0
    for a in order:
        if batches and peak_bytes(entries + sizes[a] ** 2, sizes[batches[-1][0]]):
            batches[-1].append(a)
            entries += sizes[a] ** 2
        else:
            batches.append([a])
            entries = sizes[a] ** 2
    return batches


def block_batches_before(sizes: list[int]) -> list[list[int]]:
    """Degree-block batches of the first design: at most 2^27 int32 entries (512 MiB)
    each, one pass over the grid per batch."""
    return _greedy_batches(sizes, lambda entries, largest: entries <= 1 << 27)


def block_batches_in_memory(sizes: list[int], budget: int = 3 << 30) -> list[list[int]]:
    """Degree-block batches of the second design, one pass over the grid each: largest
    first, while a batch's int32 blocks plus the float64 copy of its largest take at
    most ``budget`` bytes (every block in memory; none in files)."""
    return _greedy_batches(sizes, lambda entries, largest: 4 * entries + 8 * largest ** 2
                           <= budget)
