"""Escalation laws derived from each architecture's own configuration (theory document
§5, "The architectures people build: the laws from their configurations").

The unit-scale rate of ``yuzhang.escalation`` is derived for a block whose attention
branch is as large as the skip. A model built at its authors' initialisation is not that
block: BERT's branch has squared gain (d · 0.02²)², it has a GELU FFN, and GPT-2 and LLaMA
normalise before their branches. These claims compare each model with the prediction
computed from its own configuration (:func:`~attndepth.pytorch.initialisations.block_gains`
read from the model's configuration, iterated by
:func:`~attndepth.simulations.models.gram_recursion.gram_log_odds` from the model's own
input similarity), with the unit-scale rate, the heuristic ln(1 + g²) and "no escalation"
as rivals. Every model of a seed is built and measured alone (its own weights, its own
input, its own prediction): the per-model errors are independent (``pool="stacks"``).
Not run by default (they need the torch and hf extras): name them with ``--claim``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from attndepth.claims.architectures import trace
from attndepth.errors import InvalidParameter, shown
from attndepth.framework.declarations import Estimate, Rival, predict_constant
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.pytorch.escalation import architecture_trace
from attndepth.simulations.models.gram_recursion import BlockGains, gram_log_odds
from attndepth.theory.architecture_rates import aligned_rate, preln_law_coefficient
from attndepth.theory.similarity import postln_rate

SECTION = (5, 7, 1)
TESTS = "tests/test_claims_architecture_theory.py"
#: Log-odds beyond which a prediction is not followed: the measured diversity then sits
#: near float64's round-off, and every model there is far past any window.
LOG_ODDS_CAP = 30.0
#: The band of the relative error of the log-odds' rise: the recursion leaves out the
#: attention's logit fluctuations and the branches' finite-width fluctuations (order
#: β²/d and γ/d a block), measured at −7 % to +4 % of the rise at the family's sizes.
RISE_TOLERANCE = 0.05
#: The band of the late/early slope ratio of a pre-norm stack (an absolute error).
DECELERATION_TOLERANCE = 0.1
#: The Hugging Face architectures by placement (σ is their configuration's
#: ``initializer_range``); the ``torch.nn`` encoders copy one layer into every block,
#: outside the derivation (independent blocks): they are not members, and run with
#: ``--member`` to show by how much the derivation misses them.
POST_NORM_MODELS = ("bert",)
PRE_NORM_MODELS = ("gpt2", "llama")
SHARED_LAYER_MODELS = {"post": ("encoder-post",), "pre": ("encoder-pre",)}
#: The σ of the authors' initialisation (a ``torch.nn`` encoder's own has no σ to vary:
#: its members' ``init_std`` is not read).
AUTHORS_STD = 0.02
SEEDS = (4, 32)


HEADS_DIVIDE = ("heads divide width", lambda m: m["width"] % m["heads"] == 0)


def configuration_gains(architecture: str, width: int, depth: int, heads: int,
                        init_std: float) -> BlockGains:
    """:func:`~attndepth.pytorch.initialisations.block_gains` of a family member (σ for
    the Hugging Face models; the ``torch.nn`` encoders' own initialisation)."""
    from attndepth.pytorch.architectures import ARCHITECTURES, HUGGING_FACE
    from attndepth.pytorch.initialisations import block_gains

    if architecture not in ARCHITECTURES:
        raise InvalidParameter(f"{shown(architecture, 60)} has no configuration attndepth can "
                               f"read (a registered model): the laws from the configuration "
                               f"are for {', '.join(ARCHITECTURES)}")
    return block_gains(architecture, width=width, depth=depth, heads=heads,
                       init_std=init_std if architecture in HUGGING_FACE else None)


def predicted_log_odds(gains: BlockGains, start_similarities: np.ndarray, *, tokens: int,
                       width: int, depth: int) -> np.ndarray:
    """The recursion's log-odds per block for each model's own input similarity.

    Returns
    -------
    (depth + 1, models) array
    """
    return np.stack([gram_log_odds(gains, tokens=tokens, width=width, depth=depth,
                                   start_similarity=float(t0))
                     for t0 in start_similarities], axis=1)


def _followed(predicted: np.ndarray) -> int:
    """The last block whose predicted log-odds stay below :data:`LOG_ODDS_CAP` for every
    model (the rise is measured up to it; at least the first block)."""
    below = np.all(predicted <= LOG_ODDS_CAP, axis=1)
    return max(1, int(np.argmin(below)) - 1) if not below.all() else predicted.shape[0] - 1


def _third_slopes(log_odds: np.ndarray, last: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-model mean slope over the first and the last third of blocks 0 … last."""
    third = max(1, last // 3)
    early = (log_odds[third] - log_odds[0]) / third
    late = (log_odds[last] - log_odds[last - third]) / third
    return early, late


def _rises(values: np.ndarray) -> list[float]:
    return [float(v) for v in values]


def _linear_share(rate_key: str) -> Callable[[Mapping[str, Any], Mapping[str, Any]],
                                             list[float]]:
    """A rival's prediction: the rise of ``rate_key`` per block over the blocks followed,
    as a share of each model's derived rise."""
    def predicted(values: Mapping[str, Any], params: Mapping[str, Any]) -> list[float]:
        rise = values[rate_key] * values["followed"]
        return [rise / p for p in values["predicted_rises"]]
    return predicted


def _measure(seed: int, theory: Theory, placement: str, architecture: str, depth: int,
             tokens: int, width: int, heads: int, batch: int, init_std: float
             ) -> tuple[Any, BlockGains, np.ndarray, int]:
    variant = "post-ln" if placement == "post" else "pre-ln"
    # the configuration first: a model without one is refused before any is built
    gains = theory.configuration_gains(architecture, width, depth, heads, init_std)
    found = trace(architecture, variant, depth=depth, tokens=tokens, width=width, heads=heads,
                  batch=batch, seed=seed,
                  init_std=init_std if architecture not in SHARED_LAYER_MODELS[placement]
                  else None, contraction=False)
    predicted = theory.predicted_log_odds(gains, found.similarity[0], tokens=tokens,
                                          width=width, depth=depth)
    return found, gains, predicted, _followed(predicted)


def _common_values(found: Any, gains: BlockGains, predicted: np.ndarray, last: int,
                   width: int) -> dict[str, Any]:
    measured_rise = found.log_odds[last] - found.log_odds[0]
    predicted_rise = predicted[last] - predicted[0]
    mean_gain, deviation_gain = gains.ffn_gains()
    return {"rises": _rises(measured_rise), "predicted_rises": _rises(predicted_rise),
            "rise_ratios": _rises(measured_rise / predicted_rise), "derived": 1.0,
            "followed": last, "attention_gain": gains.attention_gain,
            "mean_gain": mean_gain, "deviation_gain": deviation_gain,
            "unit_rate": postln_rate(0.0, width),
            "heuristic_rate": math.log1p(gains.attention_gain),
            "shared_layers": gains.shared_layers}


def _gains_text(gains: BlockGains, values: Mapping[str, Any]) -> str:
    return (f"β² = {gains.attention_gain:.4g}, FFN γ_m = {values['mean_gain']:.4g}, "
            f"γ_d = {values['deviation_gain']:.4g} ({gains.source})"
            + ("; every block shares one layer's weights: outside the derivation"
               if gains.shared_layers else ""))


_THEORY = Theory(configuration_gains, predicted_log_odds)


def _wrong_gains(architecture: str, width: int, depth: int, heads: int,
                 init_std: float) -> BlockGains:
    """The wrong theory: the attention gain of one weight matrix (d σ²) for the product's
    (d σ²)² — the confusion of W_V W_O's gain with W_V's."""
    import dataclasses

    right = configuration_gains(architecture, width, depth, heads, init_std)
    return dataclasses.replace(right, attention_gain=math.sqrt(right.attention_gain))


_NO_ESCALATION = Rival("the skip keeps tokens apart", "Dong et al. 2021, §3 (skip "
                       "connections prevent rank collapse): no rise of the log-odds",
                       predicted=lambda values, params: [0.0] * len(values["rises"]))
_UNIT_SCALE = Rival("the unit-scale rate", "yuzhang.escalation's derived rate (N(0, 1/d) "
                    "weights, branch as large as the skip, no FFN) at s = 0, per block",
                    predicted=_linear_share("unit_rate"))
_HEURISTIC = Rival("ln(1 + g²) per block", "the heuristic of the theory document (the "
                   "unit-scale leading term with the branch gain g² = β², FFN left out)",
                   predicted=_linear_share("heuristic_rate"))
_NEIGHBOUR = Rival("the derived rise × 1.1", "a neighbouring constant: the derived rise "
                   "10 % larger", predicted=predict_constant(1.1))
def _family(models: tuple[str, ...], stds: tuple[float, ...], drawn_stds: tuple[float, ...]
            ) -> Family:
    """The derivation's domain: the models at σ from 0.01 to 0.2, widths 64–1024, depths
    24–96 (the exhaustive part small: a member takes up to 32 seeds of 8 models)."""
    return Family(parameters={"architecture": models, "init_std": stds, "width": (64, 256),
                              "depth": (24,), "tokens": (16,), "heads": (1, 4)},
                  beyond={"init_std": drawn_stds, "width": (128, 512, 1024),
                          "depth": (48, 96), "tokens": (32,)},
                  constraints=(HEADS_DIVIDE,), fixed={"batch": 8})


#: The estimate both claims make: each model's rise over its derived rise.
_RISE = Estimate("rise_ratios", "derived", (-RISE_TOLERANCE, RISE_TOLERANCE), relative=False,
                 seeds=SEEDS, pool="stacks", label="measured / derived log-odds rise − 1",
                 quantity="log-odds rise from the input to the last block over the "
                          "recursion's from the model's own input (per model)")

#: What both claims share: the theory, its wrong form, the simulations, their test; not
#: run by default (they need torch and transformers).
_SHARED: dict[str, Any] = {
    "theory": _THEORY, "wrong_theory": {"configuration_gains": _wrong_gains},
    "simulation": (architecture_trace, gram_log_odds), "by_default": False,
    "test": f"{TESTS}::test_each_claim_holds_at_its_quick_preset_and_its_wrong_theory_fails"}


def _preset(architecture: str, init_std: float, depth: int, *, tokens: int, width: int,
            heads: int) -> dict[str, Any]:
    """A preset: one architecture at one σ and size, a batch of 8 models."""
    return {"architecture": architecture, "init_std": init_std, "depth": depth,
            "tokens": tokens, "width": width, "heads": heads, "batch": 8}


@claim(
    "yuzhang.architecture-rate",
    source="derived here: Yu & Zhang 2023 §3's post-LN block with the architecture's own "
           "gains (theory document §5, the architectures people build)",
    statement=("A post-LN transformer at its authors' initialisation raises its tokens' "
               "log-odds over depth as its configuration predicts: the Gram recursion with "
               "attention gain β² = (dσ_V²)(dσ_O²), its FFN's kernel and LayerNorm, from its "
               "own input similarity; aligned, at ln(1 + kβ²) + ln(1 + kγ_m) − ln(1 + kγ_d) "
               "a block."),
    # 48 blocks: aligned long enough for the FFN's term (8.6 % of the rise) to tell the
    # heuristic apart at every base seed (at 24 blocks, 6.8 %: not at base seed 5)
    presets={"quick": _preset("bert", 0.1, 48, tokens=16, width=64, heads=1),
             "full": _preset("bert", 0.05, 48, tokens=32, width=256, heads=4)},
    estimate=_RISE,
    rivals=(_UNIT_SCALE, _HEURISTIC, _NO_ESCALATION, _NEIGHBOUR),
    family=_family(POST_NORM_MODELS, (0.02, 0.1), (0.01, 0.05, 0.2)),
    **_SHARED,
)
def verify_architecture_rate(seed: int, theory: Theory, architecture: str, init_std: float,
                             depth: int, tokens: int, width: int, heads: int, batch: int
                             ) -> Outcome:
    """Each model's log-odds rise against the recursion from its own input similarity."""
    found, gains, predicted, last = _measure(seed, theory, "post", architecture, depth,
                                             tokens, width, heads, batch, init_std)
    values = _common_values(found, gains, predicted, last, width)
    aligned = aligned_rate(0.0, width, gains.attention_gain, values["mean_gain"],
                           values["deviation_gain"])
    values["aligned_rate"] = aligned
    measured = np.array(values["rises"])
    expected = np.array(values["predicted_rises"])
    return Outcome(
        predicted=f"log-odds rise {expected.mean():.4g} over {last} blocks (mean of "
                  f"{batch} models; aligned rate {aligned:.4g} a block)",
        measured=f"rise {measured.mean():.4g} (t_sim {np.median(found.similarity[0]):.3f} → "
                 f"{np.median(found.similarity[last]):.4g})",
        note=(f"{architecture}, σ = {init_std:g}, d = {width}, L = {depth}, n = {tokens}, "
              f"H = {heads}: {_gains_text(gains, values)}; unit-scale rate "
              f"{values['unit_rate']:.4g} a block, ln(1 + β²) {values['heuristic_rate']:.4g}"),
        values=values)


@claim(
    "yuzhang.preln-law",
    source="derived here: Yu & Zhang 2023 §3's pre-LN statement (escalation weakened) as a "
           "law of depth from the configuration (theory document §5)",
    statement=("A pre-norm transformer at its authors' initialisation raises its log-odds "
               "as its configuration predicts: the Gram recursion (causal mask, the "
               "residual stream growing by β² + γ_m a block), decelerating like "
               "κ ln(1 + Aℓ/σ₀) with κ = 1 − γ_d/(β² + γ_m) once aligned; GPT-2's σ/√(2L) "
               "projections fix the total rise independently of L."),
    presets={"quick": _preset("llama", 0.02, 24, tokens=16, width=64, heads=1),
             "full": _preset("gpt2", 0.02, 48, tokens=32, width=256, heads=4)},
    estimate=(_RISE,
              Estimate("late_early", "predicted_late_early",
                       (-DECELERATION_TOLERANCE, DECELERATION_TOLERANCE), relative=False,
                       seeds=SEEDS, pool="stacks", label="late/early slope ratio − predicted",
                       quantity="log-odds slope over the last third of the blocks / over "
                                "the first third (per model)")),
    rivals=(Rival("linear at the unit-scale rate", "yuzhang.escalation's post-LN rate at "
                  "s = 0, per block: escalation as in the post-LN derivation",
                  predicted=_linear_share("unit_rate")),
            Rival("ln(1 + g²) per block, linearly", "the heuristic of the theory document "
                  "applied as a constant rate", predicted=_linear_share("heuristic_rate")),
            _NO_ESCALATION, _NEIGHBOUR,
            Rival("linear escalation", "a constant slope (late/early 1): the post-LN law "
                  "applied to pre-norm stacks", against="late_early",
                  predicted=lambda values, params: [1.0] * len(values["late_early"]))),
    family=_family(PRE_NORM_MODELS, (0.02, 0.05), (0.01, 0.1, 0.2)),
    **_SHARED,
)
def verify_preln_law(seed: int, theory: Theory, architecture: str, init_std: float,
                     depth: int, tokens: int, width: int, heads: int, batch: int) -> Outcome:
    """Each model's log-odds rise and deceleration against the recursion."""
    found, gains, predicted, last = _measure(seed, theory, "pre", architecture, depth,
                                             tokens, width, heads, batch, init_std)
    values = _common_values(found, gains, predicted, last, width)
    early, late = _third_slopes(found.log_odds, last)
    predicted_early, predicted_late = _third_slopes(predicted, last)
    values["late_early"] = [float(v) for v in late / early]
    values["predicted_late_early"] = [float(v) for v in predicted_late / predicted_early]
    values["kappa"] = preln_law_coefficient(gains.attention_gain, values["mean_gain"],
                                            values["deviation_gain"])
    measured = np.array(values["rises"])
    expected = np.array(values["predicted_rises"])
    return Outcome(
        predicted=f"log-odds rise {expected.mean():.4g} over {last} blocks, late/early "
                  f"slope {np.mean(values['predicted_late_early']):.3f} (κ = "
                  f"{values['kappa']:.3f} once aligned)",
        measured=f"rise {measured.mean():.4g}, late/early {np.mean(values['late_early']):.3f} "
                 f"(t_sim {np.median(found.similarity[0]):.3f} → "
                 f"{np.median(found.similarity[last]):.4g})",
        note=(f"{architecture}, σ = {init_std:g}, d = {width}, L = {depth}, n = {tokens}, "
              f"H = {heads}: {_gains_text(gains, values)}; stream starts at σ₀ = "
              f"{gains.input_scale:.3g} a coordinate"),
        values=values)
