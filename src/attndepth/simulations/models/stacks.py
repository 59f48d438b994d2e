"""Seeded random softmax attention stacks, batched over seeds.

Softmax attention (Yu & Zhang 2023, §3): ``P = softmax(Q Kᵀ/(√d_k T))``
per head, with the block variants

  ========================  ===============================================
  ``pure``                  X ← A(X)                   (Dong et al. 2021)
  ``residual``              X ← X + α A(X)
  ``post-ln``               X ← LN(X + α A(X))
  ``pre-ln``                X ← X + α A(LN(X))
  ``post-ln-deesc-a``       X ← LN(X + α (I − τΠ) A(X))
  ``post-ln-deesc-b``       X ← LN((I − τΠ)(X + α A(X)))
  ========================  ===============================================

  with the residual-branch scale α (``residual_scale``, 1 by default; Noci et
  al. 2022 scale the branches by 1/√L).

  where ``A(X) = concat_h(P_h X W_V^h) W_O`` (so ``A(X) = Σ_h P_h X W_h`` with
  ``W_h = W_V^h W_O^h``), ``Π = 11ᵀ/n`` and LN is LayerNorm without affine
  parameters. An optional ReLU feed-forward sublayer follows each attention
  sublayer with the same residual/normalisation placement.

The linear-attention model of Levine et al. lives in
:mod:`attndepth.simulations.models.linear_attention`, the reuse of drawn weights in
:mod:`attndepth.simulations.models.weight_cache`.

Arrays are ``(batch, tokens, width)``; weights carry ``(batch, depth, ...)``.
Weights are Gaussian with variance ``1/fan_in`` so a layer neither inflates nor
shrinks a typical token (the scale the post-LN rate in
``attndepth.theory.similarity`` assumes). Weights for stack ``k`` come from the
``SeedSequence(seed)`` child ``k`` (see ``attndepth.simulations.seeding``); the draws loop
over stacks, the computation never does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType, Overflow
from attndepth.simulations.models.weight_cache import WeightCache
from attndepth.simulations.seeding import WEIGHTS_STREAM, spawn_generators
from attndepth.simulations.validation import (
    check_choice,
    check_finite_array,
    check_int,
    check_real,
    check_seed,
    check_size,
)

VARIANTS: tuple[str, ...] = (
    "pure",
    "residual",
    "post-ln",
    "pre-ln",
    "post-ln-deesc-a",
    "post-ln-deesc-b",
)

#: LayerNorm epsilon added to the per-token variance.
LAYER_NORM_EPS = 1e-5
#: Hidden width of the optional feed-forward sublayer, as a multiple of width.
FFN_EXPANSION = 4
#: Floating-point types a softmax stack can run in.
DTYPES: tuple[str, ...] = ("float64", "float32")


@dataclass(frozen=True)
class StackConfig:
    """Shape and variant of a softmax attention stack.

    Parameters
    ----------
    variant : one of :data:`VARIANTS`.
    depth : number of blocks L >= 0.
    tokens : sequence length n >= 1.
    width : model width d >= 1.
    heads : number of heads H, dividing ``width``.
    tau : de-escalation strength τ in [0, 1] (used by the ``deesc`` variants).
    temperature : softmax temperature T > 0; logits are divided by √d_k·T.
    causal : mask attention to earlier positions (P stays row-stochastic).
    ffn : add a ReLU feed-forward sublayer after each attention sublayer.
    residual_scale : α > 0 multiplying every residual branch (attention and FFN);
        1 is the plain stack, ``1/sqrt(depth)`` the scaling of Noci et al. 2022
        (arXiv 2206.03126). Only variants with a residual branch accept α ≠ 1.
    window : None (full attention) or w >= 1: token i attends to the tokens j
        with ``|i − j| < w`` (a band of width 2w − 1), or, with ``causal``, to
        i − w < j <= i (a sliding window of w tokens); Wu et al. 2024
        (arXiv 2405.18781) study such local masks.
    dtype : ``float64`` (default) or ``float32``. The same Gaussian draws are
        rounded to float32, and the stack then runs in float32 (1.4–2.4× faster,
        bench/RESULTS.md). Tolerated by the token-similarity measurements
        (t_sim, log-odds and their slopes, computed in float64 from the float32
        states; the bench reports the deviation), not by checks at rounding
        level: ``P1 = 1`` holds only to ~1e-7 and Dong's residual cannot be
        followed below ~1e-7 of its start.
    """

    variant: str = "post-ln"
    depth: int = 16
    tokens: int = 16
    width: int = 32
    heads: int = 1
    tau: float = 1.0
    temperature: float = 1.0
    causal: bool = False
    ffn: bool = False
    residual_scale: float = 1.0
    window: int | None = None
    dtype: str = "float64"

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_choice("dtype", self.dtype, DTYPES)
        object.__setattr__(self, "depth", check_int("depth", self.depth, minimum=0))
        object.__setattr__(self, "tokens", check_int("tokens", self.tokens, minimum=1))
        object.__setattr__(self, "width", check_int("width", self.width, minimum=1))
        heads = check_int("heads", self.heads, minimum=1)
        if self.width % heads:
            raise InvalidParameter(f"heads must divide width={self.width}, got heads={heads}")
        object.__setattr__(self, "heads", heads)
        object.__setattr__(self, "tau", check_real("tau", self.tau, 0.0, 1.0))
        temperature = check_real("temperature", self.temperature, 0.0, strict_minimum=True)
        object.__setattr__(self, "temperature", temperature)
        for flag in ("causal", "ffn"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidParameter(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        scale = check_real("residual_scale", self.residual_scale, 0.0, strict_minimum=True)
        if self.variant == "pure" and scale != 1.0:
            raise InvalidParameter("residual_scale needs a residual branch; the pure variant has "
                                   "none")
        object.__setattr__(self, "residual_scale", scale)
        if self.window is not None:
            object.__setattr__(self, "window", check_int("window", self.window, minimum=1))

    @property
    def head_dim(self) -> int:
        """d_k = width / heads."""
        return self.width // self.heads

    def as_dict(self) -> dict:
        """Plain dict, for JSON records."""
        return asdict(self)


@dataclass(frozen=True)
class SoftmaxWeights:
    """Weights of a batch of softmax stacks.

    Attributes
    ----------
    projections : (batch, depth, width, 3·width), ``[W_Q | W_K | W_V]`` side by
        side so one matmul per layer gives Q, K and V; ``query``, ``key`` and
        ``value`` are views of its three column blocks.
    output : (batch, depth, width, width)
    ffn_in : (batch, depth, width, 4·width) or None
    ffn_out : (batch, depth, 4·width, width) or None

    Head h uses the column block ``h·d_k:(h+1)·d_k`` of query/key/value and the
    same row block of output.
    """

    projections: np.ndarray
    output: np.ndarray
    ffn_in: np.ndarray | None
    ffn_out: np.ndarray | None

    @property
    def batch(self) -> int:
        return self.output.shape[0]

    @property
    def width(self) -> int:
        return self.output.shape[-1]

    def astype(self, dtype: str) -> SoftmaxWeights:
        """The same weights rounded to ``dtype`` (no copy when already of that type)."""
        def cast(array: np.ndarray | None) -> np.ndarray | None:
            return None if array is None else array.astype(dtype, copy=False)

        return SoftmaxWeights(cast(self.projections), cast(self.output), cast(self.ffn_in),
                              cast(self.ffn_out))

    @property
    def query(self) -> np.ndarray:
        """(batch, depth, width, width) view."""
        return self.projections[..., :self.width]

    @property
    def key(self) -> np.ndarray:
        """(batch, depth, width, width) view."""
        return self.projections[..., self.width:2 * self.width]

    @property
    def value(self) -> np.ndarray:
        """(batch, depth, width, width) view."""
        return self.projections[..., 2 * self.width:]


#: Recent softmax weight draws, keyed by (depth, width, ffn, batch, seed).
WEIGHTS = WeightCache()


def draw_softmax_weights(config: StackConfig, batch: int, seed: int,
                         first: int = 0) -> SoftmaxWeights:
    """Draw Gaussian weights (variance 1/fan_in; ReLU input layer 2/fan_in).

    Per stack the stream order is q, k, v, o, ffn_in, ffn_out, each (depth, ...)
    in one call; the numbers do not depend on the layout they are stored in.
    The weights depend on (depth, width, ffn, batch, seed) only, not on the
    variant, heads or temperature: recent draws (up to
    ``weight_cache.WEIGHT_CACHE_BYTES``) are returned again, read-only.
    """
    batch = check_int("batch", batch, minimum=1)
    key = (config.depth, config.width, config.ffn, batch, check_seed("seed", seed), first)
    return WEIGHTS.get_or_draw(key, lambda: _draw_softmax_weights(config, batch, seed, first))


def _draw_softmax_weights(config: StackConfig, batch: int, seed: int,
                          first: int = 0) -> SoftmaxWeights:
    d, depth = config.width, config.depth
    per_layer = (4 + (2 * FFN_EXPANSION if config.ffn else 0)) * d * d
    check_size("the stack's weights", batch * depth * per_layer)
    hidden = FFN_EXPANSION * d
    projections = np.empty((batch, depth, d, 3 * d))
    arrays = {"output": np.empty((batch, depth, d, d))}
    if config.ffn:
        arrays.update(ffn_in=np.empty((batch, depth, d, hidden)),
                      ffn_out=np.empty((batch, depth, hidden, d)))
    block = np.empty((depth, d, d))  # the generator writes contiguous blocks only
    for k, rng in enumerate(spawn_generators(seed, batch, WEIGHTS_STREAM, first)):
        for part in range(3):
            rng.standard_normal(out=block)
            projections[k, ..., part * d:(part + 1) * d] = block
        for array in arrays.values():
            rng.standard_normal(out=array[k])
    projections /= np.sqrt(d)  # variance 1/fan_in
    arrays["output"] /= np.sqrt(d)
    if config.ffn:
        arrays["ffn_in"] *= np.sqrt(2.0 / d)  # He initialisation for the ReLU layer
        arrays["ffn_out"] /= np.sqrt(hidden)
    return SoftmaxWeights(projections=projections, output=arrays["output"],
                          ffn_in=arrays.get("ffn_in"), ffn_out=arrays.get("ffn_out"))


def layer_norm(X: np.ndarray) -> np.ndarray:
    """LayerNorm without affine parameters, per token.

    ``LN(X) = D⁻¹ X C`` with ``C = I − 11ᵀ/d`` (feature centring, acting on the
    right) and ``D = diag(std of each token)`` (acting on the left). Token means
    are matrix–vector products with ``1/d`` (BLAS), far cheaper than
    ``mean(axis=-1)`` on short rows.

    X : (..., tokens, width) -> same shape.
    """
    average = np.full(X.shape[-1], 1.0 / X.shape[-1], dtype=X.dtype)
    centred = X - (X @ average)[..., None]
    variance = (centred * centred) @ average
    variance += LAYER_NORM_EPS
    centred /= np.sqrt(variance)[..., None]
    return centred


def remove_token_mean(X: np.ndarray, tau: float) -> np.ndarray:
    """De-escalation ``(I − τΠ) X`` with ``Π = 11ᵀ/n`` (Yu & Zhang 2023).

    X : (..., tokens, width) -> same shape.
    """
    return X - tau * X.mean(axis=-2, keepdims=True)


def softmax_attention(
    X: np.ndarray,
    query: np.ndarray,
    key: np.ndarray,
    heads: int,
    temperature: float = 1.0,
    causal: bool = False,
    window: int | None = None,
) -> np.ndarray:
    """Attention matrices of every head.

    Parameters
    ----------
    X : (batch, tokens, width)
    query, key : (batch, width, width)

    Returns
    -------
    P : (batch, heads, tokens, tokens), row-stochastic (``P 1 = 1``).
    """
    return attention_from_projections(X @ query, X @ key, heads, temperature, causal, window)


def attention_mask(tokens: int, causal: bool = False, window: int | None = None
                   ) -> np.ndarray | None:
    """Where attention is *forbidden*: (tokens, tokens) bool, or None for full attention.

    ``causal`` forbids j > i; ``window`` = w forbids ``|i − j| >= w``. Every row
    keeps its diagonal, so every masked softmax row stays a distribution.
    """
    if not causal and window is None:
        return None
    index = np.arange(tokens)
    offset = index[:, None] - index[None, :]  # i − j
    forbidden = np.zeros((tokens, tokens), dtype=bool)
    if causal:
        forbidden |= offset < 0
    if window is not None:
        forbidden |= np.abs(offset) >= window
    return forbidden


def attention_from_projections(
    Q: np.ndarray, K: np.ndarray, heads: int, temperature: float = 1.0, causal: bool = False,
    window: int | None = None,
) -> np.ndarray:
    """``P_h = softmax(Q_h K_hᵀ/(√d_k T))`` from projected tokens, in place on the logits.

    Q, K : (batch, tokens, width), any strides; returns (batch, heads, tokens, tokens).
    ``causal`` and ``window`` mask the logits (:func:`attention_mask`).
    """
    batch, n, d = Q.shape
    dk = d // heads
    if heads == 1:
        logits = (Q @ np.swapaxes(K, -1, -2))[:, None]
    else:
        logits = (Q.reshape(batch, n, heads, dk).transpose(0, 2, 1, 3)
                  @ K.reshape(batch, n, heads, dk).transpose(0, 2, 3, 1))
    logits *= 1.0 / (np.sqrt(dk) * temperature)
    forbidden = attention_mask(n, causal, window)
    if forbidden is not None:
        logits[..., forbidden] = -np.inf
    logits -= logits.max(axis=-1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=-1, keepdims=True)
    return logits


def attention_output(
    X: np.ndarray, P: np.ndarray, value: np.ndarray, output: np.ndarray
) -> np.ndarray:
    """``A(X) = concat_h(P_h X W_V^h) W_O``.

    X : (batch, tokens, width); P : (batch, heads, tokens, tokens);
    value, output : (batch, width, width). Returns (batch, tokens, width).
    """
    return mix_values(P, X @ value, output)


def mix_values(P: np.ndarray, V: np.ndarray, output: np.ndarray) -> np.ndarray:
    """``concat_h(P_h V_h) W_O`` from projected values V : (batch, tokens, width)."""
    batch, n, d = V.shape
    heads = P.shape[1]
    if heads == 1:
        mixed = P[:, 0] @ V
    else:
        V = V.reshape(batch, n, heads, d // heads).transpose(0, 2, 1, 3)
        mixed = (P @ V).transpose(0, 2, 1, 3).reshape(batch, n, d)
    return mixed @ output


def _feed_forward(X: np.ndarray, w_in: np.ndarray, w_out: np.ndarray) -> np.ndarray:
    hidden = X @ w_in
    np.maximum(hidden, 0.0, out=hidden)
    return hidden @ w_out


@dataclass(frozen=True)
class LayerRecord:
    """One block of a stack: its input, its attention matrices and its output.

    Attributes
    ----------
    layer : block index, 0-based.
    inputs, outputs : (batch, tokens, width)
    attention : (batch, heads, tokens, tokens)
    """

    layer: int
    inputs: np.ndarray
    attention: np.ndarray
    outputs: np.ndarray


def iterate_stack(
    config: StackConfig, weights: SoftmaxWeights, X0: np.ndarray
) -> Iterator[LayerRecord]:
    """Run a softmax stack block by block, yielding each block's record.

    Nothing is recomputed: a metric at depth l uses the yielded arrays.

    X0 : (batch, tokens, width), the input tokens. Inputs and weights are
    rounded to ``config.dtype`` once, before the first block.
    """
    X0 = check_finite_array("X0", X0, ndim=3).astype(config.dtype, copy=False)
    weights = weights.astype(config.dtype)
    expected = (weights.batch, config.tokens, config.width)
    if X0.shape != expected:
        raise InvalidParameter(f"X0 must have shape {expected}, got {X0.shape}")
    if weights.output.shape[1] < config.depth:
        raise InvalidParameter(f"weights have depth {weights.query.shape[1]} < config.depth")
    X, d = X0, config.width
    for layer in range(config.depth):
        with np.errstate(over="ignore", invalid="ignore"):  # checked right after
            attend_to = layer_norm(X) if config.variant == "pre-ln" else X
            projected = attend_to @ weights.projections[:, layer]  # [Q | K | V], one GEMM
            P = attention_from_projections(projected[..., :d], projected[..., d:2 * d],
                                           config.heads, config.temperature, config.causal,
                                           config.window)
            update = mix_values(P, projected[..., 2 * d:], weights.output[:, layer])
            Y = _combine(config, X, update)
            if config.ffn:
                ffn_input = layer_norm(Y) if config.variant == "pre-ln" else Y
                ffn_update = _feed_forward(
                    ffn_input, weights.ffn_in[:, layer], weights.ffn_out[:, layer]
                )
                Y = _combine(config, Y, ffn_update)
        check_finite_states(Y, layer + 1, config.variant)
        yield LayerRecord(layer=layer, inputs=X, attention=P, outputs=Y)
        X = Y


def check_finite_states(Y: np.ndarray, depth: int, model: str) -> None:
    """Stop with a clear error when float64 states overflow (never a silent NaN).

    Linear attention grows like |x|^(3^L) and residual stacks without
    normalisation like 2^(L/2); rescaling would change the function being
    studied, so the run stops and names the depth instead.
    """
    # one cheap reduction first: a NaN or ±inf entry makes the sum non-finite
    with np.errstate(over="ignore", invalid="ignore"):
        total = Y.sum()
    if not np.isfinite(total) and not np.all(np.isfinite(Y)):
        raise Overflow(f"{model} states overflowed {Y.dtype} at depth {depth}; "
                       f"use fewer layers or smaller inputs")


def _combine(config: StackConfig, X: np.ndarray, update: np.ndarray) -> np.ndarray:
    """Join a sublayer's input and update according to the block variant."""
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
    return layer_norm(remove_token_mean(X + update, config.tau))  # post-ln-deesc-b


