"""Training cost (the train extra): steps per second against the machine's float32 GEMM,
and what the claims' process pool gains over one process.

The step's arithmetic is counted as 6 × (stack parameters) × (tokens per step):
forward 2 multiply-adds per weight and token, backward twice that (the usual
estimate; attention scores and LayerNorm are left out, so the fraction is a
lower bound of the useful work).
"""

from __future__ import annotations

import time

import numpy as np

from bench.timing import best_of


def _gemm_rate() -> float:
    """float32 GFLOP/s of a 1024² NumPy product on this machine (every BLAS thread)."""
    a = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)
    return 2 * 1024 ** 3 / best_of(lambda: a @ a, 5) / 1e9


def _setup(depth: int, width: int, steps: int):
    from attndepth.simulations.models.stacks import StackConfig
    from attndepth.simulations.training.jax_model import TrainingSettings
    from attndepth.simulations.training.tasks import RecallTask

    task = RecallTask(pairs=4, keys=16, values=16)
    config = StackConfig(variant="post-ln", depth=depth, tokens=task.length, width=width,
                         heads=2)
    settings = TrainingSettings(steps=steps, batch=64, learning_rate=3e-3,
                                evaluate_every=steps, evaluation_size=512)
    return config, task, settings


def step_rate(depth: int, width: int, steps: int = 100) -> dict:
    """ms per Adam step of post-LN on associative recall (batch 64, 9 tokens), compiled."""
    from attndepth.simulations.models import jax_stack
    from attndepth.simulations.training.jax_model import train

    shape = f"L={depth} d={width} batch 64 × 9 tokens"
    if not jax_stack.available():
        return {"shape": shape, "note": "jax not installed"}
    config, task, settings = _setup(depth, width, steps)
    train(config, task, settings, 0)  # compiles (cached for the timed runs)
    seconds = best_of(lambda: train(config, task, settings, 0), 2) / steps
    flops = 6 * depth * 4 * width ** 2 * 64 * task.length
    gemm = _gemm_rate()
    return {"shape": shape, "ms/step": 1e3 * seconds, "GFLOP/s": flops / seconds / 1e9,
            "float32 GEMM GFLOP/s": gemm, "fraction of GEMM": flops / seconds / 1e9 / gemm}


def pool_speedup(depth: int, width: int, steps: int, groups: int = 4) -> dict:
    """Wall time of ``groups`` one-seed groups on 1 worker and on 2 (spawned) workers."""
    from attndepth.simulations.models import jax_stack
    from attndepth.simulations.sweeps.training_pool import TrainingGroup, train_groups

    shape = f"{groups} runs, L={depth} d={width}, {steps} steps"
    if not jax_stack.available():
        return {"shape": shape, "note": "jax not installed"}
    config, task, settings = _setup(depth, width, steps)
    work = [TrainingGroup(config, task, settings, (seed,)) for seed in range(groups)]
    times = {}
    for workers in (1, 2):
        start = time.perf_counter()
        train_groups(work, workers=workers)
        times[workers] = time.perf_counter() - start
    return {"shape": shape, "1 worker s": times[1], "2 workers s": times[2],
            "speed-up": times[1] / times[2]}
