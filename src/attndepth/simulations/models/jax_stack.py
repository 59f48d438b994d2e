"""The softmax stacks of :mod:`attndepth.simulations.models.stacks`, written in JAX.

The same blocks, variants, heads, masks, residual scale, de-escalation and
feed-forward sublayer, compiled with ``jax.jit`` over a ``lax.scan`` of the
layers, differentiable, and runnable on a GPU when JAX sees one. With the
same weights and inputs in float64 the states equal the NumPy stack's to
round-off (the tests ask ≤ 1e-12 relative on hypothesis-drawn configurations),
so measurements and, later, trained weights move between the two freely.

JAX is optional (``pip install -e ".[train]"``); nothing else in attndepth
imports it. Float64 needs ``jax_enable_x64``, switched on here at import.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from attndepth.errors import InvalidParameter, MissingExtra, Overflow
from attndepth.simulations.models.stacks import (
    LAYER_NORM_EPS,
    StackConfig,
    Trajectory,
    attention_mask,
    draw_stack,
)
from attndepth.simulations.validation import check_choice, check_int, check_size

#: The install hint of every "JAX is missing" error.
INSTALL_HINT = 'pip install -e ".[train]"'
DEVICES: tuple[str, ...] = ("cpu", "gpu")


def load_jax():
    """Import JAX with float64 enabled, or ModuleNotFoundError with the install hint."""
    try:
        import jax
    except ModuleNotFoundError:
        raise MissingExtra(f"the JAX backend needs JAX: {INSTALL_HINT}") from None
    jax.config.update("jax_enable_x64", True)
    return jax


def available() -> bool:
    """Whether JAX can be imported."""
    try:
        load_jax()
    except ModuleNotFoundError:
        return False
    return True


def device(name: str = "cpu"):
    """The first JAX device of kind ``name`` ("cpu" or "gpu"); ValueError if there is none."""
    check_choice("device", name, DEVICES)
    jax = load_jax()
    try:
        found = jax.devices(name)
    except RuntimeError:
        found = []
    if not found:
        raise InvalidParameter(f"no {name} device visible to JAX (installed backends: "
                               f"{', '.join(sorted({d.platform for d in jax.devices()}))})")
    return found[0]


def _layer_norm(jnp, X):
    centred = X - X.mean(axis=-1, keepdims=True)
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / jnp.sqrt(variance + LAYER_NORM_EPS)


def _combine(jnp, config: StackConfig, X, update):
    """The block variants of :func:`attndepth.simulations.models.stacks._combine`."""
    variant, alpha, tau = config.variant, config.residual_scale, config.tau
    if variant == "pure":
        return update
    update = alpha * update
    if variant in ("residual", "pre-ln"):
        return X + update
    if variant == "post-ln":
        return _layer_norm(jnp, X + update)
    if variant == "post-ln-deesc-a":
        return _layer_norm(jnp, X + update - tau * update.mean(axis=-2, keepdims=True))
    summed = X + update  # post-ln-deesc-b
    return _layer_norm(jnp, summed - tau * summed.mean(axis=-2, keepdims=True))


def _attention(jnp, config: StackConfig, Q, K, forbidden):
    """Row-stochastic attention (batch, heads, n, n) from projections (batch, n, d)."""
    batch, n, d = Q.shape
    heads, dk = config.heads, config.head_dim
    Qh = Q.reshape(batch, n, heads, dk).transpose(0, 2, 1, 3)
    Kh = K.reshape(batch, n, heads, dk).transpose(0, 2, 3, 1)
    logits = (Qh @ Kh) / float(np.sqrt(dk) * config.temperature)  # a Python float: keeps float32
    if forbidden is not None:
        logits = jnp.where(forbidden, -jnp.inf, logits)
    logits = logits - logits.max(axis=-1, keepdims=True)
    weights = jnp.exp(logits)
    return weights / weights.sum(axis=-1, keepdims=True)


def attention_block(jnp, config: StackConfig, forbidden, X, layer):
    """One block of ``config``: attention sublayer, then the optional feed-forward sublayer.

    Parameters
    ----------
    jnp : the ``jax.numpy`` module (passed, so this module never imports JAX itself).
    forbidden : (n, n) bool mask of
        :func:`attndepth.simulations.models.stacks.attention_mask`, or None.
    X : (batch, n, d) states.
    layer : dict of this block's weights — ``projections`` (…, d, 3d), ``output``
        (…, d, d) and, with ``config.ffn``, ``ffn_in`` / ``ffn_out`` — either per
        sequence (batch, …) or shared by the batch.

    Returns
    -------
    (batch, n, d): the block's output, as :func:`attndepth.simulations.models.stacks.iterate_stack`.
    """
    d, heads = config.width, config.heads
    projections, output = layer["projections"], layer["output"]
    attend_to = _layer_norm(jnp, X) if config.variant == "pre-ln" else X
    projected = attend_to @ projections
    P = _attention(jnp, config, projected[..., :d], projected[..., d:2 * d], forbidden)
    batch, n, _ = X.shape
    V = projected[..., 2 * d:].reshape(batch, n, heads, d // heads).transpose(0, 2, 1, 3)
    mixed = (P @ V).transpose(0, 2, 1, 3).reshape(batch, n, d)
    Y = _combine(jnp, config, X, mixed @ output)
    if config.ffn:
        ffn_input = _layer_norm(jnp, Y) if config.variant == "pre-ln" else Y
        hidden = jnp.maximum(ffn_input @ layer["ffn_in"], 0.0)
        Y = _combine(jnp, config, Y, hidden @ layer["ffn_out"])
    return Y


@lru_cache(maxsize=32)
def _compiled(config: StackConfig):
    """A jitted function (weights dict, X0) -> states (depth + 1, batch, n, d), one per config
    (JAX compiles it again for new array shapes)."""
    jax = load_jax()
    jnp = jax.numpy
    mask = attention_mask(config.tokens, config.causal, config.window)
    forbidden = None if mask is None else jnp.asarray(mask)

    def run(layers, X0):
        def step(X, layer):
            Y = attention_block(jnp, config, forbidden, X, layer)
            return Y, Y

        _, states = jax.lax.scan(step, X0, layers)
        return jnp.concatenate([X0[None], states], axis=0)

    return jax.jit(run)


def stack_states(config: StackConfig, weights, X0: np.ndarray, device_name: str = "cpu"):
    """States of the stack for given NumPy weights and inputs, computed by JAX.

    Parameters
    ----------
    config : StackConfig
    weights : SoftmaxWeights
        As drawn by :func:`attndepth.simulations.models.stacks.draw_softmax_weights`.
    X0 : (batch, tokens, width)
    device_name : "cpu" or "gpu"

    Returns
    -------
    numpy array (depth + 1, batch, tokens, width), in ``config.dtype``.
    """
    jax = load_jax()
    target = device(device_name)
    dtype = config.dtype
    X0 = np.asarray(X0, dtype=dtype)
    if X0.shape != (weights.batch, config.tokens, config.width):
        raise InvalidParameter(f"X0 must have shape "
                               f"{(weights.batch, config.tokens, config.width)}, "
                               f"got {X0.shape}")
    if config.depth == 0:
        return X0[None].copy()
    layers = {"projections": np.moveaxis(weights.projections[:, :config.depth], 1, 0),
              "output": np.moveaxis(weights.output[:, :config.depth], 1, 0)}
    if config.ffn:
        layers["ffn_in"] = np.moveaxis(weights.ffn_in[:, :config.depth], 1, 0)
        layers["ffn_out"] = np.moveaxis(weights.ffn_out[:, :config.depth], 1, 0)
    # weights (depth, batch, ...) broadcast against X (batch, n, d) per layer
    layers = {name: jax.device_put(np.ascontiguousarray(array, dtype=dtype), target)
              for name, array in layers.items()}
    states = _compiled(config)(layers, jax.device_put(X0, target))
    return np.asarray(states)


def run_stack(config: StackConfig, batch: int, seed: int, device_name: str = "cpu"
              ) -> Trajectory:
    """:func:`~attndepth.simulations.models.stacks.run_stack` on JAX: the same draws and states.

    On the named device ("cpu" or "gpu"); the attention matrices are not kept
    (``Trajectory.attention`` is None).
    """
    batch = check_int("batch", batch, minimum=1)
    check_size("the trajectory", (config.depth + 1) * batch * config.tokens * config.width)
    weights, X0 = draw_stack(config, batch, seed)
    states = stack_states(config, weights, X0, device_name)
    if not np.all(np.isfinite(states)):
        raise Overflow(f"{config.variant} states overflowed {config.dtype}; use fewer layers "
                       f"or smaller inputs")
    return Trajectory(states=states, attention=None, config=config, seed=seed)
