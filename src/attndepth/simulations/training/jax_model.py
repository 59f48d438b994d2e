"""A trainable stack: embeddings, the JAX blocks of :mod:`.jax_stack`, an output head.

The model reads a token sequence, embeds it (token plus position embedding,
scaled to unit variance per coordinate, the input scale of the random
stacks), runs the attention stack of a :class:`StackConfig` with weights
shared across the batch, and predicts a token from the last position's final
state. Training minimises the softmax cross-entropy with Adam (optax), with
or without a linear learning-rate warm-up; everything is seeded, and a run is
reproduced exactly on the CPU from its seed.

The stack's weights start as :func:`attndepth.simulations.models.stacks.draw_softmax_weights`
draws (the random stacks' initialisation), and trained weights go back to
NumPy with :func:`numpy_weights`: the NumPy stack then computes the same
states, so every similarity metric of :mod:`attndepth.simulations.measures.similarity`
applies to trained networks (the tests check the equality in float64).

JAX and optax come with the optional extra ``train``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from attndepth.errors import CheckpointNotSaved, InvalidParameter, MissingExtra, OutputFailed
from attndepth.simulations.checkpoints import (
    checkpoint_file,
    read_checkpoint,
    write_checkpoint,
    writer_lock,
)
from attndepth.simulations.measures.similarity import token_similarity
from attndepth.simulations.models.jax_stack import INSTALL_HINT, attention_block, load_jax
from attndepth.simulations.models.stacks import (
    SoftmaxWeights,
    StackConfig,
    attention_mask,
    draw_softmax_weights,
)
from attndepth.simulations.seeding import spawn_generators
from attndepth.simulations.training.settings import TrainingSettings
from attndepth.simulations.training.tasks import RecallTask
from attndepth.validation import check_int, check_seed, check_size

#: Seed stream of the embeddings and the output head (the stack uses the weights stream).
MODEL_STREAM = 30


def _optax():
    try:
        import optax
    except ModuleNotFoundError:
        raise MissingExtra(f"training needs optax: {INSTALL_HINT}") from None
    return optax


#: Non-embedding parameters per block and width² (4d² attention + 8d² FFN with hidden 4d;
#: Kaplan et al. 2020, Table 1), the budget convention of Experiment B.
PARAMETERS_PER_WIDTH2 = 12


def budget_width(budget: int, depth: int, multiple: int = 1) -> int:
    """The width nearest √(budget/(12·depth)) that ``multiple`` (the heads) divides.

    Raises ValueError when that width's 12·L·d² is more than 10 % from ``budget``
    (Experiment B's tolerance for a fixed budget): a grid too coarse for it.
    """
    budget = check_int("budget", budget, minimum=1)
    depth = check_int("depth", depth, minimum=1)
    multiple = check_int("multiple", multiple, minimum=1)
    exact = math.sqrt(budget / (PARAMETERS_PER_WIDTH2 * depth))
    width = max(multiple, multiple * round(exact / multiple))
    spent = PARAMETERS_PER_WIDTH2 * depth * width ** 2
    if abs(spent / budget - 1) > 0.1:
        raise InvalidParameter(f"no width divisible by {multiple} spends {budget} parameters "
                               f"within 10 % at depth {depth} (nearest {width}: {spent})")
    return width


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
    if weights.ffn_in is not None and weights.ffn_out is not None:  # config.ffn
        params["ffn_in"] = np.array(weights.ffn_in[0])
        params["ffn_out"] = np.array(weights.ffn_out[0])
    params.update({name: np.array(array[0]) for name, array in weights.extra.items()})
    return params


def _stack_names(params) -> list[str]:
    """The names of the stack's per-block parameters among ``params``."""
    return [name for name in params if name not in MODEL_PARAMETERS]


#: The model's parameters outside the blocks.
MODEL_PARAMETERS = frozenset({"embedding", "position", "head"})


def embed(params, tokens):
    """X0 = (E[tokens] + P)/√2, (batch, n, d): unit variance per coordinate at initialisation."""
    return (params["embedding"][tokens] + params["position"]) / math.sqrt(2.0)


def _states(jax, config: StackConfig, params, tokens):
    """Every state (depth + 1, batch, n, d) of the model on ``tokens``."""
    jnp = jax.numpy
    mask = attention_mask(config.tokens, config.causal, config.window)
    forbidden = None if mask is None else jnp.asarray(mask)
    X0 = embed(params, tokens)
    layers = {name: params[name] for name in _stack_names(params)}

    def step(X, scanned):
        layer, index = scanned
        Y = attention_block(jnp, config, forbidden, X, layer, index)
        return Y, Y

    _, states = jax.lax.scan(step, X0, (layers, jnp.arange(config.depth)))
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

    own = {"projections", "output", "ffn_in", "ffn_out"}
    return SoftmaxWeights(projections=tile("projections"), output=tile("output"),
                          ffn_in=tile("ffn_in"), ffn_out=tile("ffn_out"),
                          extra={name: tile(name) for name in _stack_names(params)
                                 if name not in own})


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


@functools.lru_cache(maxsize=16)
def _compiled(config: StackConfig, learning_rate: float, warmup: int):
    """The optimiser and the jitted update and evaluation of one model and schedule.

    Cached, so the seeds of one configuration compile once per process.
    """
    jax, optax = load_jax(), _optax()
    schedule = (optax.linear_schedule(0.0, learning_rate, warmup) if warmup else learning_rate)
    optimiser = optax.adam(schedule)

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

    return optimiser, update, jax.jit(loss_and_states)


def _run_identity(run: TrainingRun) -> str:
    """What a checkpoint must match to resume ``run``: configuration, task, settings, seed."""
    return json.dumps({"config": run.config.as_dict(), "task": vars(run.task),
                       "settings": vars(run.settings), "seed": run.seed}, sort_keys=True)


def _save_checkpoint(path: Path, run: TrainingRun, params, state) -> None:
    """Write the run so far (curves, parameters, optimiser state) atomically to ``path``."""
    jax = load_jax()
    leaves = jax.tree_util.tree_leaves(state)
    curves = {"steps": run.steps, "train_loss": run.train_loss,
              "validation_loss": run.validation_loss,
              "validation_accuracy": run.validation_accuracy, "similarity": run.similarity}
    arrays = {f"param.{k}": np.asarray(v) for k, v in params.items()}
    arrays.update({f"state.{k}": np.asarray(leaf) for k, leaf in enumerate(leaves)})
    write_checkpoint(path, _run_identity(run), json.dumps(curves), arrays)


def _save_or_stop(path: Path, run: TrainingRun, params, state, final: bool) -> None:
    """Save the run; a save that fails stops it at its last good checkpoint
    (:class:`~attndepth.errors.OutputFailed`, CLI exit 3), except the last one, after
    which the finished run is returned with a
    :class:`~attndepth.errors.CheckpointNotSaved` warning."""
    try:
        _save_checkpoint(path, run, params, state)
    except OutputFailed as error:
        if final:
            warnings.warn(f"{error}: training is complete and its run is returned, but a "
                          f"rerun will not find it saved", CheckpointNotSaved, stacklevel=2)
            return
        kept = (f"the checkpoint of step {run.steps[-2]} is kept" if len(run.steps) > 1
                else "no step was saved yet")
        raise type(error)(f"{error}: training stopped at step {run.steps[-1]}; {kept}, and "
                          f"the same command continues once the file can be written") \
            from error


def _load_checkpoint(path: Path, run: TrainingRun, params, state):
    """Restore ``run``, the parameters and the optimiser state from ``path``.

    Returns ``(params, state)`` or None when there is nothing usable: no file,
    or an unreadable one (a warning; the run starts over and recomputes the
    same numbers; :func:`attndepth.simulations.checkpoints.read_checkpoint`). A
    readable checkpoint of another run is a ValueError.
    """
    jax = load_jax()
    saved = read_checkpoint(path, "training")
    if saved is None:
        return None
    if saved.identity != _run_identity(run):
        raise InvalidParameter(f"checkpoint {path} belongs to another run (configuration, task, "
                               f"settings or seed differ); give another path or delete it")
    leaves, tree = jax.tree_util.tree_flatten(state)
    expected = {**{f"param.{k}": v for k, v in params.items()},
                **{f"state.{k}": v for k, v in enumerate(leaves)}}
    wrong = sorted(set(saved.arrays) ^ set(expected)) or [
        name for name, value in saved.arrays.items()
        if value.shape != tuple(np.shape(expected[name]))
        or value.dtype != np.asarray(expected[name]).dtype]
    if wrong:  # the same run, saved by a toolkit whose model differed
        warnings.warn(f"checkpoint {path} holds arrays of the wrong shape or dtype, or "
                      f"other arrays, for this model ({', '.join(wrong[:3])}); training "
                      f"starts over", stacklevel=2)
        return None
    curves = json.loads(saved.state)
    loaded = {k: saved.arrays[f"param.{k}"] for k in params}
    restored = [saved.arrays[f"state.{k}"] for k in range(len(leaves))]
    run.steps, run.train_loss = curves["steps"], curves["train_loss"]
    run.validation_loss = curves["validation_loss"]
    run.validation_accuracy = curves["validation_accuracy"]
    run.similarity = curves["similarity"]
    jnp = jax.numpy
    return ({k: jnp.asarray(v) for k, v in loaded.items()},
            jax.tree_util.tree_unflatten(tree, [jnp.asarray(v) for v in restored]))


def train(config: StackConfig, task: RecallTask, settings: TrainingSettings, seed: int,
          checkpoint: str | Path | None = None, progress: bool = False) -> TrainingRun:
    """Train a model of ``config`` on ``task`` (float32) and record its curves.

    ``config.tokens`` must equal the task's sequence length. t_sim per layer is
    the median over the validation batch of
    :func:`~attndepth.simulations.measures.similarity.token_similarity`.

    Parameters
    ----------
    checkpoint : path, optional
        Where the run is saved at every evaluation (curves, parameters, Adam's
        state; written to a temporary file and renamed, so a kill never leaves
        half a file). If it already holds this run (same configuration, task,
        settings and seed), training resumes after its last evaluation and
        ends with exactly the numbers of an uninterrupted run (CPU); a
        checkpoint of another run, or a file that is not a checkpoint, is
        refused (ValueError) before anything is computed. A save that fails
        stops the run at its last good checkpoint (OutputFailed); a failed
        last save returns the finished run with a CheckpointNotSaved warning.
    progress : bool
        Show a tqdm bar of the steps on stderr.
    """
    jax = load_jax()
    jnp = jax.numpy
    if config.tokens != task.length:
        raise InvalidParameter(f"config.tokens must be the task's length {task.length}, got "
                               f"{config.tokens}")
    config = replace(config, dtype="float32")
    seed = check_seed("seed", seed)
    # what the run holds at once, refused before anything is compiled: the training and
    # validation draws (tasks.RecallTask.sample) and the embedding
    per_sequence = 2 * task.keys + task.pairs + task.length
    check_size("the training draw (steps × batch sequences)",
               settings.steps * settings.batch * per_sequence)
    check_size("the validation draw", settings.evaluation_size * per_sequence)
    check_size("the embedding (vocabulary × width)", task.vocabulary * config.width)
    # refuses, before anything is compiled, a path holding anything but a checkpoint
    path = None if checkpoint is None else checkpoint_file(checkpoint).path
    optimiser, update, evaluate = _compiled(config, settings.learning_rate, settings.warmup)
    params = {k: jnp.asarray(v, dtype=jnp.float32)
              for k, v in init_params(config, task.vocabulary, seed).items()}
    state = optimiser.init(params)
    run = TrainingRun(config=config, task=task, settings=settings, seed=seed)
    with writer_lock(path, "training") if path is not None else contextlib.nullcontext():
        return _train_steps(run, params, state, path, update, evaluate, progress)


def _train_steps(run: TrainingRun, params, state, path: Path | None, update, evaluate,
                 progress: bool) -> TrainingRun:
    """The training loop of :func:`train` (resumed from ``path`` when it holds the run)."""
    config, task, settings, seed = run.config, run.task, run.settings, run.seed
    if path is not None:
        resumed = _load_checkpoint(path, run, params, state)
        if resumed is not None:
            params, state = resumed
    val_tokens, val_targets = task.sample(settings.evaluation_size, seed, "validation")
    train_tokens, train_targets = task.sample(settings.steps * settings.batch, seed, "train")
    first = run.steps[-1] + 1 if run.steps else 1
    steps = tqdm(range(first, settings.steps + 1), initial=first - 1, total=settings.steps,
                 desc=f"{config.variant} L={config.depth} d={config.width}", unit="step",
                 disable=not progress, leave=False)
    for step in steps:
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
            if path is not None:
                _save_or_stop(path, run, params, state, final=step == settings.steps)
    run.params = {k: np.asarray(v) for k, v in params.items()}
    return run
