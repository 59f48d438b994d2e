"""Claims of Yu & Zhang 2023 and Dong et al. 2021 (THEORY §3–4): softmax stacks."""

from __future__ import annotations

from attndepth.claims import Claim, Outcome, register, verdict_from
from simulations.similarity import invariant_eigenspace_defects
from simulations.stacks import VARIANTS, StackConfig, run_stack
from theory.similarity import check_invariant_eigenspace

#: Largest |P1 − 1| or below-diagonal entry of QᵀPQ allowed (float64 round-off).
EIGENSPACE_TOLERANCE = 1e-12


def measure_invariant_eigenspace(seed: int, tokens: int, width: int, heads: int, depth: int,
                                 batch: int, symbolic_tokens: int) -> Outcome:
    """P1 = 1 and QᵀPQ block upper triangular, for every variant (and a causal mask)."""
    proved = check_invariant_eigenspace(symbolic_tokens)
    worst_row, worst_block = 0.0, 0.0
    for variant in VARIANTS:
        for causal in (False, True):
            config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=width,
                                 heads=heads, causal=causal)
            trajectory = run_stack(config, batch, seed, keep_attention=True)
            row, block = invariant_eigenspace_defects(trajectory.attention)
            worst_row, worst_block = max(worst_row, row), max(worst_block, block)
    holds = proved and max(worst_row, worst_block) <= EIGENSPACE_TOLERANCE
    return Outcome(
        predicted="P1 = 1; (QᵀPQ)_{k,0} = 0 for k ≥ 1",
        measured=f"max|P1−1| {worst_row:.1e}; max|block| {worst_block:.1e}",
        verdict=verdict_from(holds),
        note=(f"sympy proof for generic row-stochastic P, n={symbolic_tokens}: {proved}; "
              f"numeric: all {len(VARIANTS)} variants × causal/non-causal, depth {depth}, "
              f"n={tokens}, d={width}, H={heads}, {batch} stacks"),
        values={"max_row_defect": worst_row, "max_block_defect": worst_block,
                "symbolic_proof": proved},
    )


register(Claim(
    id="yuzhang.invariant-eigenspace",
    source="Yu & Zhang 2023, §3 (THEORY §3)",
    statement="Every softmax attention matrix fixes 1, so QᵀPQ is block upper triangular.",
    tolerance=f"defects ≤ {EIGENSPACE_TOLERANCE}; sympy identity exact",
    measure=measure_invariant_eigenspace,
    presets={
        "quick": dict(tokens=8, width=16, heads=2, depth=8, batch=4, symbolic_tokens=3),
        "full": dict(tokens=32, width=64, heads=4, depth=32, batch=16, symbolic_tokens=5),
    },
))
