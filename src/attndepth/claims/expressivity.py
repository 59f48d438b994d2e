"""Claims of Levine et al. 2020 (theory document §1): the analysed linear-attention network."""

from __future__ import annotations

import numpy as np

from attndepth.framework.declarations import Check, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.rank.polynomial import measure_homogeneity, measure_structure
from attndepth.theory.separation_rank import (
    confirm_structural_lemma,
    homogeneous_degrees,
    output_degree,
    random_integer_weights,
    symbolic_network,
)

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (1, 1)

#: Relative tolerance on the fitted homogeneity degree.
DEGREE_FIT_TOLERANCE = 1e-6
#: Worst pointwise |f(tx) − t^k f(x)| relative to t^k max|f(x)| (float64 round-off).
HOMOGENEITY_ERROR_TOLERANCE = 1e-9
#: Largest relative change of f allowed under an M_Q-preserving change (round-off).
INVARIANCE_TOLERANCE = 1e-9
#: Smallest relative change of f that counts as "f changed" under a generic change.
SENSITIVITY_THRESHOLD = 1e-3

TESTS = "tests/test_claims_drawn_sizes.py"
HEADS_DIVIDE_WIDTH = ("heads divide width", lambda m: m["width"] % m["heads"] == 0)


#: Draws of small integer weights for the SymPy network before a zero output (nothing to
#: check) makes the verdict inconclusive.
SYMBOLIC_DRAWS = 8


@claim(
    "levine.degree",
    source="Levine et al. 2020, §3",
    statement="With ρ = 0 the network output is a homogeneous polynomial of degree 3^L.",
    presets={
        "quick": dict(width=4, depth=3, heads=2, tokens=4, batch=4, symbolic_depth=2),
        "full": dict(width=8, depth=4, heads=2, tokens=6, batch=16, symbolic_depth=2),
    },
    theory=(output_degree, symbolic_network, homogeneous_degrees),
    simulation=(measure_homogeneity,),
    test=f"{TESTS}::test_levine_degree",
    wrong_theory={"output_degree": lambda depth: 3**depth + 1},
    # each layer is cubic in its input (bilinear scores times linear values), so degree 3^L
    # is proved by induction (and exactly by SymPy): the float fit can only fail by a bug.
    # The rivals are reported; both agree with 3^L at L = 1, and L >= 2 rejects them
    kind="consistency",
    rivals=(Rival("2^L + 1", "quadratic scores times a linear value, squared per layer",
                  replace={"output_degree": lambda depth: 2**depth + 1}),
            Rival("3L", "degree added per layer, not multiplied",
                  replace={"output_degree": lambda depth: 3 * depth})),
    family=Family(parameters={"width": (1, 2, 3, 4), "depth": (1, 2, 3), "heads": (1, 2),
                              "tokens": (1, 2, 3, 4)},
                  beyond={"width": (6, 8), "depth": (4,), "tokens": (6, 8)},
                  constraints=(HEADS_DIVIDE_WIDTH,), fixed={"batch": 2, "symbolic_depth": 1}),
    checks=(Check("degree_error", "relative error of the fitted degree against 3^L",
                  at_most=DEGREE_FIT_TOLERANCE),
            Check("max_relative_error", "pointwise relative error of f(tx) = t^k f(x)",
                  at_most=HOMOGENEITY_ERROR_TOLERANCE),
            Check("symbolic_homogeneous", "SymPy: the expanded output is exactly homogeneous "
                  "of degree 3^L (integer weights giving f ≡ 0: cannot tell)")),
)
def verify_degree(seed: int, theory: Theory, width: int, depth: int, heads: int, tokens: int,
                   batch: int, symbolic_depth: int) -> Outcome:
    """f(t·x) = t^(3^L) f(x): fitted on float stacks; exact on a symbolic one."""
    predicted = theory.output_degree(depth)
    # small integer weights can give f ≡ 0 (no degree to check): draw again, a few times
    for attempt in range(SYMBOLIC_DRAWS):
        weights = random_integer_weights(2, symbolic_depth, 1,
                                         seed if attempt == 0 else seed * 7919 + attempt)
        network = theory.symbolic_network(*weights, tokens=2, residual=0)
        symbolic_degrees = theory.homogeneous_degrees(network.output(0, 0))
        if symbolic_degrees:
            break
    symbolic_ok = symbolic_degrees == {theory.output_degree(symbolic_depth)}
    symbolic_vacuous = not symbolic_degrees  # these integer weights gave f ≡ 0
    scales = np.array([0.5, 0.75, 1.5, 2.0])
    found = measure_homogeneity(width, depth, heads, tokens, scales, batch, seed)
    return Outcome(
        note=(f"degree 3^{depth} = {predicted}: fitted {found.fitted_degree:.6f}; sympy: d=2, "
              f"N=2, L={symbolic_depth} output has monomial degrees "
              f"{sorted(symbolic_degrees)}; float64: width {width}, heads {heads}, "
              f"tokens {tokens}, {batch} stacks, t in {scales.tolist()}"),
        values={"predicted_degree": predicted, "fitted_degree": found.fitted_degree,
                "max_relative_error": found.max_relative_error,
                "symbolic_degrees": sorted(symbolic_degrees),
                "degree_error": abs(found.fitted_degree - predicted) / predicted,
                "symbolic_homogeneous": None if symbolic_vacuous else symbolic_ok},
    )


