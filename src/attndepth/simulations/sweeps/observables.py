"""What a sweep can record: named observables and their typed parameters.

An *observable* is a module-level function ``f(seed=..., **params) -> dict``
of JSON-serialisable numbers (one store row per call); a spec names it with
its ``measurement`` key. Built in here: ``similarity`` (t_sim and log-odds
per layer of softmax stacks) and ``train`` (one training run of
:mod:`attndepth.simulations.training.jax_model` on associative recall: its curves and
final numbers; needs the ``train`` extra in the workers). ``seprank``
(certified separation rank with every bound) needs the theory's bounds and
is registered by the front door,
:mod:`attndepth.rank.measure`; ``claim`` (one family member of a claim) by
:mod:`attndepth.framework.search`. Each point records the module that registers its
observable, so dask workers import it themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.settings import configure, settings_of


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


def parameters_from(cls: type, names: Sequence[str], *, required: Sequence[str] = (),
                    defaults: Mapping[str, Any] | None = None) -> dict[str, Parameter]:
    """Sweep parameters from the settings of a configuration dataclass
    (:mod:`attndepth.simulations.settings`): their types and defaults, never restated.

    Parameters
    ----------
    cls : a configuration dataclass with described fields.
    names : the settings the observable takes.
    required : settings a spec must give although the dataclass has a default.
    defaults : the observable's own defaults where they differ from the dataclass's.

    Returns
    -------
    dict
        Name → :class:`Parameter` (default None: required).
    """
    defaults = defaults or {}
    parameters = {}
    for name, setting in settings_of(cls, names).items():
        if setting.optional:
            raise TypeError(f"{cls.__name__}.{name} may be None, which a sweep parameter "
                            f"cannot express")
        default = None if name in required or setting.required else \
            defaults.get(name, setting.default)
        parameters[name] = Parameter(setting.kind, default)
    return parameters


def _known(observable: str, settings: Mapping[str, Any], allowed: Sequence[str]) -> None:
    """Refuse keyword arguments an observable does not take (a typo is not a default)."""
    unknown = sorted(set(settings) - set(allowed))
    if unknown:
        raise InvalidParameter(f"{observable} takes no parameter(s) {', '.join(unknown)} "
                               f"(known: {', '.join(allowed)})")


#: The StackConfig settings of the ``similarity`` observable.
SIMILARITY_SETTINGS: tuple[str, ...] = ("variant", "depth", "tokens", "width", "heads", "tau",
                                        "temperature", "dtype")


def observe_similarity(seed: int, batch: int = 4, **settings: Any) -> dict[str, Any]:
    """Median t_sim and log-odds per layer of a batch of ``batch`` softmax stacks.

    Parameters
    ----------
    seed : the stacks' base seed.
    batch : stacks per point.
    **settings : the :data:`SIMILARITY_SETTINGS` of
        :class:`~attndepth.simulations.models.stacks.StackConfig`.

    Returns
    -------
    dict
        ``t_sim_final``, ``log_odds_final`` and the per-layer lists ``t_sim``, ``log_odds``
        (length depth + 1).
    """
    from attndepth.simulations.measures.similarity import similarity_and_log_odds
    from attndepth.simulations.models.stacks import StackConfig, run_stack

    _known("similarity", settings, SIMILARITY_SETTINGS)
    states = run_stack(configure(StackConfig, settings), batch, seed).states
    similarity, odds = (np.median(part, axis=1) for part in similarity_and_log_odds(states))
    return {"t_sim_final": float(similarity[-1]), "log_odds_final": float(odds[-1]),
            "t_sim": similarity.tolist(), "log_odds": odds.tolist()}


def _similarity_parameters() -> dict[str, Parameter]:
    from attndepth.simulations.models.stacks import StackConfig

    return {**parameters_from(StackConfig, SIMILARITY_SETTINGS,
                              required=("variant", "depth", "tokens", "width")),
            "batch": Parameter(int, 4)}


register_observable("similarity", observe_similarity, _similarity_parameters())

#: The StackConfig settings of the ``train`` observable and command (the JAX model has the
#: plain blocks), and its TrainingSettings.
TRAIN_STACK_SETTINGS: tuple[str, ...] = ("variant", "depth", "width", "heads", "tau", "ffn")
TRAIN_SETTINGS: tuple[str, ...] = ("steps", "batch", "learning_rate", "warmup",
                                   "evaluate_every", "evaluation_size")


def observe_training(seed: int, budget: int = 0, pairs: int = 4,
                     checkpoint: str | None = None, **settings: Any) -> dict[str, Any]:
    """Train one model on associative recall and return its curves and final numbers.

    Parameters
    ----------
    seed : seed of the weights and the data.
    budget : non-embedding parameters 12·L·d² (Experiment B), or 0. Give ``width`` or
        ``budget``: the width is then the multiple of ``heads`` nearest √(budget/(12·L)).
    pairs : key-value pairs of the task (:meth:`RecallTask.standard`).
    checkpoint : where the run saves itself and resumes (from the sweep).
    **settings : the :data:`TRAIN_STACK_SETTINGS` of
        :class:`~attndepth.simulations.models.stacks.StackConfig` (``width`` 0 with a
        budget) and the :data:`TRAIN_SETTINGS` of
        :class:`~attndepth.simulations.training.settings.TrainingSettings`.

    Returns
    -------
    dict
        Losses, accuracy and t_sim of every layer at every evaluation, and the final
        numbers (``validation_loss_final``, ``validation_accuracy_final``,
        ``t_sim_final``, ``width``, ``steps``).
    """
    from attndepth.simulations.models.stacks import StackConfig
    from attndepth.simulations.training.jax_model import budget_width, train
    from attndepth.simulations.training.settings import TrainingSettings
    from attndepth.simulations.training.tasks import RecallTask

    _known("train", settings, (*TRAIN_STACK_SETTINGS, *TRAIN_SETTINGS))
    # the schema's defaults (heads 2, width 0), as a sweep fills them in, for direct calls too
    settings = {**{name: parameter.default for name, parameter in TRAINING_PARAMETERS.items()
                   if parameter.default is not None and name not in ("budget", "pairs")},
                **settings}
    width = settings["width"]
    if (width > 0) == (budget > 0):
        raise InvalidParameter(f"give exactly one of width and budget (> 0), got width={width}, "
                               f"budget={budget}")
    if budget > 0:
        width = budget_width(budget, settings["depth"], settings["heads"])
    task = RecallTask.standard(pairs)
    config = configure(StackConfig, settings, tokens=task.length, width=width)
    run = train(config, task, configure(TrainingSettings, settings), seed,
                checkpoint=checkpoint)
    return {"validation_loss_final": run.validation_loss[-1],
            "validation_accuracy_final": run.validation_accuracy[-1],
            "t_sim_final": run.similarity[-1][-1], "width": width, "steps": run.steps,
            "train_loss": run.train_loss, "validation_loss": run.validation_loss,
            "validation_accuracy": run.validation_accuracy,
            "t_sim_per_layer": run.similarity[-1], "t_sim_curves": run.similarity}


def _training_parameters() -> dict[str, Parameter]:
    from attndepth.simulations.models.stacks import StackConfig
    from attndepth.simulations.training.settings import TrainingSettings
    from attndepth.simulations.training.tasks import RecallTask

    return {**parameters_from(StackConfig, TRAIN_STACK_SETTINGS, required=("variant", "depth"),
                              defaults={"width": 0, "heads": 2}),
            "budget": Parameter(int, 0), **parameters_from(RecallTask, ("pairs",)),
            **parameters_from(TrainingSettings, TRAIN_SETTINGS)}


#: The ``train`` observable's parameters (observe_training applies their defaults).
TRAINING_PARAMETERS = _training_parameters()
register_observable("train", observe_training, TRAINING_PARAMETERS, checkpointed=True)
