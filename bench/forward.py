"""Softmax stacks: forward pass vs the GEMM limit and PyTorch, before/after, float32."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info

from attndepth.simulations.measures.fitting import linear_fit
from attndepth.simulations.measures.similarity import (
    dong_residual,
    invariant_eigenspace_defects,
    log_odds,
    norm_1_inf,
    token_similarity,
)
from attndepth.simulations.models.stacks import (
    SoftmaxWeights,
    StackConfig,
    _draw_softmax_weights,
    draw_softmax_weights,
    draw_stack,
    iterate_stack,
    run_stack,
)
from bench.baselines import draw_weights_before, post_ln_stack_before, variant_stack_before
from bench.timing import best_of, interleaved


def _label(tokens: int, width: int, depth: int, batch: int) -> str:
    return f"n={tokens}, d={width}, L={depth}, {batch} seeds"


def _forward(config: StackConfig, batch: int):
    """The stack's forward pass alone (weights and inputs drawn beforehand)."""
    weights, X0 = draw_stack(config, batch, 0)

    def run():
        for _ in iterate_stack(config, weights, X0):
            pass

    return run


def stack_flops(tokens: int, width: int, depth: int, batch: int) -> int:
    """Per layer and stack: Q, K, V, O projections 4·2nd², scores 2n²d, P·V 2n²d."""
    return depth * batch * (8 * tokens * width**2 + 4 * tokens**2 * width)


def stack_vs_matmul(tokens: int, width: int, depth: int, batch: int,
                    dtype: str = "float64") -> dict:
    """Post-LN softmax stack GFLOP/s against numpy matmul on the same shapes and dtype.

    Two baselines: ``a @ w`` as a user writes it (a fresh output each call, so its
    allocation is timed too) and ``matmul(a, w, out=c)`` into a preallocated
    output (the GEMM alone: the machine's limit for these shapes).
    """
    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width, dtype=dtype)
    seconds = best_of(_forward(config, batch), 3)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((batch, tokens, width)).astype(dtype)
    w = rng.standard_normal((batch, width, width)).astype(dtype)
    c = np.empty((batch, tokens, width), dtype=dtype)
    fresh = best_of(lambda: [a @ w for _ in range(8)], 10) / 8
    preallocated = best_of(lambda: [np.matmul(a, w, out=c) for _ in range(8)], 10) / 8
    gemm = 2 * batch * tokens * width**2
    rate = stack_flops(tokens, width, depth, batch) / seconds
    return {"shape": _label(tokens, width, depth, batch), "dtype": dtype,
            "stack GFLOP/s": rate / 1e9, "a @ w GFLOP/s": gemm / fresh / 1e9,
            "ratio": rate * fresh / gemm, "GEMM-only GFLOP/s": gemm / preallocated / 1e9,
            "ratio to GEMM only": rate * preallocated / gemm}


def seeds_in_one_batch(tokens: int, width: int, depth: int, stacks: int, seeds: int,
                       variant: str = "residual", temperature: float = 10.0) -> dict:
    """A seed sample's forward passes seed by seed (``stacks`` each, as the claims run
    them) against one pass over all ``seeds · stacks`` stacks (each seed's weights drawn
    from its own streams, then concatenated): the batched pass issue #41 proposed.
    Weights and inputs are drawn beforehand; ``identical``: the batched states equal the
    per-seed states bit for bit."""
    config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=width,
                         temperature=temperature)
    drawn = [draw_stack(config, stacks, seed) for seed in range(seeds)]
    weights = SoftmaxWeights(
        **{name: np.concatenate([getattr(w, name) for w, _ in drawn])
           for name in ("projections", "output")}, ffn_in=None, ffn_out=None)
    inputs = np.concatenate([X for _, X in drawn])

    def last(w: SoftmaxWeights, X: np.ndarray) -> np.ndarray:
        *_, final = iterate_stack(config, w, X)
        return final.outputs

    def seed_by_seed() -> np.ndarray:
        return np.concatenate([last(w, X) for w, X in drawn])

    separate, together = interleaved(seed_by_seed, lambda: last(weights, inputs))
    return {"stack": f"{variant}, n={tokens}, d={width}, L={depth}, T={temperature:g}",
            "seeds × stacks": f"{seeds} × {stacks}", "seed by seed s": separate,
            "one batch s": together, "batched / seed by seed": together / separate,
            "identical": bool(np.array_equal(seed_by_seed(), last(weights, inputs)))}


