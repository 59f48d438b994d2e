"""Certified separation rank: the pipeline vs raw FLINT and SymPy, before/after."""

from __future__ import annotations

import time

import flint
import numpy as np
import sympy as sp

from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
from attndepth.rank.arithmetic.modular_rank import matmul_residues, rank_mod
from attndepth.rank.atlas_classes import atlas_classes
from attndepth.rank.degree_blocks import (
    BLOCK_PRIME,
    DEFAULT_MARGIN,
    _resident_blocks,
    separating_scales,
)
from attndepth.rank.evaluation import grid_parts
from attndepth.rank.evaluation.grid_evaluation import (
    evaluate_structured,
    evaluate_structured_scales,
)
from attndepth.rank.evaluation.grid_parts import evaluate_structured_parts
from attndepth.rank.grids import SeparationRankConfig, rank_from_grids
from attndepth.rank.network import draw_linear_attention_weights
from attndepth.rank.partitions import make_partition
from attndepth.simulations.threads import available_cores
from attndepth.theory.separation_rank import degree_block_bounds, separation_rank_bounds
from bench.baselines import (
    block_batches_before,
    block_batches_in_memory,
    evaluate_structured_before,
    polynomial_product_before,
    rank_mod_before,
)
from bench.timing import best_of, interleaved


def _grid(width: int, depth: int, tokens: int, size: int):
    weights = draw_linear_attention_weights(width, depth, 1, 0, 1, 0, prime=DEFAULT_PRIME)
    rng = np.random.default_rng(0)
    split = make_partition("balanced", tokens)
    XP = rng.integers(0, DEFAULT_PRIME, (size, len(split.p_positions), width))
    XQ = rng.integers(0, DEFAULT_PRIME, (size, len(split.q_positions), width))
    return weights, split, XP, XQ


