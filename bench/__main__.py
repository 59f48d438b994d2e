"""Run the benchmarks and write bench/RESULTS.md.

Every number is a ratio or a size measured in this one run on this machine;
nothing here is asserted. ``--quick`` uses smaller sizes.
"""

from __future__ import annotations

import argparse
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import flint
import numpy as np
import sympy as sp
from threadpoolctl import threadpool_info, threadpool_limits

from simulations.modular import DEFAULT_PRIME, rank_mod
from simulations.seprank import SeprankConfig, evaluate_structured, make_partition, measure_rank
from simulations.similarity import attention_spectra
from simulations.stacks import (
    StackConfig,
    draw_linear_attention_weights,
    run_stack,
)
from theory.separation_rank import separation_rank_bounds

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def best_of(function, repeats: int = 3) -> float:
    """Smallest wall time of ``repeats`` calls (the least disturbed run)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def _forward(config: StackConfig, batch: int):
    """The stack's forward pass alone (weights and inputs drawn beforehand)."""
    from simulations.stacks import draw_stack, iterate_stack

    weights, X0 = draw_stack(config, batch, 0)

    def run():
        for _ in iterate_stack(config, weights, X0):
            pass

    return run


def _draw_weights_before(config: StackConfig, batch: int, seed: int) -> list[np.ndarray]:
    """The weight drawing before optimisation: per-stack temporaries, then np.stack."""
    from simulations.seeding import WEIGHTS_STREAM, spawn_generators

    d, depth = config.width, config.depth
    draws: dict[str, list] = {k: [] for k in ("q", "k", "v", "o")}
    for rng in spawn_generators(seed, batch, WEIGHTS_STREAM):
        for name in draws:
            draws[name].append(rng.standard_normal((depth, d, d)) / np.sqrt(d))
    return [np.stack(v) for v in draws.values()]


def weights_before_after(tokens: int, width: int, depth: int, batch: int) -> dict:
    """Drawing the stack's weights: old (stack of temporaries) vs new (draw in place)."""
    from simulations.stacks import draw_softmax_weights

    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    before = best_of(lambda: _draw_weights_before(config, batch, 0), 2)
    after = best_of(lambda: draw_softmax_weights(config, batch, 0), 2)
    same = np.array_equal(_draw_weights_before(config, batch, 0)[0],
                          draw_softmax_weights(config, batch, 0).query)
    return {"weights": f"d={width}, L={depth}, {batch} seeds", "before s": before,
            "after s": after, "speed-up": before / after, "identical numbers": same}


def stack_vs_matmul(tokens: int, width: int, depth: int, batch: int) -> dict:
    """Post-LN softmax stack (forward pass) GFLOP/s against numpy matmul on the same shapes."""
    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    seconds = best_of(_forward(config, batch), 2)
    # per layer and stack: Q, K, V, O projections 4·2nd², scores 2n²d, P·V 2n²d
    flops = depth * batch * (8 * tokens * width**2 + 4 * tokens**2 * width)
    a = np.random.default_rng(0).standard_normal((batch, tokens, width))
    w = np.random.default_rng(1).standard_normal((batch, width, width))
    matmul = best_of(lambda: [a @ w for _ in range(8)], 3) / 8
    matmul_rate = 2 * batch * tokens * width**2 / matmul
    rate = flops / seconds
    return {"shape": f"n={tokens}, d={width}, L={depth}, {batch} seeds",
            "stack GFLOP/s": rate / 1e9, "matmul GFLOP/s": matmul_rate / 1e9,
            "ratio": rate / matmul_rate}


