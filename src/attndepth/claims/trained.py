"""Claims on trained transformers (theory document §5, "Trained networks"): what the papers
state of networks after training, measured on trained models installed from pinned
packages (:mod:`attndepth.pytorch.pretrained`) over windows of a public-domain text
(:mod:`attndepth.pytorch.text_sample`) drawn by the seed.

Each run observes the model on ``windows`` windows of ``tokens`` tokens, and the same
architecture at its own initialisation (seeded by the run) on the same windows: every
number is per window, so a seed's windows are independent draws (``pool="stacks"``) of
the text. The control is one initialisation per seed, shared by the seed's windows: what
depends on it (the rivals "as at initialisation", Yu & Zhang's excess) varies less
within a seed than across initialisations, so those intervals are narrower than the
control's own spread; the rivals are rejected by many times their band.
The family's ``precision`` is the model as stored, or with its weights rounded by GGUF's
Q4_1 (:func:`~attndepth.pytorch.pretrained.quantised`): SmolLM2 is only available in
4-bit, and the float32 MiniLM rounded the same way shows how far quantisation alone moves
each number. Not run by default (each loads a model): name them with ``--claim``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from attndepth.framework.declarations import Estimate, Rival, predict_constant
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory

SECTION = (5, 8)
TESTS = "tests/test_claims_trained.py"
#: Decoders (pre-LN, causal) and encoders (post-LN) the registry knows.
DECODERS = ("smollm2-135m",)
ENCODERS = ("minilm-l6",)
#: The precisions a member is measured in: as its package stores it, or rounded by Q4_1.
PRECISIONS = ("stored", "Q4_1")
#: Seeds per verdict: each seed contributes its windows (independent draws of the text).
SEEDS = (2, 8)


def _presets(model: str, quick: tuple[int, int], full: tuple[int, int]
             ) -> dict[str, dict[str, Any]]:
    return {name: {"model": model, "precision": "stored", "windows": windows,
                   "tokens": tokens}
            for name, (windows, tokens) in (("quick", quick), ("full", full))}


def _family(models: tuple[str, ...]) -> Family:
    return Family(parameters={"model": models, "precision": PRECISIONS},
                  fixed={"windows": 16, "tokens": 64})


@functools.lru_cache(maxsize=3)
def _model(name: str, precision: str) -> Any:
    """A trained model, loaded once a process (rounded by Q4_1 for that precision)."""
    from attndepth.pytorch.pretrained import pretrained, quantised

    loaded = pretrained(name)
    return loaded if precision == "stored" else quantised(loaded, precision)


@functools.lru_cache(maxsize=64)
def _profiles(seed: int, model: str, precision: str, windows: int, tokens: int
              ) -> tuple[Any, Any]:
    """The trained model and its architecture at initialisation (seeded by the run) on the
    same windows of the shipped text; remembered in the process, so that the claims
    asked of one model at one seed observe it once (a profile is a few kB)."""
    from attndepth.pytorch.profiles import layer_profile

    loaded = _model(model, precision)
    trained = layer_profile(loaded, windows=windows, tokens=tokens, seed=seed)
    initialised = layer_profile(loaded, windows=windows, tokens=tokens, seed=seed,
                                initialised_seed=seed)
    return trained, initialised


def _halves(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A block observable (layers, windows) split into its first and second half of
    blocks (the middle block, for an odd count, in the second)."""
    half = values.shape[0] // 2
    return values[:half], values[half:]


def _note(trained: Any, extra: str) -> str:
    return (f"{trained.model} ({trained.layers} blocks), {trained.windows} windows of "
            f"{trained.tokens} tokens of the shipped text; {extra}")


def _per_window(values: np.ndarray) -> list[float]:
    return [float(v) for v in values]


def _above(measured: str, boundary: str, label: str, quantity: str) -> Estimate:
    """The per-window ``measured`` exceeds the theory's ``boundary`` (a one-sided band)."""
    return Estimate(measured, boundary, (0.0, math.inf), relative=False, seeds=SEEDS,
                    pool="stacks", label=label, quantity=quantity)


def _below(measured: str, boundary: str, label: str, quantity: str) -> Estimate:
    """The per-window ``measured`` lies below the theory's ``boundary``."""
    return Estimate(measured, boundary, (-math.inf, 0.0), relative=False, seeds=SEEDS,
                    pool="stacks", label=label, quantity=quantity)