@dataclass(frozen=True)
class Trajectory:
    """Every state of a batch of stacks.

    Attributes
    ----------
    states : (depth + 1, batch, tokens, width); ``states[0]`` is the input.
    attention : (depth, batch, heads, tokens, tokens) or None when not kept.
    config : the stack configuration.
    seed : base seed; stack k used ``SeedSequence(seed)`` child k.
    """

    states: np.ndarray
    attention: np.ndarray | None
    config: StackConfig
    seed: int


def draw_stack(config: StackConfig, batch: int, seed: int,
               first: int = 0) -> tuple[SoftmaxWeights, np.ndarray]:
    """Weights and Gaussian input tokens X0 (batch, tokens, width), in ``config.dtype``.

    ``first``: index of the first stack (chunks of a batch draw the same numbers).
    """
    from attndepth.simulations.seeding import gaussian_tokens

    if config.dtype != "float64":  # the float64 draw and its rounded copy live at once
        d = config.width
        per_layer = (4 + (2 * FFN_EXPANSION if config.ffn else 0)) * d * d
        check_size("the stack's weights and their float32 copy",
                   batch * config.depth * per_layer * 3 // 2)
    weights = draw_softmax_weights(config, batch, seed, first).astype(config.dtype)
    X0 = gaussian_tokens(seed, batch, config.tokens, config.width, first)
    return weights, X0.astype(config.dtype, copy=False)


def run_stack(
    config: StackConfig,
    batch: int,
    seed: int,
    X0: np.ndarray | None = None,
    keep_attention: bool = False,
) -> Trajectory:
    """Draw weights (and Gaussian inputs unless ``X0`` is given) and run the stack."""
    batch = check_int("batch", batch, minimum=1)
    n, d = config.tokens, config.width
    check_size("the trajectory", (config.depth + 1) * batch * n * max(d, config.heads * n))
    if keep_attention:
        check_size("the attention matrices", config.depth * batch * config.heads * n * n)
    weights, drawn = draw_stack(config, batch, seed)
    if X0 is None:
        X0 = drawn
    elif not (isinstance(X0, np.ndarray | list | tuple)
              and np.asarray(X0).dtype.kind in "iuf"):
        raise InvalidType(f"X0 must be a real array of shape (batch, tokens, width), got "
                          f"{type(X0).__name__} of dtype {getattr(np.asarray(X0), 'dtype', '?')}")
    states = [np.asarray(X0, dtype=config.dtype)]
    attention = []
    for record in iterate_stack(config, weights, X0):
        states.append(record.outputs)
        if keep_attention:
            attention.append(record.attention)
    return Trajectory(
        states=np.stack(states),
        attention=np.stack(attention) if keep_attention and attention else None,
        config=config,
        seed=seed,
    )
