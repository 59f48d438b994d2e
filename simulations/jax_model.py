"""A trainable stack: embeddings, the JAX blocks of :mod:`.jax_stack`, an output head.

The model reads a token sequence, embeds it (token plus position embedding,
scaled to unit variance per coordinate, the input scale of the random
stacks), runs the attention stack of a :class:`StackConfig` with weights
shared across the batch, and predicts a token from the last position's final
state. Training minimises the softmax cross-entropy with Adam (optax), with
or without a linear learning-rate warm-up; everything is seeded, and a run is
reproduced exactly on the CPU from its seed.

The stack's weights start as :func:`attndepth.simulations.stacks.draw_softmax_weights`
draws (the random stacks' initialisation), and trained weights go back to
NumPy with :func:`numpy_weights`: the NumPy stack then computes the same
states, so every similarity metric of :mod:`attndepth.simulations.similarity`
applies to trained networks (the tests check the equality in float64).

JAX and optax come with the optional extra ``train``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from attndepth.simulations.jax_stack import INSTALL_HINT, attention_block, load_jax
from attndepth.simulations.seeding import spawn_generators
from attndepth.simulations.similarity import token_similarity
from attndepth.simulations.stacks import (
    SoftmaxWeights,
    StackConfig,
    attention_mask,
    draw_softmax_weights,
)
from attndepth.simulations.tasks import RecallTask
from attndepth.simulations.validation import check_int, check_real, check_seed

#: Seed stream of the embeddings and the output head (the stack uses the weights stream).
MODEL_STREAM = 30


def _optax():
    try:
        import optax
    except ModuleNotFoundError:
        raise ModuleNotFoundError(f"training needs optax: {INSTALL_HINT}") from None
    return optax


def init_params(config: StackConfig, vocabulary: int, seed: int) -> dict[str, np.ndarray]:
    """Initial parameters (float64 NumPy arrays).

    embedding (V, d) and position (n, d): N(0, 1); the stack: the random stacks'
    draw for stack 0 of ``seed``; head (d, V): N(0, 1/d).
    """
    vocabulary = check_int("vocabulary", vocabulary, minimum=2)
    weights = draw_softmax_weights(config, 1, check_seed("seed", seed))
    rng = spawn_generators(seed, 1, MODEL_STREAM)[0]
    d = config.width
    params = {"embedding": rng.standard_normal((vocabulary, d)),
              "position": rng.standard_normal((config.tokens, d)),
              "head": rng.standard_normal((d, vocabulary)) / math.sqrt(d),
              "projections": np.array(weights.projections[0]),
              "output": np.array(weights.output[0])}
    if config.ffn:
        params["ffn_in"] = np.array(weights.ffn_in[0])
        params["ffn_out"] = np.array(weights.ffn_out[0])
    return params


def embed(params, tokens):
    """X0 = (E[tokens] + P)/√2, (batch, n, d): unit variance per coordinate at initialisation."""
    return (params["embedding"][tokens] + params["position"]) / math.sqrt(2.0)


def _states(jax, config: StackConfig, params, tokens):
    """Every state (depth + 1, batch, n, d) of the model on ``tokens``."""
    jnp = jax.numpy
    mask = attention_mask(config.tokens, config.causal, config.window)
    forbidden = None if mask is None else jnp.asarray(mask)
    X0 = embed(params, tokens)
    layers = {name: params[name] for name in ("projections", "output", "ffn_in", "ffn_out")
              if name in params}

    def step(X, layer):
        Y = attention_block(jnp, config, forbidden, X, layer)
        return Y, Y

    _, states = jax.lax.scan(step, X0, layers)
    return jnp.concatenate([X0[None], states], axis=0)


def model_states(config: StackConfig, params, tokens: np.ndarray) -> np.ndarray:
    """States of the model on ``tokens`` as a NumPy array (depth + 1, batch, n, d)."""
    jax = load_jax()
    cast = {k: np.asarray(v, dtype=config.dtype) for k, v in params.items()}
    return np.asarray(jax.jit(lambda p, t: _states(jax, config, p, t))(cast, tokens))


def numpy_weights(params, batch: int) -> SoftmaxWeights:
    """The trained stack weights for the NumPy stack, the same for each of ``batch`` sequences."""
    batch = check_int("batch", batch, minimum=1)

    def tile(name):
        if name not in params:
            return None
        array = np.asarray(params[name], dtype=np.float64)
        return np.ascontiguousarray(np.broadcast_to(array, (batch,) + array.shape))

    return SoftmaxWeights(projections=tile("projections"), output=tile("output"),
                          ffn_in=tile("ffn_in"), ffn_out=tile("ffn_out"))


@dataclass(frozen=True)
class TrainingSettings:
    """How a model is trained.

    Attributes
    ----------
    steps : optimiser steps.
    batch : sequences per step.
    learning_rate : Adam's peak learning rate.
    warmup : steps of linear warm-up from 0 (0: none).
    evaluate_every : steps between evaluations (and at the last step).
    evaluation_size : validation sequences per evaluation.
    """

    steps: int = 200
    batch: int = 64
    learning_rate: float = 1e-3
    warmup: int = 0
    evaluate_every: int = 50
    evaluation_size: int = 256

    def __post_init__(self) -> None:
        check_int("steps", self.steps, minimum=1)
        check_int("batch", self.batch, minimum=1)
        check_real("learning_rate", self.learning_rate, 0.0, strict_minimum=True)
        check_int("warmup", self.warmup, minimum=0)
        check_int("evaluate_every", self.evaluate_every, minimum=1)
        check_int("evaluation_size", self.evaluation_size, minimum=1)


@dataclass
class TrainingRun:
    """A run's record: at each evaluated step, the losses, accuracy and t_sim per layer."""

    config: StackConfig
    task: RecallTask
    settings: TrainingSettings
    seed: int
    steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    validation_loss: list[float] = field(default_factory=list)
    validation_accuracy: list[float] = field(default_factory=list)
    similarity: list[list[float]] = field(default_factory=list)
    params: dict | None = None

    def as_dict(self) -> dict:
        return {"config": self.config.as_dict(), "task": vars(self.task),
                "settings": vars(self.settings), "seed": self.seed, "steps": self.steps,
                "train_loss": self.train_loss, "validation_loss": self.validation_loss,
                "validation_accuracy": self.validation_accuracy,
                "t_sim_per_layer": self.similarity}