def _rival(name: str, source: str, predicted: float | str, resolution: float,
           against: str | None = None) -> Rival:
    """A rival predicting a constant, or (a key) the per-window values of the control;
    rejected when the interval of the error leaves ±``resolution``."""
    return Rival(name, source, against=against,
                 predicted=_windows_of(predicted) if isinstance(predicted, str)
                 else predict_constant(predicted),
                 band=(-resolution, resolution))


def _as_initialised(key: str, resolution: float, against: str | None = None) -> Rival:
    """The rival "training leaves it as at initialisation": the control's values."""
    return _rival("as at initialisation", "the same architecture at its own "
                  "initialisation, on the same windows", key, resolution, against)


def _windows_of(key: str) -> Callable[[Mapping[str, Any], Mapping[str, Any]], list[float]]:
    """A rival's prediction: the per-window values under ``key`` (the control's)."""
    def predicted(values: Mapping[str, Any], params: Mapping[str, Any]) -> list[float]:
        return [float(v) for v in values[key]]
    return predicted


# --- Yu & Zhang: similarity escalates in trained post-LN encoders ------------------------

#: Resolution of a rise of t_sim: a rival within ±0.02 of the measured rise is not told apart.
SIMILARITY_RESOLUTION = 0.02


@claim(
    "yuzhang.trained-escalation",
    source="Yu & Zhang 2023, §1 and §3 (the token similarity of trained post-LN "
           "Transformers rises with depth: the motivation of escalation)",
    statement="In a trained post-LN encoder the token similarity t_sim of the second half "
              "of its blocks exceeds that of its input embeddings, and the rise exceeds "
              "the same architecture's at its initialisation on the same text.",
    presets=_presets("minilm-l6", (16, 64), (64, 128)),
    theory=Theory(NO_RISE=0.0),
    wrong_theory={"NO_RISE": 0.5},
    estimate=(_above("rise", "no_rise", "t_sim rise, second half − input",
                     "mean t_sim of the second half's blocks − t_sim of the input"),
              _above("excess", "no_rise", "rise − rise at initialisation",
                     "t_sim rise trained − rise initialised")),
    rivals=(_rival("flat in depth", "training leaves t_sim where the embeddings put it",
                   0.0, SIMILARITY_RESOLUTION, against="rise"),
            _rival("as at initialisation", "the escalation at initialisation (§3's linear "
                   "rate) is all there is", 0.0, SIMILARITY_RESOLUTION, against="excess")),
    family=_family(ENCODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_trained_escalation(seed: int, theory: Theory, model: str, precision: str,
                              windows: int, tokens: int) -> Outcome:
    """t_sim of the second half's blocks against the input's, trained and initialised."""
    trained, initialised = _profiles(seed, model, precision, windows, tokens)

    def rise(profile: Any) -> np.ndarray:
        t_sim = profile.values["t_sim"]
        return _halves(t_sim[1:])[1].mean(axis=0) - t_sim[0]

    rises, controls = rise(trained), rise(initialised)
    return Outcome(
        note=_note(trained, f"t_sim input {trained.values['t_sim'][0].mean():.3g}, rise "
                            f"{rises.mean():.3g} (initialised {controls.mean():.3g})"),
        values={"rise": _per_window(rises), "excess": _per_window(rises - controls),
                "no_rise": theory.NO_RISE, "rise_initialised": _per_window(controls)})


# --- Ethayarajh: anisotropy grows with depth ----------------------------------------------

#: Resolution of a mean cosine between unrelated texts.
COSINE_RESOLUTION = 0.02


@claim(
    "ethayarajh.anisotropy",
    source="Ethayarajh 2019, arXiv 1909.00512, §4.1 (contextualised representations are "
           "anisotropic in every layer, more so in the upper layers)",
    statement="In a trained transformer the tokens of unrelated texts have a positive mean "
              "cosine at every block (anisotropy), and the second half of the blocks is "
              "more anisotropic than the first.",
    presets=_presets("minilm-l6", (16, 64), (64, 128)),
    theory=Theory(ISOTROPIC=0.0),
    wrong_theory={"ISOTROPIC": 0.9},
    estimate=(_above("least", "isotropic", "least cosine over blocks",
                     "the least, over blocks, of the mean cosine between tokens of two "
                     "windows"),
              _above("rise", "isotropic", "second half − first half",
                     "mean cross-window cosine, second half − first half")),
    rivals=(_rival("isotropic", "uniformly spread directions: cosine 0 between unrelated "
                   "tokens", 0.0, COSINE_RESOLUTION, against="least"),
            _rival("flat in depth", "anisotropy set by the embeddings, the same in every "
                   "block", 0.0, COSINE_RESOLUTION, against="rise")),
    family=_family(ENCODERS + DECODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_anisotropy(seed: int, theory: Theory, model: str, precision: str, windows: int,
                      tokens: int) -> Outcome:
    """The mean cosine between tokens of two windows, per block."""
    trained, initialised = _profiles(seed, model, precision, windows, tokens)
    cosine = trained.values["cross_cosine"][1:]
    first, second = _halves(cosine)
    control = initialised.values["cross_cosine"][1:].mean()
    return Outcome(
        note=_note(trained, f"cross-window cosine input "
                            f"{trained.values['cross_cosine'][0].mean():.3g}, first half "
                            f"{first.mean():.3g}, second half {second.mean():.3g} "
                            f"(initialised, all blocks {control:.3g})"),
        values={"least": _per_window(cosine.min(axis=0)),
                "rise": _per_window(second.mean(axis=0) - first.mean(axis=0)),
                "isotropic": theory.ISOTROPIC})


# --- Sun et al.: the deep blocks of a trained pre-LN LLM are closer to the identity --------

#: Resolution of a ratio of angular distances.
RATIO_RESOLUTION = 0.05


@claim(
    "sun.trained-near-identity",
    source="Sun et al. 2025, arXiv 2502.05795, §2 (the deep layers of trained pre-LN LLMs "
           "— Llama, Mistral, DeepSeek, Qwen — change their input least: smaller angular "
           "distance, little loss when pruned)",
    statement="In a trained pre-LN decoder the blocks of the second half change the hidden "
              "states less than those of the first: the mean angular distance between a "
              "block's input and output is smaller there (ratio second/first < 1).",
    presets=_presets("smollm2-135m", (8, 64), (64, 128)),
    theory=Theory(EQUAL=1.0),
    wrong_theory={"EQUAL": 0.1},
    estimate=_below("ratio", "equal", "ratio − 1",
                    "mean angular distance, second half / first half"),
    rivals=(_rival("every block alike", "no curse of depth: ratio 1", 1.0, RATIO_RESOLUTION),
            _as_initialised("ratio_initialised", RATIO_RESOLUTION)),
    family=_family(DECODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_trained_near_identity(seed: int, theory: Theory, model: str, precision: str,
                                 windows: int, tokens: int) -> Outcome:
    """Angular distance of the second half's blocks against the first half's."""
    trained, initialised = _profiles(seed, model, precision, windows, tokens)

    def ratio(profile: Any) -> np.ndarray:
        first, second = _halves(profile.values["angular_distance"])
        return second.mean(axis=0) / first.mean(axis=0)

    ratios, controls = ratio(trained), ratio(initialised)
    return Outcome(
        note=_note(trained, f"angular distance second/first half {ratios.mean():.3g} "
                            f"(initialised {controls.mean():.3g})"),
        values={"ratio": _per_window(ratios), "equal": theory.EQUAL,
                "ratio_initialised": _per_window(controls)})


# --- Csordás et al.: the second half contributes less to the residual stream -------------

#: Resolution of a share of the residual stream's change.
SHARE_RESOLUTION = 0.05


@claim(
    "csordas.second-half",
    source="Csordás, Manning & Potts 2025, arXiv 2505.13898, §3 (in trained pre-LN LLMs "
           "the layers of the second half contribute much less to the residual stream "
           "than those of the first)",
    statement="In a trained pre-LN decoder the second half of the blocks contributes less "
              "than half of the summed relative updates ‖X_{ℓ+1} − X_ℓ‖/‖X_ℓ‖.",
    presets=_presets("smollm2-135m", (8, 64), (64, 128)),
    theory=Theory(EVEN_SHARE=0.5),
    wrong_theory={"EVEN_SHARE": 0.01},
    estimate=_below("share", "even_share", "share − ½",
                    "the second half's share of Σ relative updates"),
    rivals=(_rival("depth used evenly", "every block updates the stream alike: share ½",
                   0.5, SHARE_RESOLUTION),
            _as_initialised("share_initialised", SHARE_RESOLUTION)),
    family=_family(DECODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_second_half(seed: int, theory: Theory, model: str, precision: str, windows: int,
                       tokens: int) -> Outcome:
    """The second half's share of the blocks' summed relative updates."""
    trained, initialised = _profiles(seed, model, precision, windows, tokens)

    def share(profile: Any) -> np.ndarray:
        updates = profile.values["relative_update"]
        return _halves(updates)[1].sum(axis=0) / updates.sum(axis=0)

    shares, controls = share(trained), share(initialised)
    peak = int(np.argmax(trained.values["relative_update"].mean(axis=1))) + 1
    return Outcome(
        note=_note(trained, f"second half's share {shares.mean():.3g} (initialised "
                            f"{controls.mean():.3g}); the largest update is block {peak}'s "
                            f"(of 1 … {trained.layers})"),
        values={"share": _per_window(shares), "even_share": theory.EVEN_SHARE,
                "share_initialised": _per_window(controls)})


# --- Attention sinks ------------------------------------------------------------------------

#: Resolution of the sink mass, in multiples of the uniform mass.
SINK_RESOLUTION = 0.5


@claim(
    "xiao.attention-sink",
    source="Xiao et al. 2024, arXiv 2309.17453, §3.1 (attention sinks: trained LLMs put "
           "much of every head's attention on the first token); Barbero et al. 2025, arXiv "
           "2504.02732 (sinks keep deep stacks from over-mixing)",
    statement="In a trained transformer the attention mass on the first token, averaged "
              "over blocks, heads and rows, is a multiple of what uniform attention gives "
              "it (1/T, or for causal attention the mean of 1/(t+1)).",
    presets=_presets("minilm-l6", (16, 64), (64, 128)),
    theory=Theory(UNIFORM=1.0),
    wrong_theory={"UNIFORM": 100.0},
    estimate=_above("multiple", "uniform", "multiple − 1",
                    "first-token attention mass / uniform attention's"),
    rivals=(_rival("uniform attention", "no sink: the first token gets its uniform share",
                   1.0, SINK_RESOLUTION),
            _as_initialised("multiple_initialised", SINK_RESOLUTION)),
    family=_family(ENCODERS + DECODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_attention_sink(seed: int, theory: Theory, model: str, precision: str,
                          windows: int, tokens: int) -> Outcome:
    """The first token's attention mass over the uniform mass, trained and initialised."""
    from attndepth.pytorch.pretrained import TRAINED_MODELS
    from attndepth.simulations.measures.layer_change import uniform_sink_mass

    trained, initialised = _profiles(seed, model, precision, windows, tokens)
    uniform = uniform_sink_mass(trained.tokens, TRAINED_MODELS[model].causal)
    multiples = trained.values["sink_mass"].mean(axis=0) / uniform
    controls = initialised.values["sink_mass"].mean(axis=0) / uniform
    return Outcome(
        note=_note(trained, f"first-token mass {multiples.mean():.3g} × uniform "
                            f"({uniform:.3g}); initialised {controls.mean():.3g} ×"),
        values={"multiple": _per_window(multiples), "uniform": theory.UNIFORM,
                "multiple_initialised": _per_window(controls)})


# --- Massive activations ----------------------------------------------------------------------

#: Resolution of log10 of the first token's norm ratio.
LOG_RATIO_RESOLUTION = 0.3


@claim(
    "sun.massive-activations",
    source="Sun, Chen, Kolter & Liu 2024, arXiv 2402.17762, §2 (trained LLMs carry massive "
           "activations, on the first token among others, from the early layers through "
           "the middle ones)",
    statement="In a trained decoder the first token's hidden state is, at its largest over "
              "the blocks, more than ten times longer than the median token's.",
    presets=_presets("smollm2-135m", (8, 64), (64, 128)),
    theory=Theory(TENFOLD=1.0),
    wrong_theory={"TENFOLD": 4.0},
    estimate=_above("log_ratio", "tenfold", "log10 ratio − 1",
                    "log10 of the largest first-token / median norm ratio"),
    rivals=(_rival("no massive token", "the first token as long as the others: ratio 1",
                   0.0, LOG_RATIO_RESOLUTION),
            _as_initialised("log_ratio_initialised", LOG_RATIO_RESOLUTION)),
    family=_family(DECODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_massive_activations(seed: int, theory: Theory, model: str, precision: str,
                               windows: int, tokens: int) -> Outcome:
    """The largest first-token norm ratio over the blocks, trained and initialised."""
    trained, initialised = _profiles(seed, model, precision, windows, tokens)

    def peak(profile: Any) -> np.ndarray:
        return np.log10(profile.values["first_token_ratio"][1:].max(axis=0))

    peaks, controls = peak(trained), peak(initialised)
    block = int(np.argmax(trained.values["first_token_ratio"][1:].mean(axis=1))) + 1
    return Outcome(
        note=_note(trained, f"largest first-token norm ratio {10 ** peaks.mean():.3g} "
                            f"(geometric mean over windows; after block {block}), initialised "
                            f"{10 ** controls.mean():.3g}"),
        values={"log_ratio": _per_window(peaks), "tenfold": theory.TENFOLD,
                "log_ratio_initialised": _per_window(controls)})


# --- Dong et al.: no rank collapse in trained networks with skips ----------------------------

#: Resolution of Dong's relative residual.
RESIDUAL_RESOLUTION = 0.05


@claim(
    "dong.trained-no-collapse",
    source="Dong, Cordonnier & Loukas 2021, arXiv 2103.03404, §3 and §4 (skip connections "
           "and MLPs keep trained transformers from rank collapse)",
    statement="In a trained transformer with skip connections the token matrix never "
              "approaches rank one: Dong's relative residual ‖X − 1x̄ᵀ‖²_F/‖X‖²_F = 1 − "
              "t_sim stays away from 0 at every block.",
    presets=_presets("minilm-l6", (16, 64), (64, 128)),
    theory=Theory(COLLAPSED=0.0),
    wrong_theory={"COLLAPSED": 0.95},
    estimate=_above("least", "collapsed", "least residual over blocks",
                    "the least, over blocks, of 1 − t_sim"),
    rivals=(_rival("rank collapse", "Dong's collapse: the residual → 0 with depth", 0.0,
                   RESIDUAL_RESOLUTION),),
    family=_family(ENCODERS + DECODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_trained_no_collapse(seed: int, theory: Theory, model: str, precision: str,
                               windows: int, tokens: int) -> Outcome:
    """The least relative residual 1 − t_sim over the blocks; the stable rank beside it."""
    trained, initialised = _profiles(seed, model, precision, windows, tokens)
    least = (1.0 - trained.values["t_sim"][1:]).min(axis=0)
    control = (1.0 - initialised.values["t_sim"][1:]).min(axis=0)
    stable = trained.values["stable_rank"][1:].min(axis=0)
    return Outcome(
        note=_note(trained, f"least 1 − t_sim {least.mean():.3g} (initialised "
                            f"{control.mean():.3g}); least stable rank {stable.mean():.4g}"),
        values={"least": _per_window(least), "collapsed": theory.COLLAPSED,
                "least_stable_rank": _per_window(stable)})


# --- Sun et al.: the hidden states' variance grows with depth in a trained pre-LN LLM --------

#: Resolution of log2 of a variance ratio.
GROWTH_RESOLUTION = 0.25


@claim(
    "sun.trained-variance-growth",
    source="Sun et al. 2025, arXiv 2502.05795, §3.1 (the output variance of a pre-LN "
           "Transformer grows with depth, Θ(L) ≤ σ²_{x_L} ≤ Θ(exp L); §2 shows it in "
           "trained LLMs)",
    statement="In a trained pre-LN decoder the hidden states' variance grows with depth at "
              "least linearly: σ² after the last block is at least twice σ² after the "
              "middle one (log2 σ²_L/σ²_{L/2} ≥ 1, the lower bound Θ(L)).",
    presets=_presets("smollm2-135m", (8, 64), (64, 128)),
    theory=Theory(LINEAR=1.0),
    wrong_theory={"LINEAR": -5.0},
    estimate=_above("log_growth", "linear", "log2 growth − 1",
                    "log2 σ²_L/σ²_{L/2}, the hidden variance across the width"),
    rivals=(_rival("no growth", "the variance flat in the second half: log2 ratio 0", 0.0,
                   GROWTH_RESOLUTION),
            _as_initialised("log_growth_initialised", GROWTH_RESOLUTION)),
    family=_family(DECODERS),
    test=f"{TESTS}::test_the_trained_claims_hold_at_their_quick_presets_at_five_base_seeds",
    by_default=False,
)
def verify_trained_variance_growth(seed: int, theory: Theory, model: str, precision: str,
                                   windows: int, tokens: int) -> Outcome:
    """log2 of the hidden variance after the last block over that after the middle one."""
    trained, initialised = _profiles(seed, model, precision, windows, tokens)

    def growth(profile: Any) -> np.ndarray:
        variance = profile.values["variance"]
        return np.log2(variance[-1] / variance[profile.layers // 2])

    growths, controls = growth(trained), growth(initialised)
    peak = int(np.argmax(trained.values["variance"].mean(axis=1)))
    return Outcome(
        note=_note(trained, f"log2 σ²_L/σ²_L/2 {growths.mean():.3g} (initialised "
                            f"{controls.mean():.3g}); the variance peaks after block {peak}"),
        values={"log_growth": _per_window(growths), "linear": theory.LINEAR,
                "log_growth_initialised": _per_window(controls)})
