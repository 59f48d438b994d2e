"""How a model is trained: optimiser steps, batch, learning-rate schedule, evaluations.

Kept apart from :mod:`attndepth.simulations.training.jax_model` so that the CLI and
sweeps can describe (and validate) training settings without JAX installed.
"""

from __future__ import annotations

from dataclasses import dataclass

from attndepth.simulations.settings import setting
from attndepth.validation import check_int, check_real


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

    steps: int = setting(600, description="optimiser steps (integer >= 1)", symbol="S")
    batch: int = setting(64, description="sequences per step (integer >= 1)", symbol="B")
    learning_rate: float = setting(3e-3, description="Adam's peak learning rate (number > 0)",
                                   symbol="LR")
    warmup: int = setting(0, description="steps of linear learning-rate warm-up (integer >= 0)",
                          symbol="W")
    evaluate_every: int = setting(100, description="steps between evaluations (integer >= 1)",
                                  symbol="E")
    evaluation_size: int = setting(256, description="validation sequences per evaluation "
                                                    "(integer >= 1)", symbol="V")

    def __post_init__(self) -> None:
        check_int("steps", self.steps, minimum=1)
        check_int("batch", self.batch, minimum=1)
        check_real("learning_rate", self.learning_rate, 0.0, strict_minimum=True)
        # the schedule counts steps in JAX's int32: a longer warm-up overflows it
        check_int("warmup", self.warmup, minimum=0, maximum=2**31 - 1)
        check_int("evaluate_every", self.evaluate_every, minimum=1)
        check_int("evaluation_size", self.evaluation_size, minimum=1)
