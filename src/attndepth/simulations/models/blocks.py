"""The block of a softmax stack, defined once for NumPy and JAX.

A block is a sequence of *branches* (attention, then the optional ReLU
feed-forward sublayer, then an optional user :class:`Sublayer`), each joined to
the states by the same :class:`BlockSpec`. With normaliser N (LayerNorm, RMSNorm
or DyT, no affine parameters), skip scale α (``skip_scale``), branch scale β
(``residual_scale``), de-escalation ``E = I − τΠ`` (``Π = 11ᵀ/n``) and branch F:

  ===========  ========================================================
  placement    one branch
  ===========  ========================================================
  ``none``     X ← α X + β F(X)
  ``pre``      X ← α X + β F(N(X))                 (pre-LN)
  ``post``     X ← N(α X + β F(X))                 (post-LN; DeepNorm, α > 1)
  ``peri``     X ← α X + β N(F(N(X)))              (Peri-LN, Kim et al. 2025,
                                                    arXiv 2502.02732; "sandwich")
  ``mix``      blocks 1 … ⌊ρL⌋ post, the rest pre  (Mix-LN, Li et al. 2024,
                                                    arXiv 2412.13795, ρ = 0.25)
  ``ngpt``     X ← N(N(X) + a (N(F(N(X))) − N(X)))  (nGPT, Loshchilov et al. 2024,
                                                    arXiv 2410.01131, §2: a step
                                                    on the sphere, a = α_A = 0.05)
  ===========  ========================================================

The normalisers (``norm_kind``): LayerNorm ``(x − x̄)/√(var x + ε)``, RMSNorm
``x/√(mean x² + ε)``, and DyT ``tanh(a₀ x)`` element-wise (Zhu et al. 2025,
"Transformers without Normalization", arXiv 2503.10622: γ tanh(a₀x) + β with γ = 1,
β = 0 as initialised; a₀ = 0.5 their default). RMSNorm puts every token on the sphere of radius
√d, which is nGPT's unit sphere scaled by √d (its logits' scale is the temperature's).

``deescalation="branch"`` replaces β F by ``E β F`` (Yu & Zhang's placement a),
``"sum"`` applies E to the joined sum before the post normaliser (placement b).
``norm_scaling`` (pre-LN only) is Sun et al.'s LayerNorm scaling: block ℓ = 1, …, L
reads N(X)/√ℓ in place of N(X).
Without a skip path (``skip=False``, Dong et al.'s pure attention) a branch is
X ← F(X), normalised as the placement says. ``qk_norm`` normalises each head's
queries and keys over their d_k features before the logits; ``decay`` = m subtracts
m|i − j| from every scaled logit (a decay mask, ALiBi's bias under a causal mask).

The array operations come from a backend: :data:`NUMPY` (in place where that
saves an allocation) or :func:`jax_ops` (pure functions, traceable by
``jax.jit`` and ``jax.grad``). Everything else — the order of the branches,
their joining, the heads and masks — is :func:`block_forward`, the one
definition both :mod:`~attndepth.simulations.models.stacks` and
:mod:`~attndepth.simulations.models.jax_stack` run.

Shapes: states ``(batch, tokens, width)``; a block's weights ``(batch, ...)``
per sequence, or without the batch axis when shared by the batch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.validation import check_choice, check_real

#: Where a branch is normalised.
NORM_PLACEMENTS: tuple[str, ...] = ("none", "pre", "post", "peri", "mix", "ngpt")
#: Which normaliser: LayerNorm (centre, then scale), RMSNorm (scale only) or DyT
#: (tanh(a₀x) element-wise).
NORM_KINDS: tuple[str, ...] = ("layer", "rms", "dyt")
#: The placements that need a skip path (they are defined by it).
SKIP_PLACEMENTS: tuple[str, ...] = ("mix", "ngpt")
#: Where the de-escalation (I − τΠ) acts: nowhere, on the branch, on the joined sum.
DEESCALATIONS: tuple[str, ...] = ("none", "branch", "sum")
#: Epsilon added to the per-token mean square (RMSNorm) or variance (LayerNorm).
NORM_EPS = 1e-5


@dataclass(frozen=True)
class BlockSpec:
    """How each branch of a block joins the states (the table of the module docstring).

    Parameters
    ----------
    skip : bool
        Whether the skip path exists (False: X ← F(X), Dong et al. 2021).
    norm : one of :data:`NORM_PLACEMENTS`
    norm_kind : one of :data:`NORM_KINDS`
    skip_scale : float
        α > 0 on the skip path (DeepNorm, Wang et al. 2022, arXiv 2203.00555).
    residual_scale : float
        β > 0 on every branch (Noci et al. 2022 take β = 1/√L).
    deescalation : one of :data:`DEESCALATIONS`
    tau : float
        τ in [0, 1], the de-escalation strength.
    qk_norm : bool
        Normalise each head's queries and keys (with ``norm_kind``).
    norm_scaling : bool
        LayerNorm scaling (Sun et al. 2025, arXiv 2502.05795, §4): block ℓ (1-based)
        multiplies its branch input N(X) by 1/√ℓ. Pre-LN placement only.
    mix_post_blocks : int
        Mix-LN (``norm="mix"``): the blocks of index 0 … ``mix_post_blocks`` − 1 are
        post-LN, the later ones pre-LN.
    ngpt_step : float
        nGPT (``norm="ngpt"``): a in (0, 1], the step towards the normalised branch
        (the eigen learning rate α_A as initialised, 0.05 in the paper).
    dyt_alpha : float
        DyT (``norm_kind="dyt"``): a₀ > 0 in tanh(a₀ x).
    decay : float
        m ≥ 0 of the decay mask: every logit, after its 1/(√d_k T) scale, less m·|i − j|
        (with a causal mask the ALiBi/RetNet bias −m(i − j), the decay mask of Wu et al.
        2025, arXiv 2502.01951). 0: none.
    """

    skip: bool = True
    norm: str = "post"
    norm_kind: str = "layer"
    skip_scale: float = 1.0
    residual_scale: float = 1.0
    deescalation: str = "none"
    tau: float = 1.0
    qk_norm: bool = False
    norm_scaling: bool = False
    mix_post_blocks: int = 0
    ngpt_step: float = 0.05
    dyt_alpha: float = 0.5
    decay: float = 0.0

    def __post_init__(self) -> None:
        for flag in ("skip", "qk_norm", "norm_scaling"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidParameter(f"{flag} must be True or False, got "
                                       f"{getattr(self, flag)!r}")
        check_choice("norm", self.norm, NORM_PLACEMENTS)
        check_choice("norm_kind", self.norm_kind, NORM_KINDS)
        check_choice("deescalation", self.deescalation, DEESCALATIONS)
        for name in ("skip_scale", "residual_scale"):
            value = check_real(name, getattr(self, name), 0.0, strict_minimum=True)
            if not self.skip and value != 1.0:
                raise InvalidParameter(f"{name} needs a skip path; a block without one "
                                       f"(the pure variant) is X ← F(X)")
            object.__setattr__(self, name, value)
        object.__setattr__(self, "tau", check_real("tau", self.tau, 0.0, 1.0))
        if not self.skip and self.deescalation == "branch":
            raise InvalidParameter("deescalation='branch' needs a skip path; use 'sum'")
        if self.norm_scaling and (self.norm != "pre" or not self.skip):
            raise InvalidParameter(f"norm_scaling (LayerNorm scaling, N(X)/√ℓ) is defined for "
                                   f"pre-LN blocks; this block's placement is {self.norm!r}")
        if self.norm in SKIP_PLACEMENTS and not self.skip:
            raise InvalidParameter(f"norm={self.norm!r} is defined by its skip path; the pure "
                                   f"variant (X ← F(X)) has none")
        blocks = self.mix_post_blocks
        if isinstance(blocks, bool) or not isinstance(blocks, (int, np.integer)) or blocks < 0:
            raise InvalidParameter(f"mix_post_blocks must be an integer >= 0, got {blocks!r}")
        object.__setattr__(self, "mix_post_blocks", int(blocks))
        object.__setattr__(self, "ngpt_step", check_real("ngpt_step", self.ngpt_step, 0.0, 1.0,
                                                         strict_minimum=True))
        object.__setattr__(self, "dyt_alpha", check_real("dyt_alpha", self.dyt_alpha, 0.0,
                                                         strict_minimum=True))
        object.__setattr__(self, "decay", check_real("decay", self.decay, 0.0))
        if self.norm == "ngpt":
            if self.norm_kind == "dyt":
                raise InvalidParameter("nGPT steps on a sphere: use norm_kind layer or rms "
                                       "(DyT does not put tokens on one)")
            if self.skip_scale != 1.0 or self.residual_scale != 1.0 or self.deescalation != "none":
                raise InvalidParameter("nGPT's step a (ngpt_step) is its only scale: "
                                       "skip_scale and residual_scale 1, no de-escalation")


#: The named variants as block specifications (τ and the scales come from the config).
PRESETS: Mapping[str, BlockSpec] = {
    "pure": BlockSpec(skip=False, norm="none"),
    "residual": BlockSpec(norm="none"),
    "post-ln": BlockSpec(norm="post"),
    "pre-ln": BlockSpec(norm="pre"),
    "post-ln-deesc-a": BlockSpec(norm="post", deescalation="branch"),
    "post-ln-deesc-b": BlockSpec(norm="post", deescalation="sum"),
}


@dataclass(frozen=True)
class Sublayer:
    """A user-supplied branch, joined like the others and drawn with the stack.

    Parameters
    ----------
    name : str
        Recorded in the configuration's JSON form.
    apply : callable ``(xp, X, weights) -> update``
        ``xp`` is ``numpy`` or ``jax.numpy`` (write it with ``xp`` only and it
        runs, differentiably, on both), ``X`` the branch input (batch, n, d),
        ``weights`` a dict of this block's arrays ``(batch, *shape)``. Returns
        (batch, n, d).
    shapes : callable ``width -> {name: shape}``
        Per-block weight shapes; each is drawn Gaussian with variance 1/fan_in
        (fan_in = ``shape[-2]``, or ``shape[0]`` for a vector) after the
        stack's own weights, so adding a sublayer leaves those unchanged.

    Examples
    --------
    A gated branch ``σ(X G) ⊙ (X U)``::

        Sublayer("gated", lambda xp, X, w: (X @ w["up"]) / (1 + xp.exp(-(X @ w["gate"]))),
                 lambda d: {"gate": (d, d), "up": (d, d)})
    """

    name: str
    apply: Callable[..., Any] = field(compare=True)
    shapes: Callable[[int], Mapping[str, tuple[int, ...]]] = field(compare=True)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidType(f"a sublayer's name must be a non-empty string, got {self.name!r}")
        for part in ("apply", "shapes"):
            if not callable(getattr(self, part)):
                raise InvalidType(f"sublayer {self.name!r}: {part} must be callable, got "
                                  f"{type(getattr(self, part)).__name__}")

    def weight_shapes(self, width: int) -> dict[str, tuple[int, ...]]:
        """The per-block shapes at ``width``, checked: ``{name: shape}`` of positive ints."""
        shapes = self.shapes(width)
        if not isinstance(shapes, Mapping):
            raise InvalidType(f"sublayer {self.name!r}: shapes(width) must return a dict "
                              f"name -> shape, got {type(shapes).__name__}")
        checked = {}
        for key, shape in shapes.items():
            if key in RESERVED_WEIGHTS or not isinstance(key, str):
                raise InvalidParameter(f"sublayer {self.name!r}: weight name {key!r} is "
                                       f"taken or not a string")
            shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
            if not shape or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                                    for s in shape):
                raise InvalidParameter(f"sublayer {self.name!r}: shape of {key!r} must be "
                                       f"positive ints, got {shape!r}")
            checked[key] = shape
        return checked


#: The names of a block's own weights (a sublayer's must differ).
RESERVED_WEIGHTS: frozenset[str] = frozenset({"projections", "output", "ffn_in", "ffn_out"})


# --------------------------------------------------------------------------
# Backends: the few operations that differ between NumPy and JAX
# --------------------------------------------------------------------------


class NumpyOps:
    """NumPy kernels: BLAS means, softmax in place on the logits."""

    xp = np

    @staticmethod
    def layer_norm(X: np.ndarray) -> np.ndarray:
        """``LN(X) = D⁻¹ X C``, C = I − 11ᵀ/d, D = diag(per-token std); token means by BLAS."""
        average = np.full(X.shape[-1], 1.0 / X.shape[-1], dtype=X.dtype)
        centred = X - (X @ average)[..., None]
        variance = (centred * centred) @ average
        variance += NORM_EPS
        centred /= np.sqrt(variance)[..., None]
        return centred

    @staticmethod
    def rms_norm(X: np.ndarray) -> np.ndarray:
        """``X / sqrt(mean of squares + ε)`` per token (Zhang & Sennrich 2019)."""
        average = np.full(X.shape[-1], 1.0 / X.shape[-1], dtype=X.dtype)
        square = (X * X) @ average
        square += NORM_EPS
        return X / np.sqrt(square)[..., None]

    @staticmethod
    def dyt(X: np.ndarray, alpha: float) -> np.ndarray:
        """``tanh(a₀ X)`` element-wise (DyT with γ = 1, β = 0)."""
        return np.tanh(np.float64(alpha) * X).astype(X.dtype, copy=False)

    @staticmethod
    def choose(condition: Any, when_true: Callable[[], Any], when_false: Callable[[], Any]):
        """``when_true()`` where ``condition`` holds, else ``when_false()`` (one is run)."""
        return when_true() if condition else when_false()

    @staticmethod
    def softmax(logits: np.ndarray, scale: float, forbidden: np.ndarray | None) -> np.ndarray:
        """Row softmax of ``scale``·logits, in place on fresh logits; ``forbidden`` gets 0.

        The scale multiplies as a float64 scalar, so float32 logits are scaled
        in float64 and rounded once.
        """
        logits *= np.float64(scale)
        if forbidden is not None:
            logits[..., forbidden] = -np.inf
        logits -= logits.max(axis=-1, keepdims=True)
        np.exp(logits, out=logits)
        logits /= logits.sum(axis=-1, keepdims=True)
        return logits

    @staticmethod
    def relu(X: np.ndarray) -> np.ndarray:
        """max(X, 0), in place on a fresh array."""
        np.maximum(X, 0.0, out=X)
        return X


class JaxOps:
    """JAX kernels: the same operations as pure functions of ``jax.numpy``."""

    def __init__(self, jnp: Any):
        self.xp = jnp

    def layer_norm(self, X):
        centred = X - X.mean(axis=-1, keepdims=True)
        variance = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / self.xp.sqrt(variance + NORM_EPS)

    def rms_norm(self, X):
        return X / self.xp.sqrt((X * X).mean(axis=-1, keepdims=True) + NORM_EPS)

    def dyt(self, X, alpha):
        return self.xp.tanh(float(alpha) * X)

    def choose(self, condition, when_true, when_false):
        """Both run; the traced ``condition`` (a block index under ``lax.scan``) selects."""
        return self.xp.where(condition, when_true(), when_false())

    def softmax(self, logits, scale, forbidden):
        logits = logits * float(scale)  # a Python float: float32 logits stay float32
        if forbidden is not None:
            logits = self.xp.where(forbidden, -self.xp.inf, logits)
        logits = logits - logits.max(axis=-1, keepdims=True)
        weights = self.xp.exp(logits)
        return weights / weights.sum(axis=-1, keepdims=True)

    def relu(self, X):
        return self.xp.maximum(X, 0.0)


#: The NumPy backend.
NUMPY = NumpyOps()


def jax_ops(jnp: Any) -> JaxOps:
    """The JAX backend for the ``jax.numpy`` module ``jnp``."""
    return JaxOps(jnp)


# --------------------------------------------------------------------------
# The block
# --------------------------------------------------------------------------


def normalise(ops: Any, spec: BlockSpec, X):
    """N(X) with the spec's normaliser kind, per token (last axis; DyT element-wise)."""
    if spec.norm_kind == "layer":
        return ops.layer_norm(X)
    if spec.norm_kind == "rms":
        return ops.rms_norm(X)
    return ops.dyt(X, spec.dyt_alpha)


