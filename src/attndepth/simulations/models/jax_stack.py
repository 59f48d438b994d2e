"""The softmax stacks of :mod:`attndepth.simulations.models.stacks`, written in JAX.

The same block: :func:`~attndepth.simulations.models.blocks.block_forward`,
the one definition the NumPy stack runs too, here with the JAX backend
(:func:`~attndepth.simulations.models.blocks.jax_ops`), compiled with
``jax.jit`` over a ``lax.scan`` of the layers, differentiable, and runnable
on a GPU when JAX sees one. With the same weights and inputs in float64 the
states equal the NumPy stack's to round-off (the tests ask ≤ 1e-12 relative
on hypothesis-drawn block specifications), so measurements and trained
weights move between the two freely.

JAX is optional (``pip install -e ".[train]"``); attndepth imports it only
through :func:`load_jax` (here, the training runs and the compiled degree-block
evaluation, :mod:`attndepth.rank.evaluation.compiled_scales`). Float64 and
int64 need ``jax_enable_x64``, switched on by :func:`load_jax`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from attndepth.errors import InvalidParameter, MissingExtra, Overflow
from attndepth.simulations.models.blocks import block_forward, jax_ops
from attndepth.simulations.models.stacks import (
    StackConfig,
    Trajectory,
    attention_mask,
    draw_stack,
)
from attndepth.validation import check_choice, check_int, check_size

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


def attention_block(jnp, config: StackConfig, forbidden, X, layer, index):
    """One block of ``config`` in JAX: :func:`~attndepth.simulations.models.blocks.block_forward`.

    Parameters
    ----------
    jnp : the ``jax.numpy`` module (passed, so this module never imports JAX itself).
    forbidden : (n, n) bool mask of
        :func:`attndepth.simulations.models.stacks.attention_mask`, or None.
    X : (batch, n, d) states.
    layer : dict of this block's weights — ``projections`` (…, d, 3d), ``output``
        (…, d, d), with ``config.ffn`` ``ffn_in`` / ``ffn_out``, and a sublayer's
        own — either per sequence (batch, …) or shared by the batch.
    index : the block's position, 0-based (an int or a traced integer).

    Returns
    -------
    (batch, n, d): the block's output, as :func:`attndepth.simulations.models.stacks.iterate_stack`.
    """
    return block_forward(jax_ops(jnp), config, forbidden, X, layer, index)[0]


@lru_cache(maxsize=32)
def _compiled(config: StackConfig):
    """A jitted function (weights dict of (batch, depth, ...) arrays, X0) -> states
    (depth + 1, batch, n, d), one per config (JAX compiles it again for new array shapes)."""
    jax = load_jax()
    jnp = jax.numpy
    mask = attention_mask(config.tokens, config.causal, config.window)
    forbidden = None if mask is None else jnp.asarray(mask)

    def run(layers, X0):
        def step(X, index):
            # block `index`'s weights, sliced on the device from the (batch, depth, ...)
            # arrays as drawn: no host copy moves the layer axis first
            layer = {name: jax.lax.dynamic_index_in_dim(array, index, axis=1, keepdims=False)
                     for name, array in layers.items()}
            Y = attention_block(jnp, config, forbidden, X, layer, index)
            return Y, Y

        _, states = jax.lax.scan(step, X0, jnp.arange(config.depth))
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
    arrays = {"projections": weights.projections, "output": weights.output, **weights.extra}
    if config.ffn:
        arrays.update(ffn_in=weights.ffn_in, ffn_out=weights.ffn_out)
    # (batch, depth, ...) as drawn; each block's (batch, ...) slice meets X (batch, n, d)
    layers = {name: jax.device_put(np.asarray(array[:, :config.depth], dtype=dtype), target)
              for name, array in arrays.items()}
    states = _compiled(config)(layers, jax.device_put(X0, target))
    return np.asarray(states)


def run_stack(config: StackConfig, batch: int, seed: int, device_name: str = "cpu"
              ) -> Trajectory:
    """:func:`~attndepth.simulations.models.stacks.run_stack` on JAX: the same draws and states.

    On the named device ("cpu" or "gpu"); the attention matrices are not kept
    (``Trajectory.attention`` is None).
    """
    batch = check_int("batch", batch, minimum=1)
    if config.sampling == "law":
        raise InvalidParameter("the JAX backend runs drawn weights; sampling='law' runs on "
                               "NumPy only (backend numpy)")
    check_size("the trajectory", (config.depth + 1) * batch * config.tokens * config.width)
    weights, X0 = draw_stack(config, batch, seed)
    states = stack_states(config, weights, X0, device_name)
    if not np.all(np.isfinite(states)):
        raise Overflow(f"{config.variant} states overflowed {config.dtype}; use fewer layers "
                       f"or smaller inputs")
    return Trajectory(states=states, attention=None, config=config, seed=seed)