def stack_before_after(tokens: int, width: int, depth: int, batch: int) -> dict:
    """Forward pass: separate Q/K/V products, mean-based LayerNorm (before) vs now."""
    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    weights, X0 = draw_stack(config, batch, 0)
    before, after = interleaved(lambda: post_ln_stack_before(config, weights, X0),
                                _forward(config, batch))
    now = run_stack(config, batch, 0).states[-1]
    difference = float(np.max(np.abs(post_ln_stack_before(config, weights, X0) - now)))
    return {"shape": _label(tokens, width, depth, batch), "before s": before, "after s": after,
            "speed-up": before / after, "max |Δ state|": difference}


def block_definition_before_after(tokens: int, width: int, depth: int, batch: int,
                                  variant: str = "post-ln", heads: int = 1,
                                  ffn: bool = False) -> dict:
    """The one block definition (blocks.block_forward, NumPy backend) against the
    variant loop it replaced, on the same weights: time and the largest state difference."""
    config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=width, heads=heads,
                         ffn=ffn, tau=0.5)
    weights, X0 = draw_stack(config, batch, 0)
    before, after = interleaved(lambda: variant_stack_before(config, weights, X0),
                                _forward(config, batch))
    now = run_stack(config, batch, 0).states[-1]
    difference = float(np.max(np.abs(variant_stack_before(config, weights, X0) - now)))
    return {"block": f"{variant}, H={heads}{', FFN' if ffn else ''}",
            "shape": _label(tokens, width, depth, batch), "variant loop s": before,
            "block definition s": after, "ratio": before / after,
            "max |Δ state|": difference}


def weights_before_after(tokens: int, width: int, depth: int, batch: int) -> dict:
    """Drawing weights: stacked temporaries (before), in place (after), and a cache hit."""
    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    before, after = interleaved(lambda: draw_weights_before(config, batch, 0),
                                lambda: _draw_softmax_weights(config, batch, 0))
    draw_softmax_weights(config, batch, 0)
    cached = best_of(lambda: draw_softmax_weights(config, batch, 0), 3)
    same = np.array_equal(draw_weights_before(config, batch, 0)[0],
                          _draw_softmax_weights(config, batch, 0).query)
    return {"weights": f"d={width}, L={depth}, {batch} seeds", "before s": before,
            "in place s": after, "speed-up": before / after, "cache hit s": cached,
            "identical numbers": same}


def law_vs_weights(variant: str, tokens: int, width: int, depth: int, batch: int,
                   seeds: int) -> dict:
    """Whole runs (draws included, caches cleared) of ``seeds`` batches of stacks, drawn
    weights against the same stacks drawn in law, alternated; and the mean final log-odds
    of each with its standard error (the same law: they agree within a few errors)."""
    from attndepth.simulations.models import stacks

    def runs(sampling: str):
        config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=width,
                             sampling=sampling)

        def run():
            stacks.WEIGHTS.clear()
            return np.concatenate([log_odds(run_stack(config, batch, seed).states[-1])
                                   for seed in range(seeds)])
        return run

    weights_run, law_run = runs("weights"), runs("law")
    drawn, in_law = interleaved(weights_run, law_run)
    a, b = weights_run(), law_run()
    error = float(np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size))
    return {"stack": f"{variant}, {_label(tokens, width, depth, batch)} × {seeds}",
            "weights s": drawn, "law s": in_law, "speed-up": drawn / in_law,
            "log-odds, weights": float(a.mean()), "log-odds, law": float(b.mean()),
            "difference / error": float(a.mean() - b.mean()) / error}