def stack_vs_torch(tokens: int, width: int, depth: int, batch: int) -> dict:
    """The same post-LN stack written plainly in PyTorch (CPU, eager), same shapes and threads.

    PyTorch is a benchmark-only tool: ``pip install torch==2.13.0``; without it the row says so.
    """
    try:
        import torch
    except ImportError:
        return {"shape": f"n={tokens}, d={width}", "note": "torch not installed"}
    from simulations.stacks import draw_stack

    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=width)
    weights, X0 = draw_stack(config, batch, 0)
    torch.set_num_threads(max(1, threadpool_info()[0].get("num_threads", 1)))
    tensors = [torch.from_numpy(w) for w in (weights.query, weights.key, weights.value,
                                              weights.output)]
    X_torch = torch.from_numpy(X0)

    def torch_stack():
        X = X_torch
        with torch.no_grad():
            for layer in range(depth):
                q, k, v, o = (w[:, layer] for w in tensors)
                P = torch.softmax((X @ q) @ (X @ k).transpose(1, 2) / width**0.5, dim=-1)
                X = torch.nn.functional.layer_norm(X + (P @ (X @ v)) @ o, (width,), eps=1e-5)
        return X

    ours = best_of(_forward(config, batch), 2)
    theirs = best_of(torch_stack, 2)
    same = np.allclose(torch_stack().numpy(), run_stack(config, batch, 0).states[-1], atol=1e-8)
    return {"shape": f"n={tokens}, d={width}, L={depth}, {batch} seeds", "attndepth s": ours,
            "torch eager s": theirs, "torch / attndepth": theirs / ours, "same output": same}


