"""Check your PyTorch model: does GPT-2's 1/√(2L) initialisation make the residual stream's
growth independent of depth?

GPT-2 (Radford et al. 2019, §2.3) draws every weight from N(0, 0.02²) but scales the two
residual projections of each block (attention's ``c_proj`` and the MLP's ``c_proj``) by
1/√(2L). The argument: at initialisation the branches barely change the stream, so each
of the 2L branch outputs adds about the same variance v/(2L) to it, whatever L, and the
growth

    g(L) = E‖X_L‖_F² / E‖X_0‖_F² − 1  ≈  Σ_{branches} v/(2L)/‖X_0‖²  =  v/‖X_0‖²

does not depend on the depth: g(2L)/g(L) = 1. Without the scaling every branch adds v and
g grows linearly in L: g(2L)/g(L) = 2 (the rival). The claim measures the ratio on Hugging
Face GPT-2 models built from configurations (no download) at initialisation.

    attndepth verify --claims examples/pytorch_model/gpt2_claims.py
    attndepth verify --claims examples/pytorch_model/gpt2_claims.py --search --draws 0

Needs ``pip install "attndepth[hf]"`` (PyTorch and transformers).
"""

import numpy as np

from attndepth import Estimate, Family, Outcome, Rival, Theory, claim, observe
from attndepth.pytorch.architectures import build, random_inputs

TOLERANCE = 0.3  # of the ratio g(2L)/g(L) against 1, chosen before measuring
SIZES = {"heads": 4, "tokens": 16, "batch": 16}  # 16 sequences of 16 tokens a model


def growth(seed: int, width: int, depth: int, heads: int, tokens: int, batch: int) -> float:
    """g(L): the mean over ``batch`` sequences of ‖X_L‖²/‖X_0‖² − 1 in a GPT-2 drawn from
    ``seed`` (weights and token ids)."""
    model = build("gpt2", width=width, depth=depth, heads=heads, tokens=tokens, seed=seed)
    ids = random_inputs("gpt2", batch=batch, tokens=tokens, width=width, seed=seed)
    states = observe(model, ids, attention=False).states  # (L + 1, batch, tokens, width)
    norms = np.sum(states * states, axis=(-2, -1))
    return float(np.mean(norms[-1] / norms[0] - 1))


def depth_ratio(scaled: bool) -> float:
    """g(2L)/g(L): 1 with the 1/√(2L) scaling (each branch's share falls as the branches
    multiply), 2 without it (each branch adds the same)."""
    return 1.0 if scaled else 2.0


@claim("mine.gpt2-depth-independent-growth",
       source="Radford et al. 2019, §2.3 (the 1/√N residual scaling); my derivation above",
       statement="With GPT-2's 1/√(2L) initialisation the residual stream grows by the same "
                 "factor at depth 2L as at L: g(2L)/g(L) = 1.",
       presets={"quick": {"width": 64, "depth": 4, **SIZES},
                "full": {"width": 128, "depth": 8, **SIZES}},
       family=Family(parameters={"width": (32, 64, 128), "depth": (4, 8)},
                     fixed=SIZES),
       estimate=Estimate("ratio", "predicted", (-TOLERANCE, TOLERANCE), relative=False,
                         seeds=(4, 16), label="g(2L)/g(L) − 1", quantity="g(2L)/g(L)"),
       rivals=(Rival("no depth scaling", "every branch adds the same variance: g grows "
                     "linearly in L", predicted=lambda values, params: 2.0),),
       theory=Theory(depth_ratio), wrong_theory={"depth_ratio": lambda scaled: 2.0})
def verify(seed: int, theory: Theory, width: int, depth: int, heads: int, tokens: int,
           batch: int) -> Outcome:
    shallow = growth(seed, width, depth, heads, tokens, batch)
    deep = growth(seed, width, 2 * depth, heads, tokens, batch)
    ratio, predicted = deep / shallow, theory.depth_ratio(scaled=True)
    return Outcome(f"g(2L)/g(L) = {predicted:g}",
                   f"g({depth}) = {shallow:.3f}, g({2 * depth}) = {deep:.3f}: ratio {ratio:.3f}",
                   values={"ratio": ratio, "predicted": predicted, "shallow": shallow,
                           "deep": deep})