def stack_vs_torch(tokens: int, width: int, depth: int, batch: int) -> dict:
    """The same post-LN stack written plainly in PyTorch (CPU, eager), same shapes and threads.

    PyTorch is the extra ``torch`` (``pip install torch==2.13.0``, the CPU build, first);
    without it the row says so.
    """
    try:
        import torch
    except ImportError:
        return {"shape": _label(tokens, width, depth, batch), "note": "torch not installed"}

    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    weights, X0 = draw_stack(config, batch, 0)
    torch.set_num_threads(max(1, threadpool_info()[0].get("num_threads", 1)))
    tensors = [torch.tensor(w)  # copies: the drawn weights are read-only
               for w in (weights.query, weights.key, weights.value, weights.output)]
    X_torch = torch.tensor(X0)

    def torch_stack():
        X = X_torch
        with torch.no_grad():
            for layer in range(depth):
                q, k, v, o = (w[:, layer] for w in tensors)
                P = torch.softmax((X @ q) @ (X @ k).transpose(1, 2) / width**0.5, dim=-1)
                X = torch.nn.functional.layer_norm(X + (P @ (X @ v)) @ o, (width,), eps=1e-5)
        return X

    ours, theirs = interleaved(_forward(config, batch), torch_stack)
    same = np.allclose(torch_stack().numpy(), run_stack(config, batch, 0).states[-1], atol=1e-8)
    return {"shape": _label(tokens, width, depth, batch), "attndepth s": ours,
            "torch eager s": theirs, "torch / attndepth": theirs / ours, "same output": same}


def stack_vs_jax(tokens: int, width: int, depth: int, batch: int) -> dict:
    """The post-LN stack on the JAX backend (compiled once, untimed) against NumPy, float64.

    Both compute and return every state, (depth + 1, batch, n, d), from the same drawn
    weights (``attndepth.simulations.models.jax_stack``); without the train extra the row
    says so.
    """
    from attndepth.simulations.models import jax_stack

    if not jax_stack.available():
        return {"shape": _label(tokens, width, depth, batch), "note": "jax not installed"}
    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    weights, X0 = draw_stack(config, batch, 0)
    jax_states = jax_stack.stack_states(config, weights, X0)  # compiles
    reference = run_stack(config, batch, 0).states
    error = float(np.max(np.abs(jax_states - reference)) / np.max(np.abs(reference)))
    def numpy_states() -> np.ndarray:  # what jax_stack.stack_states returns: every state
        return np.stack([X0, *(record.outputs for record in iterate_stack(config, weights, X0))])

    ours, theirs = interleaved(numpy_states,
                               lambda: jax_stack.stack_states(config, weights, X0))
    ours_alone, theirs_alone = (_alone(side, tokens, width, depth, batch)
                                for side in ("numpy", "jax"))
    return {"shape": _label(tokens, width, depth, batch), "numpy s": ours, "jax s": theirs,
            "numpy / jax": ours / theirs, "numpy alone s": ours_alone,
            "jax alone s": theirs_alone, "numpy / jax alone": ours_alone / theirs_alone,
            "max rel. difference": error}