@claim(
    "levine.structure",
    source="[derived]: structural lemma (Levine et al. 2020, §4, proof of the bounds)",
    statement="Output i depends on the other positions only through M = Σ_j x^j x^jᵀ.",
    presets={
        "quick": dict(width=4, depth=3, heads=2, tokens=6, batch=4, symbolic_depth=2),
        "full": dict(width=8, depth=4, heads=4, tokens=8, batch=16, symbolic_depth=2),
    },
    theory=(confirm_structural_lemma,),
    simulation=(measure_structure,),
    test=f"{TESTS}::test_levine_structure",
    wrong_theory={"confirm_structural_lemma": lambda *args: False},
    # the lemma is proved (Levine et al. 2020, §4; the SymPy identity checks it exactly):
    # the float stacks can disagree with it only through a software bug
    kind="consistency",
    family=Family(parameters={"width": (2, 3, 4), "depth": (1, 2, 3), "heads": (1, 2),
                              "tokens": (3, 4, 5, 6)},
                  beyond={"width": (6, 8), "depth": (4,), "heads": (4,), "tokens": (8,)},
                  constraints=(HEADS_DIVIDE_WIDTH,), fixed={"batch": 2, "symbolic_depth": 1}),
    checks=(Check("symbolic_lemma", "SymPy: y^L,i = G_L(M) x^i identically (ρ = 0 and 1)"),
            Check("orthogonal_change", "relative change of f under an M_Q-preserving change "
                  "of X_Q", at_most=INVARIANCE_TOLERANCE),
            Check("generic_change", "relative change of f under a generic change of X_Q",
                  at_least=SENSITIVITY_THRESHOLD)),
)
def verify_structure(seed: int, theory: Theory, width: int, depth: int, heads: int, tokens: int,
                            batch: int, symbolic_depth: int) -> Outcome:
    """f at P positions depends on x_Q only through M_Q = Σ_{j∈Q} x^j x^jᵀ."""
    lemma_ok = all(theory.confirm_structural_lemma(2, 3, symbolic_depth, 1, residual, seed)
                   for residual in (0, 1))
    found = [measure_structure(width, depth, heads, tokens, batch, seed, residual)
             for residual in (0, 1)]
    orthogonal = max(m.orthogonal_change for m in found)
    generic = min(m.generic_change for m in found)
    return Outcome(
        note=(f"Δf = 0 when X_Q -> O X_Q, Δf ≠ 0 for a generic X_Q; sympy for d=2, N=3, "
              f"L={symbolic_depth}; float64: width {width}, depth {depth}, heads {heads}, "
              f"tokens {tokens}, ρ = 0 and 1, {batch} stacks; relative changes of f"),
        values={"orthogonal_change": orthogonal, "generic_change": generic,
                "symbolic_lemma": lemma_ok},
    )
