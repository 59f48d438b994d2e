"""The linear-attention network analysed by Levine et al. 2020 (theory document §1).

``y^{l+1,i} = ρ y^{l,i} + Σ_h Σ_j ⟨W_Q^h y^{l,i}, W_K^h y^{l,j}⟩ W_O^h W_V^h y^{l,j}``,
in float64 or exactly modulo a prime. Arrays are ``(batch, tokens, width)``;
weights are kept as the products that matter, ``A_h = W_Q^hᵀ W_K^h`` and
``B_h = W_O^h W_V^h``, with a leading ``(batch, depth, heads)``. Weights for
stack ``k`` come from the ``SeedSequence(seed)`` child ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.rank.arithmetic.modular import check_prime, matmul_mod
from attndepth.simulations.models.stacks import check_finite_states
from attndepth.simulations.seeding import WEIGHTS_STREAM, spawn_generators
from attndepth.validation import check_int, check_size


@dataclass(frozen=True)
class LinearAttentionWeights:
    """Weights of a batch of linear-attention stacks, in the products that matter.

    Attributes
    ----------
    bilinear : (batch, depth, heads, width, width); ``A_h = W_Q^hᵀ W_K^h``.
    value_output : (batch, depth, heads, width, width); ``B_h = W_O^h W_V^h``.
    residual : ρ, 0 or 1.
    prime : None for float64 weights, else the prime p; entries then lie in [0, p).
    seed : base seed of the draw.

    Both products have rank ≤ d_a = width/heads, as in the paper.
    """

    bilinear: np.ndarray
    value_output: np.ndarray
    residual: int
    prime: int | None
    seed: int

    @property
    def depth(self) -> int:
        return self.bilinear.shape[1]

    @property
    def width(self) -> int:
        return self.bilinear.shape[-1]

    @property
    def heads(self) -> int:
        return self.bilinear.shape[2]


def draw_linear_attention_weights(
    width: int,
    depth: int,
    heads: int = 1,
    residual: int = 0,
    batch: int = 1,
    seed: int = 0,
    prime: int | None = None,
) -> LinearAttentionWeights:
    """Draw W_Q, W_K, W_V (d_a × d) and W_O (d × d_a) per head and layer.

    Float mode (``prime=None``): Gaussian entries with variance 1/d.
    Exact mode: entries uniform in GF(p) = {0, …, p−1}; the products A_h, B_h
    are then formed exactly modulo p. An integer weight setting lifts these
    residues, so the network over GF(p) is the reduction of an integer network.
    """
    width = check_int("width", width, minimum=1)
    depth = check_int("depth", depth, minimum=0)
    heads = check_int("heads", heads, minimum=1)
    if width % heads:
        raise InvalidParameter(f"heads must divide width={width}, got heads={heads}")
    if residual not in (0, 1) or isinstance(residual, bool):
        raise InvalidParameter(f"residual must be 0 or 1, got {residual!r}")
    if prime is not None:
        prime = check_prime(prime)
    batch = check_int("batch", batch, minimum=1)
    # at once: the two outputs, and one stack's four drawn factors (depth·d² each) and
    # its products with their modular-matmul temporaries (about 3× a product each)
    outputs = batch * depth * heads * width * width * 2
    one_stack = 4 * depth * width * width + 3 * 2 * depth * heads * width * width
    check_size("the linear-attention weights and one stack's draws", outputs + one_stack)
    head_dim = width // heads
    dtype = np.float64 if prime is None else np.int64
    bilinear = np.empty((batch, depth, heads, width, width), dtype=dtype)
    value_output = np.empty((batch, depth, heads, width, width), dtype=dtype)
    for k, rng in enumerate(spawn_generators(seed, batch, WEIGHTS_STREAM)):
        shape_in = (depth, heads, head_dim, width)
        shape_out = (depth, heads, width, head_dim)
        if prime is None:
            scale = 1.0 / np.sqrt(width)
            wq, wk, wv = (rng.standard_normal(shape_in) * scale for _ in range(3))
            wo = rng.standard_normal(shape_out) * scale
            bilinear[k] = np.swapaxes(wq, -1, -2) @ wk
            value_output[k] = wo @ wv
        else:
            wq, wk, wv = (rng.integers(0, prime, shape_in, dtype=np.int64) for _ in range(3))
            wo = rng.integers(0, prime, shape_out, dtype=np.int64)
            bilinear[k] = matmul_mod(np.swapaxes(wq, -1, -2).copy(), wk, prime)
            value_output[k] = matmul_mod(wo, wv, prime)
    return LinearAttentionWeights(
        bilinear=bilinear,
        value_output=value_output,
        residual=residual,
        prime=prime,
        seed=seed,
    )


def linear_attention_layer(
    Y: np.ndarray, A: np.ndarray, B: np.ndarray, residual: int
) -> np.ndarray:
    """One float64 linear-attention layer, ``Y' = ρY + Σ_h (Y A_h Yᵀ)(Y B_hᵀ)``.

    Row i of ``Y A_h Yᵀ`` holds ⟨W_Q^h y^i, W_K^h y^j⟩ = y^iᵀ A_h y^j, and row j
    of ``Y B_hᵀ`` is (W_O^h W_V^h y^j)ᵀ (Levine et al. 2020, docs/theory.md §1).

    Y : (batch, tokens, width); A, B : (batch, heads, width, width).
    """
    Yh = Y[:, None]
    scores = Yh @ A @ np.swapaxes(Yh, -1, -2)
    out = (scores @ (Yh @ np.swapaxes(B, -1, -2))).sum(axis=1)
    if residual:
        out += Y
    return out


def linear_attention_layer_mod(
    Y: np.ndarray, A: np.ndarray, B: np.ndarray, residual: int, prime: int
) -> np.ndarray:
    """The same layer exactly modulo ``prime`` (entries in [0, p), int64)."""
    Yh = Y[:, None]
    scores = matmul_mod(matmul_mod(Yh, A, prime), np.swapaxes(Yh, -1, -2), prime)
    values = matmul_mod(Yh, np.swapaxes(B, -1, -2), prime)
    out = matmul_mod(scores, values, prime).sum(axis=1) % prime
    if residual:
        out = (out + Y) % prime
    return out


def linear_attention_states(Y0: np.ndarray, weights: LinearAttentionWeights) -> np.ndarray:
    """Run a linear-attention stack and keep every state.

    Y0 : (batch, tokens, width), float64 (or int64 residues in exact mode;
    ``weights.batch`` must equal ``batch`` or be 1 to share one network).

    Returns
    -------
    states : (depth + 1, batch, tokens, width)
    """
    Y = np.asarray(Y0)
    if Y.ndim != 3 or Y.shape[-1] != weights.width:
        raise InvalidParameter(f"Y0 must have shape (batch, tokens, {weights.width}), got "
                               f"{Y.shape}")
    states = [Y]
    for layer in range(weights.depth):
        A = weights.bilinear[:, layer]
        B = weights.value_output[:, layer]
        if weights.prime is None:
            with np.errstate(over="ignore", invalid="ignore"):
                Y = linear_attention_layer(Y, A, B, weights.residual)
            check_finite_states(Y, layer + 1, "linear-attention")
        else:
            Y = linear_attention_layer_mod(Y, A, B, weights.residual, weights.prime)
        states.append(Y)
    return np.stack(states)