def _alone(side: str, tokens: int, width: int, depth: int, batch: int) -> float:
    """Best of 30 calls of one side of :func:`stack_vs_jax` in a fresh process, where no
    other runtime's worker threads share the cores."""
    code = (f"from bench.forward import time_side; "
            f"print(time_side({side!r}, {tokens}, {width}, {depth}, {batch}))")
    root = Path(__file__).resolve().parents[1]
    environment = {**os.environ,
                   "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=root, env=environment)
    return float(done.stdout.split()[-1])


def time_side(side: str, tokens: int, width: int, depth: int, batch: int) -> float:
    """Best of 30 calls (after one untimed: JAX compiles) of the NumPy or the JAX stack,
    each returning every state; run by :func:`_alone` in a process of its own."""
    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    weights, X0 = draw_stack(config, batch, 0)
    if side == "jax":
        from attndepth.simulations.models import jax_stack

        def run() -> object:
            return jax_stack.stack_states(config, weights, X0)
    else:
        def run() -> object:
            return np.stack([X0, *(record.outputs
                                   for record in iterate_stack(config, weights, X0))])
    run()
    return best_of(run, 30)


def float32_speed(tokens: int, width: int, depth: int, batch: int) -> dict:
    """The same stack in float64 and float32 (same draws, rounded)."""
    configs = [StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width,
                           dtype=dtype) for dtype in ("float64", "float32")]
    double, single = interleaved(_forward(configs[0], batch), _forward(configs[1], batch))
    return {"shape": _label(tokens, width, depth, batch), "float64 s": double,
            "float32 s": single, "speed-up": double / single}


def float32_tolerance(tokens: int = 32, width: int = 64, depth: int = 64,
                      batch: int = 8) -> list[dict]:
    """Where float32 stacks can stand in for float64 ones: each quantity in both precisions."""
    rows = []
    trajectories = {dtype: run_stack(StackConfig(variant="post-ln", depth=depth, tokens=tokens,
                                                 width=width, dtype=dtype),
                                     batch, 0, keep_attention=True)
                    for dtype in ("float64", "float32")}
    double, single = trajectories["float64"], trajectories["float32"]
    similarity = [np.median(token_similarity(t.states), axis=1) for t in (double, single)]
    rows.append({"quantity": "median t_sim per layer", "float64": "reference",
                 "float32": f"max |Δ| {np.max(np.abs(similarity[0] - similarity[1])):.1e}",
                 "tolerated": "yes"})
    odds = [np.median(log_odds(t.states), axis=1) for t in (double, single)]
    apart = np.flatnonzero(np.abs(odds[0] - odds[1]) > 0.1)
    first = int(apart[0]) if apart.size else None
    rows.append({"quantity": "median log-odds per layer",
                 "float64": f"reaches {odds[0].max():.1f}",
                 "float32": (f"within 0.1 up to log-odds {odds[0][first - 1]:.1f} (layer "
                             f"{first - 1}); saturates at {odds[1].max():.1f}"
                             if first else "within 0.1 at every layer"),
                 "tolerated": "below the saturation only"})
    for low, high in ((3.0, 20.0), (3.0, 50.0)):
        layers = np.flatnonzero((odds[0] >= low) & (odds[0] <= high))
        slopes = [linear_fit(layers.astype(float), o[layers]).slope for o in odds]
        rows.append({"quantity": f"post-LN slope, log-odds window [{low:g}, {high:g}]",
                     "float64": f"{slopes[0]:.4f}", "float32": f"{slopes[1]:.4f}",
                     "tolerated": "yes" if abs(slopes[1] / slopes[0] - 1) < 0.01 else "no"})
    defects = [max(invariant_eigenspace_defects(t.attention)) for t in (double, single)]
    rows.append({"quantity": "max |P1 − 1|, invariant eigenspace", "float64": f"{defects[0]:.1e}",
                 "float32": f"{defects[1]:.1e}", "tolerated": "no (rounding-level check)"})
    floors = []
    for dtype in ("float64", "float32"):
        pure = run_stack(StackConfig(variant="pure", depth=8, tokens=tokens, width=width,
                                     dtype=dtype), batch, 0)
        residual = norm_1_inf(dong_residual(pure.states))
        floors.append(float(np.median(residual[-1] / residual[0])))
    rows.append({"quantity": "Dong residual after 8 pure layers (relative)",
                 "float64": f"{floors[0]:.1e}", "float32": f"{floors[1]:.1e}",
                 "tolerated": "no (collapse runs below float32 resolution)"})
    return rows