def is_post_block(spec: BlockSpec, index: Any) -> Any:
    """Whether Mix-LN's block ``index`` (0-based) is post-LN: index < ``mix_post_blocks``."""
    return index < spec.mix_post_blocks


def branch_input(ops: Any, spec: BlockSpec, X, index: Any):
    """What a branch of block ``index`` (0-based) reads: N(X) for the pre, peri and ngpt
    placements (N(X)/√(index + 1) with ``norm_scaling``) and Mix-LN's pre-LN blocks,
    X otherwise.

    ``index`` may be a traced JAX integer (the block's position in a ``lax.scan``).
    """
    if spec.norm == "mix":
        return ops.choose(is_post_block(spec, index), lambda: X,
                          lambda: normalise(ops, spec, X))
    if spec.norm not in ("pre", "peri", "ngpt"):
        return X
    normalised = normalise(ops, spec, X)
    if spec.norm_scaling:
        normalised = normalised * (index + 1.0) ** -0.5  # a Python float keeps float32
    return normalised


def join(ops: Any, spec: BlockSpec, X, update, index: Any):
    """Join a branch's ``update`` = F(branch input) to the states X of block ``index``
    (0-based; read by Mix-LN), as the spec says.

    X, update : (batch, n, d) -> (batch, n, d).
    """
    if spec.norm == "ngpt":
        start = normalise(ops, spec, X)
        return normalise(ops, spec, start + spec.ngpt_step * (normalise(ops, spec, update)
                                                               - start))
    if spec.norm == "peri":
        update = normalise(ops, spec, update)
    if spec.skip:
        if spec.residual_scale != 1.0:
            update = spec.residual_scale * update
        if spec.deescalation == "branch":
            update = update - spec.tau * update.mean(axis=-2, keepdims=True)
        skip = X if spec.skip_scale == 1.0 else spec.skip_scale * X
        update = skip + update
    if spec.deescalation == "sum":
        update = update - spec.tau * update.mean(axis=-2, keepdims=True)
    if spec.norm == "mix":
        joined = update
        return ops.choose(is_post_block(spec, index), lambda: normalise(ops, spec, joined),
                          lambda: joined)
    return normalise(ops, spec, update) if spec.norm == "post" else update