def exact_rank_overhead(width: int, depth: int, tokens: int) -> dict:
    """Certified pipeline vs what a user would write: ``nmod_mat(F.tolist(), p).rank()``.

    The pipeline starts at the proved grid (bound + margin), so it evaluates and
    ranks once; it evaluates and ranks on every core. The raw rank is also timed
    with FLINT on every core, the machine's own limit.
    """
    bounds = separation_rank_bounds(width, depth, (tokens + 1) // 2, tokens // 2)
    config = SeparationRankConfig(width=width, depth=depth, tokens=tokens)
    size = bounds.best + 8
    start = time.perf_counter()
    certificate = rank_from_grids(config, 0, rank_cap=bounds.best, start_points=size)
    pipeline = time.perf_counter() - start
    weights, split, XP, XQ = _grid(width, depth, tokens, size)
    F = evaluate_structured(weights, split, XP, XQ, 0)
    raw = best_of(lambda: flint.nmod_mat(F.tolist(), DEFAULT_PRIME).rank(), 1)
    previous, flint.ctx.threads = flint.ctx.threads, available_cores()
    try:
        raw_all_cores = best_of(lambda: flint.nmod_mat(F.tolist(), DEFAULT_PRIME).rank(), 1)
    finally:
        flint.ctx.threads = previous
    return {"config": f"d={width}, L={depth}, N={tokens}", "rank": certificate.rank,
            "grid": size, "pipeline s": pipeline, "evaluation s": certificate.eval_seconds,
            "rank s": certificate.rank_seconds, "raw flint rank s": raw,
            "pipeline / raw rank": pipeline / raw,
            "raw, all cores s": raw_all_cores, "pipeline / raw all cores": pipeline / raw_all_cores}


def evaluation_before_after(width: int, depth: int, tokens: int, size: int) -> dict:
    """The exact evaluator on a size × size grid: before (int64 limbs, whole T_{L−1}) vs now."""
    weights, split, XP, XQ = _grid(width, depth, tokens, size)
    before, after = interleaved(lambda: evaluate_structured_before(weights, split, XP, XQ, 0),
                                lambda: evaluate_structured(weights, split, XP, XQ, 0), 2)
    same = np.array_equal(evaluate_structured_before(weights, split, XP, XQ, 0),
                          evaluate_structured(weights, split, XP, XQ, 0))
    return {"config": f"d={width}, L={depth}, N={tokens}", "pairs": size * size,
            "before s": before, "after s": after, "speed-up": before / after,
            "identical matrix": same}


def scales_before_after(width: int, depth: int, tokens: int, rows: int, columns: int) -> dict:
    """The K + 1 scaled evaluations of the degree blocks: one call per scale (before) vs
    every scale at once (the first layer as a cubic in s, the last in vector form)."""
    weights = draw_linear_attention_weights(width, depth, 1, 0, 1, 0, prime=BLOCK_PRIME)
    split = make_partition("balanced", tokens)
    rng = np.random.default_rng(0)
    XP = rng.integers(0, BLOCK_PRIME, (rows, len(split.p_positions), width))
    XQ = rng.integers(0, BLOCK_PRIME, (columns, len(split.q_positions), width))
    scales, _ = separating_scales((3 ** depth - 1) // 2, BLOCK_PRIME)

    def one_per_scale():
        return np.stack([evaluate_structured(weights, split, XP, XQ * t % BLOCK_PRIME, 0)
                         for t in scales], axis=-1)

    def together():
        return evaluate_structured_scales(weights, split, XP, XQ, 0, scales)

    before, after = interleaved(one_per_scale, together, 2)
    evaluations = rows * columns * len(scales)
    return {"config": f"d={width}, L={depth}, N={tokens}", "pair-scales": evaluations,
            "before µs each": 1e6 * before / evaluations,
            "after µs each": 1e6 * after / evaluations, "speed-up": before / after,
            "identical": bool(np.array_equal(one_per_scale(), together()))}


def compiled_against_numpy(width: int, depth: int, heads: int, rows: int,
                           columns: int) -> dict:
    """The degree blocks' scaled evaluations of one position a side (|P| = |Q| = 1, the
    atlas' slowest classes): NumPy (before) vs the XLA-compiled kernel (after,
    :mod:`attndepth.rank.evaluation.compiled_scales`), both on every core. The
    compilation is done before the timing (once per grid in a measurement)."""
    from attndepth.rank.evaluation.compiled_scales import evaluate_scales_compiled

    weights = draw_linear_attention_weights(width, depth, heads, 0, 1, 0, prime=BLOCK_PRIME)
    split = make_partition("sizes=1/1", 2)
    rng = np.random.default_rng(0)
    XP = rng.integers(0, BLOCK_PRIME, (rows, 1, width))
    XQ = rng.integers(0, BLOCK_PRIME, (columns, 1, width))
    scales, _ = separating_scales((3 ** depth - 1) // 2, BLOCK_PRIME)

    def numpy_scales():
        return evaluate_structured_scales(weights, split, XP, XQ, 0, scales)

    def compiled():
        return evaluate_scales_compiled(weights, split, XP, XQ, 0, scales)

    identical = bool(np.array_equal(numpy_scales(), compiled()))  # compiles
    before, after = interleaved(numpy_scales, compiled, 2)
    cpu = []
    for function in (numpy_scales, compiled):
        start = time.process_time()
        function()
        cpu.append(time.process_time() - start)
    evaluations = rows * columns * len(scales)
    return {"config": f"d={width}, L={depth}, H={heads}, |P|=|Q|=1",
            "pair-scales": evaluations, "before µs each": 1e6 * before / evaluations,
            "after µs each": 1e6 * after / evaluations, "speed-up": before / after,
            "CPU-time ratio": cpu[0] / cpu[1], "identical": identical}


def parts_against_scales(width: int, heads: int, tokens: int, rows: int,
                         columns: int) -> dict:
    """The 14 degree-block parts of a depth-3 grid: K + 1 scaled evaluations and the
    inverse Vandermonde product (before) vs the coefficients of matrix polynomials in s
    (after, :mod:`attndepth.rank.evaluation.grid_parts`)."""
    weights = draw_linear_attention_weights(width, 3, heads, 0, 1, 0, prime=BLOCK_PRIME)
    split = make_partition("balanced", tokens)
    rng = np.random.default_rng(0)
    XP = rng.integers(0, BLOCK_PRIME, (rows, len(split.p_positions), width))
    XQ = rng.integers(0, BLOCK_PRIME, (columns, len(split.q_positions), width))
    scales, inverse = separating_scales(13, BLOCK_PRIME)

    def through_scales():
        scaled = evaluate_structured_scales(weights, split, XP, XQ, 0, scales)
        parts = matmul_residues(scaled.reshape(-1, 14), inverse.T, BLOCK_PRIME)
        return parts.reshape(rows, columns, 14).astype(np.int64) % BLOCK_PRIME

    def as_coefficients():
        return evaluate_structured_parts(weights, split, XP, XQ, 0)

    before, after = interleaved(through_scales, as_coefficients, 2)
    pairs = rows * columns
    return {"config": f"d={width}, H={heads}, N={tokens}", "pairs": pairs,
            "before µs a pair": 1e6 * before / pairs, "after µs a pair": 1e6 * after / pairs,
            "speed-up": before / after,
            "identical": bool(np.array_equal(through_scales(), as_coefficients()))}


def lazy_products_before_after(width: int, heads: int, tokens: int, rows: int,
                               columns: int) -> dict:
    """The depth-3 parts with a remainder after every coefficient product (before) and
    once per anti-diagonal sum (after, ``grid_parts.polynomial_product``)."""
    weights = draw_linear_attention_weights(width, 3, heads, 0, 1, 0, prime=BLOCK_PRIME)
    split = make_partition("balanced", tokens)
    rng = np.random.default_rng(0)
    XP = rng.integers(0, BLOCK_PRIME, (rows, len(split.p_positions), width))
    XQ = rng.integers(0, BLOCK_PRIME, (columns, len(split.q_positions), width))
    lazy = grid_parts.polynomial_product

    def evaluate(product):
        grid_parts.polynomial_product = product
        try:
            return evaluate_structured_parts(weights, split, XP, XQ, 0)
        finally:
            grid_parts.polynomial_product = lazy

    before, after = interleaved(lambda: evaluate(polynomial_product_before),
                                lambda: evaluate(lazy), 3)
    pairs = rows * columns
    return {"config": f"d={width}, H={heads}, N={tokens}", "pairs": pairs,
            "before µs a pair": 1e6 * before / pairs, "after µs a pair": 1e6 * after / pairs,
            "speed-up": before / after,
            "identical": bool(np.array_equal(evaluate(polynomial_product_before),
                                             evaluate(lazy)))}


def _pass_pairs(sizes: list[int], batches: list[list[int]]) -> int:
    """Pairs the passes evaluate: each its largest block's grid, n² pairs."""
    return sum(max(sizes[a] for a in batch) ** 2 for batch in batches)


def block_passes() -> list[dict]:
    """Pair evaluations of the atlas' block classes in three designs: batches of at most
    512 MiB of int32, batches filling a 3 GiB budget of blocks and float64 copy (every
    block in memory, one pass per batch), and one pass for every block (those past the
    budget in files, ``degree_blocks._resident_blocks``). One row per (d, L) with a
    class that took more than one pass in either batch design. Exact counts: a pass
    evaluates its largest block's grid (``degree_blocks.evaluate_blocks``)."""
    groups: dict[tuple[int, int], list] = {}
    for atlas_class in atlas_classes():
        if not atlas_class.reachable or atlas_class.method != "blocks":
            continue
        sizes = [min(block.bound + DEFAULT_MARGIN, atlas_class.max_points)
                 for block in degree_block_bounds(atlas_class.width, atlas_class.depth,
                                                  atlas_class.p_size, atlas_class.q_size)]
        if len(block_batches_before(sizes)) > 1:
            groups.setdefault((atlas_class.width, atlas_class.depth), []).append(sizes)
    rows = []
    for (width, depth), members in sorted(groups.items()):
        small = sum(_pass_pairs(s, block_batches_before(s)) for s in members)
        budget = sum(_pass_pairs(s, block_batches_in_memory(s)) for s in members)
        one = sum(max(s) ** 2 for s in members)
        rows.append({"d, L": f"{width}, {depth}", "classes": len(members),
                     "passes 512 MiB": max(len(block_batches_before(s)) for s in members),
                     "passes 3 GiB": max(len(block_batches_in_memory(s)) for s in members),
                     "pairs 512 MiB": small, "pairs 3 GiB": budget, "pairs one pass": one,
                     "ratio 3 GiB / one pass": budget / one,
                     "blocks in files": max(len(s) - len(_resident_blocks(s))
                                            for s in members)})
    return rows


def rank_before_after(width: int, depth: int, tokens: int) -> dict:
    """The GF(p) rank step: ``nmod_mat`` from a flat list on one thread (before) vs now."""
    size = separation_rank_bounds(width, depth, (tokens + 1) // 2, tokens // 2).best + 8
    F = evaluate_structured(*_grid(width, depth, tokens, size), 0)
    before, after = interleaved(lambda: rank_mod_before(F, DEFAULT_PRIME),
                                lambda: rank_mod(F, DEFAULT_PRIME), 2)
    return {"matrix": f"{size} x {size} (d={width}, L={depth}, N={tokens})",
            "before s": before, "after s": after, "speed-up": before / after,
            "same rank": rank_mod_before(F, DEFAULT_PRIME) == rank_mod(F, DEFAULT_PRIME)}


def sympy_speedup() -> dict:
    """flint nmod_mat rank vs sympy Matrix.rank on one small evaluation matrix."""
    rng = np.random.default_rng(0)
    F = rng.integers(0, 101, (40, 12)) @ rng.integers(0, 101, (12, 40))
    flint_seconds = best_of(lambda: rank_mod(F % DEFAULT_PRIME, DEFAULT_PRIME), 3)
    sympy_seconds = best_of(lambda: sp.Matrix(F.tolist()).rank(), 1)
    return {"matrix": "40 x 40, rank 12", "flint s": flint_seconds, "sympy s": sympy_seconds,
            "speed-up": sympy_seconds / flint_seconds}


def largest_certified(limit_seconds: float) -> dict:
    """Largest certified rank among d ≤ 4, L ≤ 4, N ≤ 8 configurations within the limit
    (bounds above 6000 are skipped: their rank step alone exceeds a minute here)."""
    best = None
    for width, depth, tokens in [(2, 3, 2), (3, 3, 2), (2, 3, 4), (3, 2, 6), (2, 4, 2),
                                 (3, 3, 4), (3, 3, 6), (4, 2, 8), (4, 3, 2), (2, 4, 4)]:
        bounds = separation_rank_bounds(width, depth, (tokens + 1) // 2, tokens // 2)
        if bounds.best > 6000:
            continue
        start = time.perf_counter()
        config = SeparationRankConfig(width=width, depth=depth, tokens=tokens)
        certificate = rank_from_grids(config, 0, rank_cap=bounds.best,
                                      start_points=bounds.best + 8)
        seconds = time.perf_counter() - start
        if seconds <= limit_seconds and (best is None or certificate.rank > best["rank"]):
            best = {"config": f"d={width}, L={depth}, N={tokens}", "rank": certificate.rank,
                    "seconds": seconds, "evaluation s": certificate.eval_seconds,
                    "rank s": certificate.rank_seconds, "reason": certificate.reason}
    return best or {}


def torus_against_blocks(width: int, depth: int, q_size: int, target: int) -> dict:
    """The same certified target two ways: dense degree blocks (generic weights, every
    block capped at the smallest sufficient grid) against the torus split (commuting
    weights, every class capped at the grid sized for it by the knee's rule). Memory is
    the int32 entries of every block or class. The class grid grows by 1.5× until the
    split meets the target, as in ``measure_knee``; every attempt is timed."""
    from attndepth.rank.degree_blocks import measure_block_ranks
    from attndepth.rank.knee import grid_cap, torus_cap
    from attndepth.rank.torus_blocks import (
        DEFAULT_ORDER,
        class_bounds,
        make_torus,
        measure_torus_ranks,
        torus_prime,
    )
    from attndepth.theory.separation_rank import degree_block_bounds

    config = SeparationRankConfig(width=width, depth=depth, tokens=2 * q_size,
                                  partition=f"sizes={q_size}/{q_size}")
    bounds = [b.bound for b in degree_block_bounds(width, depth, q_size, q_size)]
    cap = grid_cap(bounds, target, 8)
    start = time.perf_counter()
    dense = measure_block_ranks(config, bounds, 0, max_points=cap)
    dense_seconds = time.perf_counter() - start
    torus = make_torus(width, DEFAULT_ORDER, torus_prime(DEFAULT_ORDER))
    class_cap = torus_cap(width, depth, bounds, target, DEFAULT_ORDER, 8)
    start = time.perf_counter()
    split = measure_torus_ranks(config, bounds, 0, max_points=class_cap)
    while split.rank < target:
        class_cap = int(1.5 * class_cap)
        split = measure_torus_ranks(config, bounds, 0, max_points=class_cap)
    split_seconds = time.perf_counter() - start
    dense_entries = sum(min(b + 8, cap) ** 2 for b in bounds)
    split_entries = sum(min(c + 8, class_cap) ** 2 for row in class_bounds(width, depth, torus)
                        for c in row if c)
    return {"network": f"d={width}, L={depth}, |P|=|Q|={q_size}", "target": target,
            "dense grid": cap, "dense rank": dense.rank, "dense s": dense_seconds,
            "classes": torus.size, "class grid": class_cap, "torus rank": split.rank,
            "torus s": split_seconds, "dense / torus time": dense_seconds / split_seconds,
            "dense / torus entries": dense_entries / split_entries}