def exact_rank_overhead(width: int, depth: int, tokens: int) -> dict:
    """Certified pipeline vs raw flint rank of the same matrix; evaluation vs rank time."""
    bounds = separation_rank_bounds(width, depth, (tokens + 1) // 2, tokens // 2)
    config = SeprankConfig(width=width, depth=depth, tokens=tokens)
    size = bounds.best + 8
    start = time.perf_counter()
    certificate = measure_rank(config, 0, rank_cap=bounds.best, start_points=size)
    pipeline = time.perf_counter() - start
    weights = draw_linear_attention_weights(width, depth, 1, 0, 1, 0, prime=DEFAULT_PRIME)
    rng = np.random.default_rng(0)
    split = make_partition("balanced", tokens)
    XP = rng.integers(0, DEFAULT_PRIME, (size, len(split.p_positions), width))
    XQ = rng.integers(0, DEFAULT_PRIME, (size, len(split.q_positions), width))
    F = evaluate_structured(weights, split, XP, XQ, 0)
    raw = best_of(lambda: flint.nmod_mat(F.tolist(), DEFAULT_PRIME).rank(), 1)
    return {"config": f"d={width}, L={depth}, N={tokens}", "rank": certificate.rank,
            "grid": size, "pipeline s": pipeline, "evaluation s": certificate.eval_seconds,
            "rank s": certificate.rank_seconds, "raw flint rank s": raw,
            "rank step / raw": certificate.rank_seconds / raw,
            "pipeline / raw rank": pipeline / raw}


def sympy_speedup() -> dict:
    """flint nmod_mat rank vs sympy Matrix.rank on one small evaluation matrix."""
    rng = np.random.default_rng(0)
    F = rng.integers(0, 101, (40, 12)) @ rng.integers(0, 101, (12, 40))
    flint_seconds = best_of(lambda: rank_mod(F % DEFAULT_PRIME, DEFAULT_PRIME), 3)
    sympy_seconds = best_of(lambda: sp.Matrix(F.tolist()).rank(), 1)
    return {"matrix": "40 x 40, rank 12", "flint s": flint_seconds, "sympy s": sympy_seconds,
            "speed-up": sympy_seconds / flint_seconds}


def spectra_threads(tokens: int, depth: int, batch: int) -> dict:
    """Per-layer |λ₂|, σ₂ for a whole stack with 1 thread vs the default."""
    config = StackConfig(variant="post-ln", depth=depth, tokens=tokens, width=64)
    P = run_stack(config, batch, 0, keep_attention=True).attention
    with threadpool_limits(limits=None):
        compressed = P - P.mean(axis=-2, keepdims=True)

        def default_threads():
            np.linalg.eigvals(P)
            np.linalg.svd(compressed, compute_uv=False)

        default = best_of(default_threads, 2)
    single = best_of(lambda: attention_spectra(P), 2)
    return {"stack": f"n={tokens}, L={depth}, {batch} seeds", "default threads s": default,
            "attention_spectra (1 thread) s": single, "speed-up": default / single}


def largest_certified(limit_seconds: float) -> dict:
    """Largest certified rank among d ≤ 4, L ≤ 3, N ≤ 6 configurations within the limit."""
    best = None
    for width, depth, tokens in [(2, 3, 2), (3, 3, 2), (2, 3, 4), (3, 2, 6), (2, 4, 2),
                                 (3, 3, 4), (3, 3, 6), (4, 2, 8), (4, 3, 2)]:
        bounds = separation_rank_bounds(width, depth, (tokens + 1) // 2, tokens // 2)
        if bounds.best > 4000:
            continue
        start = time.perf_counter()
        certificate = measure_rank(SeprankConfig(width=width, depth=depth, tokens=tokens), 0,
                                   rank_cap=bounds.best, start_points=bounds.best + 8)
        seconds = time.perf_counter() - start
        if seconds <= limit_seconds and (best is None or certificate.rank > best["rank"]):
            best = {"config": f"d={width}, L={depth}, N={tokens}", "rank": certificate.rank,
                    "seconds": seconds, "evaluation s": certificate.eval_seconds,
                    "rank s": certificate.rank_seconds, "reason": certificate.reason}
    return best or {}


def verify_quick() -> dict:
    """Wall time and peak memory (max RSS) of ``attndepth verify --preset quick``, run as
    the first child of this process so no other child's peak is mixed in."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "attndepth.cli", "verify"], check=False,
                   capture_output=True)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"wall s": wall, "peak MiB": peak, "target s": 60}


def sweep_workers(quick: bool) -> dict:
    """Wall time of one similarity sweep with 1 and 2 local workers (fresh stores)."""
    import tempfile

    from simulations.sweep import parse_spec, run_sweep

    count = 4 if quick else 8
    spec = parse_spec({"measurement": "similarity", "seeds": {"base": 0, "count": count},
                       "grid": {"depth": [32, 64]},
                       "fixed": {"variant": "post-ln", "tokens": 32, "width": 64, "batch": 8}})
    times = {}
    with tempfile.TemporaryDirectory() as folder:
        for workers in (1, 2):
            start = time.perf_counter()
            run_sweep(spec, Path(folder) / f"w{workers}.sqlite", "local", workers, False)
            times[workers] = time.perf_counter() - start
    return {"points": len(spec.points), "1 worker s": times[1], "2 workers s": times[2],
            "speed-up": times[1] / times[2]}


def table(title: str, rows: list[dict]) -> str:
    if not rows:
        return f"## {title}\n\n(no result)\n"
    keys = list(rows[0])
    lines = [f"## {title}", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v)
                                       for v in row.values()) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    blas = [f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads, "
            f"{i.get('architecture')})" for i in threadpool_info() if i.get("user_api") == "blas"]
    sections = [
        "# Benchmarks\n",
        f"Machine: {platform.processor() or platform.machine()}, "
        f"{__import__('os').cpu_count()} cores; numpy {np.__version__}; BLAS: "
        f"{'; '.join(blas)}. Generated by `python -m bench{' --quick' if args.quick else ''}`.\n",
    ]
    # First, before this process holds large arrays that forked workers would inherit.
    verify = verify_quick()
    stack_shapes = [(16, 32, 16, 8)] if args.quick else [(256, 128, 64, 8), (16, 32, 64, 8)]
    sections.append(table("Softmax post-LN stack vs numpy matmul (same shapes, same run)",
                          [stack_vs_matmul(*s) for s in stack_shapes]))
    sections.append(table("Optimisation: drawing weights in place (before/after, same run)",
                          [weights_before_after(*s) for s in stack_shapes]))
    sections.append(table("Softmax post-LN stack vs PyTorch CPU eager (same shapes, threads, run)",
                          [stack_vs_torch(*s) for s in stack_shapes]))
    rank_cases = [(2, 3, 2)] if args.quick else [(2, 3, 2), (3, 3, 2), (3, 3, 6)]
    sections.append(table("Certified exact rank vs raw flint rank",
                          [exact_rank_overhead(*c) for c in rank_cases]))
    sections.append(table("flint vs sympy rank", [sympy_speedup()]))
    sections.append(table("Attention spectra: single-threaded vs default BLAS threads",
                          [spectra_threads(16 if args.quick else 32, 16 if args.quick else 64,
                                           8)]))
    sections.append(table("Largest certified separation rank within 60 s",
                          [largest_certified(60.0)]))
    sections.append(table("Sweep: 1 vs 2 local workers", [sweep_workers(args.quick)]))
    sections.append(table("attndepth verify --preset quick", [verify]))
    RESULTS.write_text("\n".join(sections))
    print(RESULTS.read_text())


if __name__ == "__main__":
    main()