def attention_logits(Q, K, heads: int):
    """Logits ``Q_h K_hᵀ`` of every head: (batch, heads, n, n).

    Q, K : (batch, n, d), heads splitting the features into blocks of d_k = d/heads.
    """
    batch, n, d = Q.shape
    if heads == 1:
        logits = (Q @ K.swapaxes(-1, -2))[:, None]
    else:
        dk = d // heads
        logits = (Q.reshape(batch, n, heads, dk).transpose(0, 2, 1, 3)
                  @ K.reshape(batch, n, heads, dk).transpose(0, 2, 3, 1))
    return logits


def mix_heads(P, V, output):
    """``concat_h(P_h V_h) W_O``: P (batch, heads, n, n), V (batch, n, d) -> (batch, n, d)."""
    batch, n, d = V.shape
    heads = P.shape[1]
    if heads == 1:
        mixed = P[:, 0] @ V
    else:
        V = V.reshape(batch, n, heads, d // heads).transpose(0, 2, 1, 3)
        mixed = (P @ V).transpose(0, 2, 1, 3).reshape(batch, n, d)
    return mixed @ output


def _normalise_heads(ops: Any, spec: BlockSpec, Z, heads: int):
    batch, n, d = Z.shape
    return normalise(ops, spec, Z.reshape(batch, n, heads, d // heads)).reshape(batch, n, d)


def attention(ops: Any, spec: BlockSpec, X, projections, heads: int, scale: float,
              forbidden) -> tuple[Any, Any]:
    """The attention branch on its input X: (update (batch, n, d), P (batch, heads, n, n)).

    projections : (…, d, 3d), ``[W_Q | W_K | W_V]``, one GEMM for all three.
    scale : ``1/(√d_k·T)``; forbidden : (n, n) bool mask or None.
    """
    d = X.shape[-1]
    projected = X @ projections
    Q, K = projected[..., :d], projected[..., d:2 * d]
    if spec.qk_norm:
        Q, K = _normalise_heads(ops, spec, Q, heads), _normalise_heads(ops, spec, K, heads)
    logits = attention_logits(Q, K, heads)
    if spec.decay:
        logits = logits - decay_bias(ops, logits.shape[-1], spec.decay / scale, logits.dtype)
    P = ops.softmax(logits, scale, forbidden)
    return projected[..., 2 * d:], P


def decay_bias(ops: Any, tokens: int, slope: float, dtype: Any):
    """(n, n) ``slope·|i − j|``, subtracted from unscaled logits (``BlockSpec.decay``)."""
    index = ops.xp.arange(tokens)
    return (slope * ops.xp.abs(index[:, None] - index[None, :])).astype(dtype)


def block_forward(ops: Any, config: Any, forbidden, X, layer: Mapping[str, Any],
                  index: Any) -> tuple[Any, Any]:
    """One block of ``config``: attention, feed-forward, user sublayer, each joined by its spec.

    Parameters
    ----------
    ops : :data:`NUMPY` or :func:`jax_ops`
    config : :class:`~attndepth.simulations.models.stacks.StackConfig`
        Supplies ``block`` (the :class:`BlockSpec`), ``heads``, ``temperature``,
        ``ffn`` and ``sublayer``.
    forbidden : (n, n) bool or None
        :func:`~attndepth.simulations.models.stacks.attention_mask`.
    X : (batch, n, d)
    layer : dict of this block's weights: ``projections`` (…, d, 3d), ``output``
        (…, d, d), with ``config.ffn`` ``ffn_in`` (…, d, 4d) and ``ffn_out``
        (…, 4d, d), and the sublayer's own.
    index : the block's position, 0-based (read by ``norm_scaling``; a traced integer
        under ``jax.lax.scan``). Required, so that no caller runs every block as the
        first.

    Returns
    -------
    (Y, P): the block's output (batch, n, d) and its attention (batch, heads, n, n).
    """
    spec = config.block
    scale = 1.0 / (float(np.sqrt(config.head_dim)) * config.temperature)
    V, P = attention(ops, spec, branch_input(ops, spec, X, index), layer["projections"],
                     config.heads, scale, forbidden)
    Y = join(ops, spec, X, mix_heads(P, V, layer["output"]), index)
    if config.ffn:
        hidden = ops.relu(branch_input(ops, spec, Y, index) @ layer["ffn_in"])
        Y = join(ops, spec, Y, hidden @ layer["ffn_out"], index)
    if config.sublayer is not None:
        own = {name: layer[name] for name in config.sublayer.weight_shapes(config.width)}
        update = config.sublayer.apply(ops.xp, branch_input(ops, spec, Y, index), own)
        if getattr(update, "shape", None) != Y.shape:
            raise InvalidParameter(f"sublayer {config.sublayer.name!r} returned shape "
                                   f"{getattr(update, 'shape', type(update).__name__)}; it "
                                   f"must return the states' shape {Y.shape}")
        Y = join(ops, spec, Y, update, index)
    return Y, P
