"""Position bias of causal attention at initialisation (theory document §5): the
cumulative attention of an attention-only stack collapses onto the first token, at the
decay mask's own rate (Wu et al. 2025, arXiv 2502.01951;
:mod:`attndepth.theory.position_bias`)."""

from __future__ import annotations

import math

import numpy as np

from attndepth.claims import presets
from attndepth.framework.declarations import Check, Estimate, Rival, predict_value
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.simulations.measures.attention_rollout import (
    attention_rollout,
    first_token_deficit,
)
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.position_bias import (
    collapse_rate,
    confirm_position_bias,
    rollout_deficits,
)

#: Where the theory document states this claim (section, place in it).
SECTION = (5, 7, 0, 1)

TESTS = "tests/test_claims_position_bias.py"
#: Allowed relative error of the mean first-token deficit at the depth L_* where M^L's
#: falls to ½. The attention of the layers before the tokens collapse is random, not the
#: mask's (second order in the logits' spread): measured −7 to +5 % at T = 1 and −2 to
#: +3 % at T = 2 (d = 16–64, n = 8–16, m = 0–3; one seed scatters by 1–7 %), −8 to −21 %
#: at T = ½, outside the statement; the rivals lie at −60 % to +100 % and beyond.
DEFICIT_BAND = 0.1
#: Allowed |rate − ln(1 + e^{−m})| per layer, from blocks R to 2R at position 2: once the
#: tokens have collapsed the rate is the mask's (measured within 0.001 from R = 16). The
#: nearest rival, the single map's decay m, lies 0.026 away at m = ½.
RATE_BAND = 0.01
#: The fraction of M^L's deficit at which its front is judged (L_* = the first depth at
#: or below it).
FRONT = 0.5


def front_depth(deficits: list[float]) -> int:
    """L_*: the first depth whose deficit is at most :data:`FRONT`."""
    return next(depth for depth, value in enumerate(deficits) if value <= FRONT)


@claim(
    "wu.position-bias",
    source="Wu, Wang, Jegelka & Jadbabaie 2025, arXiv 2502.01951 (causal masking biases "
           "multi-layer attention toward early positions; a decay mask trades its "
           "distance decay against that bias; abstract read, theorems not); the rates at "
           "initialisation [derived]",
    statement="At initialisation (logits of spread at most 1: temperature T ≥ 1) the "
              "cumulative attention P_L = A_L ⋯ A_1 of an attention-only causal stack with a "
              "decay mask m (logits less m(i − j)) is, to first order, the mask's own "
              "rollout M^L, M_ij ∝ e^{−m(i−j)}: every position's mass "
              "collapses onto the first token, position 2's last, at ln(1 + e^{−m}) a layer "
              "(ln 2 without decay), after a front that moves e^{−m}/(1 − e^{−m}) positions a "
              "layer; the decay slows the collapse but does not stop it.",
    presets=presets.POSITION_BIAS,
    theory=Theory(rollout_deficits=rollout_deficits, collapse_rate=collapse_rate,
                  confirm_position_bias=confirm_position_bias),
    simulation=(attention_rollout,),
    test=f"{TESTS}::test_the_claim_holds_and_rejects_its_rivals",
    figure="position_bias",
    wrong_theory={"collapse_rate": lambda decay: math.log(2.0)},
    estimate=(Estimate("deficit", "predicted_deficit", (-DEFICIT_BAND, DEFICIT_BAND),
                       label="first-token deficit at L_*, relative to M^L's",
                       quantity="mean first-token deficit at the front depth L_*"),
              Estimate("rate", "predicted_rate", (-RATE_BAND, RATE_BAND), relative=False,
                       label="rate at position 2 − ln(1 + e^{−m})",
                       quantity="per-layer rate of position 2's deficit, blocks R … 2R")),
    checks=(Check("symbolic", "SymPy: equal scores give the mask's row; M's spectrum; "
                              "2^(−L) at m = 0"),),
    rivals=(
        Rival("no accumulation", "the uniform-attention prediction: each layer's bias "
              "alone, as one map gives it (1/i on the first token at m = 0)",
              against="deficit", predicted=predict_value("one_layer_deficit")),
        Rival("the direct path only", "the long-term decay wins: the weight a token pays "
              "the first token, multiplied over the layers, (M_i1)^L → 0",
              against="deficit", predicted=predict_value("direct_path_deficit")),
        Rival("no front", "the asymptotic rate from the first layer on: "
              "deficit(1)·λ₂^(L−1)", against="deficit",
              predicted=predict_value("no_front_deficit")),
        Rival("the causal mask alone, ln 2", "the decay mask ignored (the rate without "
              "it; the claim itself at m = 0)", against="rate",
              predicted=predict_value("causal_rate")),
        Rival("one map's decay, m", "the rate read off one attention map's distance "
              "decay", against="rate", predicted=predict_value("map_rate"))),
    family=Family(parameters={"decay": (0.0, 0.5, 1.0, 2.0), "temperature": (1.0, 2.0),
                              "width": (16, 64), "tokens": (8, 16)},
                  beyond={"decay": (3.0,), "width": (128,)},
                  fixed={"rate_depth": 16, "batch": 16}),
)
def verify_position_bias(seed: int, theory: Theory, decay: float, temperature: float,
                         width: int, tokens: int, rate_depth: int, batch: int) -> Outcome:
    """The rollout of ``batch`` attention-only causal stacks with decay ``decay``: its mean
    first-token deficit at L_* and position 2's rate over blocks R … 2R."""
    symbolic = theory.confirm_position_bias()
    cap = math.ceil((tokens - 1) * math.expm1(decay)) + 8
    deficits = theory.rollout_deficits(tokens, decay, cap)
    front = front_depth(deficits)
    config = StackConfig(variant="pure", causal=True, decay=decay, temperature=temperature,
                         width=width, tokens=tokens, depth=max(2 * rate_depth, front))
    measured = first_token_deficit(attention_rollout(config, batch, seed))
    second = measured[:, :, 0]  # position 2: (L + 1, batch)
    rates = -np.log(second[2 * rate_depth] / second[rate_depth]) / rate_depth
    predicted_rate = float(theory.collapse_rate(decay))
    mask_row = [math.exp(-decay * i) / math.fsum(math.exp(-decay * k) for k in range(i + 1))
                for i in range(1, tokens)]
    values: dict[str, object] = {
        "symbolic": symbolic, "front_depth": front,
        "deficit": float(measured[front].mean()), "predicted_deficit": deficits[front],
        "rate": float(rates.mean()), "predicted_rate": predicted_rate,
        "one_layer_deficit": deficits[1],
        "direct_path_deficit": 1.0 - math.fsum(w**front for w in mask_row) / (tokens - 1),
        "no_front_deficit": deficits[1] * math.exp(-predicted_rate * (front - 1)),
        "causal_rate": math.log(2.0), "map_rate": decay,
        "deficits": [float(v) for v in measured.mean(axis=(1, 2))],
    }
    return Outcome(
        note=(f"first-token deficit at L_* = {front}: {values['deficit']:.4f} (M^L: "
              f"{deficits[front]:.4f}); position 2 falls by {values['rate']:.4f} a layer "
              f"over blocks {rate_depth} … {2 * rate_depth} (ln(1 + e^(−m)) = "
              f"{predicted_rate:.4f}); attention-only, causal, decay m = {decay}, T = "
              f"{temperature}, d = {width}, n = {tokens}, {batch} stacks"),
        values=values,
    )