def train(config: StackConfig, task: RecallTask, settings: TrainingSettings,
          seed: int) -> TrainingRun:
    """Train a model of ``config`` on ``task`` (float32) and record its curves.

    ``config.tokens`` must equal the task's sequence length. t_sim per layer is
    the median over the validation batch of
    :func:`~attndepth.simulations.similarity.token_similarity`.
    """
    jax, optax = load_jax(), _optax()
    jnp = jax.numpy
    if config.tokens != task.length:
        raise ValueError(f"config.tokens must be the task's length {task.length}, got "
                         f"{config.tokens}")
    config = replace(config, dtype="float32")
    seed = check_seed("seed", seed)
    params = {k: jnp.asarray(v, dtype=jnp.float32)
              for k, v in init_params(config, task.vocabulary, seed).items()}
    schedule = (optax.linear_schedule(0.0, settings.learning_rate, settings.warmup)
                if settings.warmup else settings.learning_rate)
    optimiser = optax.adam(schedule)
    state = optimiser.init(params)

    def loss_and_states(p, tokens, targets):
        states = _states(jax, config, p, tokens)
        logits = states[-1, :, -1] @ p["head"]
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()
        return loss, (states, logits)

    @jax.jit
    def update(p, s, tokens, targets):
        (loss, _), grads = jax.value_and_grad(loss_and_states, has_aux=True)(p, tokens, targets)
        changes, s = optimiser.update(grads, s, p)
        return optax.apply_updates(p, changes), s, loss

    evaluate = jax.jit(loss_and_states)
    val_tokens, val_targets = task.sample(settings.evaluation_size, seed, "validation")
    train_tokens, train_targets = task.sample(settings.steps * settings.batch, seed, "train")
    run = TrainingRun(config=config, task=task, settings=settings, seed=seed)
    for step in range(1, settings.steps + 1):
        rows = slice((step - 1) * settings.batch, step * settings.batch)
        params, state, loss = update(params, state, train_tokens[rows], train_targets[rows])
        if step % settings.evaluate_every == 0 or step == settings.steps:
            val_loss, (states, logits) = evaluate(params, val_tokens, val_targets)
            run.steps.append(step)
            run.train_loss.append(float(loss))
            run.validation_loss.append(float(val_loss))
            run.validation_accuracy.append(float(np.mean(np.argmax(np.asarray(logits), 1)
                                                         == val_targets)))
            run.similarity.append(np.median(token_similarity(np.asarray(states)),
                                            axis=1).tolist())
    run.params = {k: np.asarray(v) for k, v in params.items()}
    return run
