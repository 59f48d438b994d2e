"""Residual connections against the first-token collapse at initialisation (theory
document §5): the influence of each input token on the last follows one Gram recursion,
a power law of the depth with pre-LN and an exponential with post-LN (Herasimchyk et al.
2026, arXiv 2602.16837; :mod:`attndepth.theory.residual_influence`)."""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims import presets
from attndepth.framework.declarations import Check, Estimate, Rival, predict_value
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.simulations.measures.token_influence import last_token_influence
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.position_bias import mask_attention
from attndepth.theory.residual_influence import (
    confirm_influence_recursion,
    influence_profile,
    non_first_share,
)

#: Where the theory document states this claim (section, place in it).
SECTION = (5, 7, 0, 2)

TESTS = "tests/test_claims_residual_influence.py"
#: Allowed relative error of the non-first share at depth L. The recursion is the
#: d → ∞, near-uniform-attention limit: measured −5 to +4 % at T = 2–16, d = 64–128 (one
#: seed of 16 stacks scatters by 5–14 %, the first token's influence being heavy-tailed;
#: at 2L post-LN's share, about 1 %, scatters by 40 %: the fall carries 2L); the rivals
#: lie at −50 % and beyond.
SHARE_BAND = 0.15
#: Allowed relative error of the fall log₂(share_L/share_2L): measured −6 to +3 % (pre-LN
#: 0.58–0.63, post-LN about 4); the rival exponents 0 and 1 lie −100 % and +60 % from
#: pre-LN's.
FALL_BAND = 0.15
#: Where each placement's rivals come from: the other placement's recursion.
OTHER = {"pre-ln": "post", "post-ln": "pre"}


def _rollout_share(tokens: int, depth: int, skip_weight: float) -> float:
    """The non-first mass of the last row of (wI + (1 − w)A)^depth, A uniform causal."""
    step = skip_weight * np.eye(tokens) + (1 - skip_weight) * np.asarray(
        mask_attention(tokens, 0.0))
    last = np.linalg.matrix_power(step, depth)[-1]
    return float(last[1:].sum())


@claim(
    "herasimchyk.residual-influence",
    source="Herasimchyk, Labryga, Prusina & Laue 2026, arXiv 2602.16837 (residual "
           "connections change the attention-only collapse onto the first token; U-shaped "
           "influence at finite depth; abstract read, theorems not); the recursion at "
           "initialisation [derived]",
    statement="At initialisation, with near-uniform causal attention (T ≥ 2), the influence "
              "‖∂x_n^L/∂x_j^0‖²_F/d of input token j on the last token follows one Gram "
              "recursion with the stream's own, G ← G + (1 − 2/d) A Ĝ Aᵀ: the first token's "
              "share tends to 1, as a power of L with pre-LN (the non-first share falls by "
              "about 2^(−0.6) per doubling of L) and exponentially with post-LN; the last "
              "token keeps its skip path, so the profile is U-shaped at every finite depth.",
    presets=presets.RESIDUAL_INFLUENCE,
    theory=Theory(influence_profile=influence_profile,
                  confirm_influence_recursion=confirm_influence_recursion),
    simulation=(last_token_influence,),
    test=f"{TESTS}::test_the_claim_holds_and_rejects_its_rivals",
    figure="residual_influence",
    wrong_theory={"influence_profile": lambda tokens, width, depths, input_scale=1.0,
                  placement="pre", right=influence_profile: right(
                      tokens, width, depths, input_scale,
                      "post" if placement == "pre" else "pre")},
    estimate=(Estimate("share", "predicted_share", (-SHARE_BAND, SHARE_BAND),
                       label="non-first share at L, relative to the recursion's",
                       quantity="non-first share of the last token's influence at L"),
              Estimate("fall", "zero", (-FALL_BAND, FALL_BAND), relative=False,
                       label="log₂ share_L/share_2L over the recursion's, minus 1",
                       quantity="fall log₂(share_L/share_2L) over the recursion's, minus 1")),
    checks=(Check("symbolic", "SymPy: the expected Jacobian Gram moves by A Ĝ Aᵀ; "
                              "only the first token reaches eigenvalue 1"),),
    rivals=(
        Rival("attention-only rollout", "Wu et al. 2025: the cumulative attention "
              "A^L, no skip path", against="share",
              predicted=predict_value("attention_only_share")),
        Rival("rollout with a fixed skip, ½I + ½A", "Abnar & Zuidema 2020's residual-aware "
              "rollout, the weights not set by the stream", against="share",
              predicted=predict_value("fixed_skip_share")),
        Rival("the other placement's recursion", "pre-LN read with post-LN's constant "
              "branch weight, or post-LN with pre-LN's growing stream", against="share",
              predicted=predict_value("other_placement_share")),
        Rival("no collapse, exponent 0", "residual connections stop the collapse: the "
              "share stops falling", against="fall", predicted=predict_value("no_fall")),
        Rival("exponent 1", "only the first token's influence grows (∝ L), the others' "
              "stay bounded", against="fall", predicted=predict_value("unit_fall"))),
    family=Family(parameters={"variant": ("pre-ln", "post-ln"),
                              "temperature": (2.0, 4.0, 8.0), "width": (64, 128),
                              "tokens": (8, 16)},
                  beyond={"temperature": (16.0,)},
                  fixed={"depth": 8, "batch": 16, "directions": 2}),
)
def verify_residual_influence(seed: int, theory: Theory, variant: str, temperature: float,
                              width: int, tokens: int, depth: int, batch: int,
                              directions: int) -> Outcome:
    """The influence of every input token on the last, in ``batch`` causal stacks of 2L
    blocks; its non-first share at L and 2L against the recursion's."""
    symbolic = theory.confirm_influence_recursion()
    config = StackConfig(variant=variant, causal=True, temperature=temperature,
                         width=width, tokens=tokens, depth=2 * depth)
    influence = last_token_influence(config, batch, seed, directions)
    shares = [non_first_share(list(influence[level])) for level in (depth, 2 * depth)]
    placement = variant.split("-")[0]
    predicted = theory.influence_profile(tokens, width, (depth, 2 * depth),
                                         placement=placement)
    expected = [non_first_share(predicted[level]) for level in (depth, 2 * depth)]
    other = influence_profile(tokens, width, (depth,), placement=OTHER[variant])
    predicted_fall = math.log2(expected[0] / expected[1])
    values: dict[str, object] = {
        "symbolic": symbolic,
        "share": shares[0], "predicted_share": expected[0],
        "fall": math.log2(shares[0] / shares[1]) / predicted_fall - 1.0, "zero": 0.0,
        "predicted_fall": predicted_fall,
        "attention_only_share": _rollout_share(tokens, depth, 0.0),
        "fixed_skip_share": _rollout_share(tokens, depth, 0.5),
        "other_placement_share": non_first_share(other[depth]),
        "no_fall": -1.0, "unit_fall": 1.0 / predicted_fall - 1.0,
        "influence": [float(v) for v in influence[2 * depth]],
        "predicted_influence": [float(v) for v in predicted[2 * depth]],
    }
    return Outcome(
        note=(f"non-first share of the last token's influence at L = {depth}, {2 * depth}: "
              f"{shares[0]:.4f}, {shares[1]:.4f} (recursion {expected[0]:.4f}, "
              f"{expected[1]:.4f}); falls by 2^(−{math.log2(shares[0] / shares[1]):.3f}) "
              f"(recursion "
              f"2^(−{predicted_fall:.3f})); causal {variant}, T = {temperature}, d = "
              f"{width}, n = {tokens}, {batch} stacks × {directions} directions"),
        values=values,
    )
