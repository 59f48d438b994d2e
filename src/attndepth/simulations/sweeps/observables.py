"""What a sweep can record: named observables and their typed parameters.

An *observable* is a module-level function ``f(seed=..., **params) -> dict``
of JSON-serialisable numbers (one store row per call); a spec names it with
its ``measurement`` key. Built in here: ``similarity`` (t_sim and log-odds
per layer of softmax stacks) and ``train`` (one training run of
:mod:`attndepth.simulations.models.jax_model` on associative recall: its curves and
final numbers; needs the ``train`` extra in the workers). ``seprank``
(certified separation rank with every bound) needs the theory's bounds and
is registered by the front door,
:mod:`attndepth.separation`; ``claim`` (one family member of a claim) by
:mod:`attndepth.framework.search`. Each point records the module that registers its
observable, so dask workers import it themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter


@dataclass(frozen=True)
class Parameter:
    """A measurement parameter: its Python type and default (``None`` = required)."""

    kind: type
    default: Any = None


@dataclass(frozen=True)
class Observable:
    """A sweep observable: ``f(seed=..., **params) -> dict`` of JSON-able numbers."""

    name: str
    function: Callable[..., dict[str, Any]]
    parameters: dict[str, Parameter]
    expand: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
    #: The function takes ``checkpoint=PATH`` and resumes from it (sweeps give each
    #: point a file beside the store and delete it once the row is written).
    checkpointed: bool = False

    def expand_params(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        """The points one spec combination stands for (itself, unless ``expand`` says more)."""
        return [params] if self.expand is None else self.expand(params)

    @property
    def module(self) -> str:
        """The module defining the function (imported by workers that lack it)."""
        return self.function.__module__


_OBSERVABLES: dict[str, Observable] = {}


def register_observable(name: str, function: Callable[..., dict[str, Any]],
                        parameters: dict[str, Parameter],
                        expand: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
                        checkpointed: bool = False) -> Observable:
    """Make ``function`` available to sweeps under ``name``.

    ``function`` must be importable by worker processes (a module-level
    function) and return a dict of JSON-serialisable metrics. With
    ``checkpointed`` it also takes ``checkpoint=PATH`` (a file it may write and
    resume from; a sweep keeps one per unfinished point).
    """
    observable = Observable(name, function, parameters, expand, checkpointed)
    _OBSERVABLES[name] = observable
    return observable


def observables() -> dict[str, Observable]:
    """Registered observables by name (the ``measurement`` key of a spec)."""
    return dict(_OBSERVABLES)


def observe_similarity(seed: int, variant: str, depth: int, tokens: int, width: int,
                       heads: int = 1, tau: float = 1.0, temperature: float = 1.0,
                       batch: int = 4, dtype: str = "float64") -> dict[str, Any]:
    """Median t_sim and log-odds per layer of a batch of softmax stacks (in ``dtype``)."""
    from attndepth.simulations.measures.similarity import log_odds, token_similarity
    from attndepth.simulations.models.stacks import StackConfig, run_stack

    config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=width,
                         heads=heads, tau=tau, temperature=temperature, dtype=dtype)
    states = run_stack(config, batch, seed).states
    similarity = np.median(token_similarity(states), axis=1)
    odds = np.median(log_odds(states), axis=1)
    return {"t_sim_final": float(similarity[-1]), "log_odds_final": float(odds[-1]),
            "t_sim": similarity.tolist(), "log_odds": odds.tolist()}


register_observable("similarity", observe_similarity, {
    "variant": Parameter(str), "depth": Parameter(int), "tokens": Parameter(int),
    "width": Parameter(int), "heads": Parameter(int, 1), "tau": Parameter(float, 1.0),
    "temperature": Parameter(float, 1.0), "batch": Parameter(int, 4),
    "dtype": Parameter(str, "float64"),
})


def observe_training(seed: int, variant: str, depth: int, width: int = 0, budget: int = 0,
                     heads: int = 2, tau: float = 1.0, ffn: bool = False, pairs: int = 4,
                     steps: int = 600, batch: int = 64, learning_rate: float = 3e-3,
                     warmup: int = 0, evaluate_every: int = 100, evaluation_size: int = 256,
                     checkpoint: str | None = None) -> dict[str, Any]:
    """Train one model on associative recall (pairs, 4·pairs keys, 16 values) and return
    its curves (losses, accuracy, t_sim of every layer at every evaluation) and the
    final numbers.

    Give ``width``, or ``budget`` (non-embedding parameters 12·L·d², Experiment B):
    the width is then the multiple of ``heads`` nearest √(budget/(12·depth)).
    ``checkpoint`` (from the sweep) is where the run saves itself and resumes.
    """
    from attndepth.simulations.models.jax_model import TrainingSettings, budget_width, train
    from attndepth.simulations.models.stacks import StackConfig
    from attndepth.simulations.models.tasks import RecallTask

    if (width > 0) == (budget > 0):
        raise InvalidParameter(f"give exactly one of width and budget (> 0), got width={width}, "
                               f"budget={budget}")
    if budget > 0:
        width = budget_width(budget, depth, heads)
    task = RecallTask(pairs=pairs, keys=4 * pairs, values=16)
    config = StackConfig(variant=variant, depth=depth, tokens=task.length, width=width,
                         heads=heads, tau=tau, ffn=ffn)
    run = train(config, task, TrainingSettings(steps=steps, batch=batch,
                                               learning_rate=learning_rate, warmup=warmup,
                                               evaluate_every=evaluate_every,
                                               evaluation_size=evaluation_size), seed,
                checkpoint=checkpoint)
    return {"validation_loss_final": run.validation_loss[-1],
            "validation_accuracy_final": run.validation_accuracy[-1],
            "t_sim_final": run.similarity[-1][-1], "width": width, "steps": run.steps,
            "train_loss": run.train_loss, "validation_loss": run.validation_loss,
            "validation_accuracy": run.validation_accuracy,
            "t_sim_per_layer": run.similarity[-1], "t_sim_curves": run.similarity}


register_observable("train", observe_training, {
    "variant": Parameter(str), "depth": Parameter(int), "width": Parameter(int, 0),
    "budget": Parameter(int, 0), "heads": Parameter(int, 2), "tau": Parameter(float, 1.0),
    "ffn": Parameter(bool, False), "pairs": Parameter(int, 4),
    "steps": Parameter(int, 600), "batch": Parameter(int, 64),
    "learning_rate": Parameter(float, 3e-3), "warmup": Parameter(int, 0),
    "evaluate_every": Parameter(int, 100), "evaluation_size": Parameter(int, 256),
}, checkpointed=True)
