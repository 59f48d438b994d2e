"""Measurements of token-similarity escalation on softmax stacks (docs/theory.md §3–4).

Each function runs stacks from ``attndepth.simulations.models.stacks`` and returns the raw
per-layer quantities a claim compares with ``attndepth.theory.similarity`` /
``attndepth.theory.rank_collapse``; nothing here knows the predictions.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidType
from attndepth.simulations.measures.similarity import (
    attention_spectra,
    dong_residual,
    log_odds,
    norm_1_inf,
    similarity_and_log_odds,
    token_diversity,
)
from attndepth.simulations.models.blocks import NUMPY, branch_input
from attndepth.simulations.models.stacks import (
    StackConfig,
    attention_output,
    draw_run,
    draw_stack,
    draws_per_layer,
    iterate_stack,
    run_stack,
)
from attndepth.simulations.seeding import gaussian_tokens
from attndepth.simulations.threads import single_threaded_blas
from attndepth.validation import MAX_ELEMENTS, check_int, check_seed


@dataclass(frozen=True)
class FixedMatrixDecay:
    """One attention matrix applied repeatedly: X_l = P^l X.

    diversity : (depth + 1, batch) t_div per layer.
    lambda2 : (batch,) |λ₂(P)|.
    """

    diversity: np.ndarray
    lambda2: np.ndarray


def fixed_matrix_decay(tokens: int, width: int, depth: int, batch: int, seed: int,
                       temperature: float = 0.5) -> FixedMatrixDecay:
    """Draw one softmax P per stack (from random tokens) and iterate X ← P X."""
    config = StackConfig(variant="pure", depth=1, tokens=tokens, width=width,
                         temperature=temperature)
    P = run_stack(config, batch, seed, keep_attention=True).kept_attention()[0, :, 0]
    X = gaussian_tokens(seed + 1, batch, tokens, width)
    diversity = [token_diversity(X)]
    for _ in range(depth):
        X = P @ X
        diversity.append(token_diversity(X))
    return FixedMatrixDecay(np.array(diversity), attention_spectra(P)["lambda2"])


@dataclass(frozen=True)
class EscalationTrace:
    """Per-layer similarity of a batch of stacks.

    Attributes
    ----------
    log_odds, similarity : array, shape (depth + 1, batch)
        ln(t_sim/t_div) and t_sim of each layer's output (row 0: the input).
    contraction : array, shape (depth, batch)
        s² = ‖(I−Π)P D‖²/‖D‖² averaged over heads, with D = (I−Π)X the block
        input's diversity part.
    """

    log_odds: np.ndarray
    similarity: np.ndarray
    contraction: np.ndarray


#: Stacks run at once by :func:`escalation_trace`: bounds its memory (weights grow
#: as depth·d²·stacks) without changing any number (stack k depends on (seed, k) only).
TRACE_CHUNK = 16


def diversity_contraction(inputs: np.ndarray, attention: np.ndarray) -> np.ndarray:
    """s² = ‖(I−Π)P D‖²/‖D‖² averaged over heads, D = (I−Π)X the diversity part of X.

    How much of the input's diversity part each head's attention keeps (Yu & Zhang
    2023, §3: the contraction behind the escalation rate; s = 0 for a rank-one P).

    Parameters
    ----------
    inputs : array, shape (batch, tokens, width)
        X, the attention's input.
    attention : array, shape (batch, heads, tokens, tokens)
        The row-stochastic P of each head.

    Returns
    -------
    array, shape (batch,)
    """
    D = inputs - inputs.mean(axis=-2, keepdims=True)
    PD = attention @ D[:, None]
    PD -= PD.mean(axis=-2, keepdims=True)
    ratio = np.sum(PD * PD, axis=(-2, -1)) / np.maximum(np.sum(D * D, axis=(-2, -1))[:, None],
                                                        np.finfo(float).tiny)
    return ratio.mean(axis=1)


def escalation_trace(config: StackConfig, batch: int, seed: int) -> EscalationTrace:
    """Run stacks and record log-odds, t_sim and the realised contraction s².

    Stacks run in chunks of :data:`TRACE_CHUNK`, fewer where one chunk's weights would
    pass the size limit (wide, deep stacks); the result is the same as one batch.
    The last :data:`TRACES_KEPT` traces are remembered (read-only arrays): a claim's
    rivals and every variant that asks for the same stacks again get them at once.
    """
    if not isinstance(config, StackConfig):
        raise InvalidType(f"config must be a StackConfig, got {type(config).__name__}")
    batch, seed = check_int("batch", batch, minimum=1), check_seed("seed", seed)
    try:
        hash(config)
    except TypeError:  # a user sublayer that cannot be hashed: measured, not kept
        return _remembered_trace.__wrapped__(config, batch, seed)
    return _remembered_trace(config, batch, seed)


#: Escalation traces kept by :func:`escalation_trace` (each (depth + 1) × batch × 3 floats).
TRACES_KEPT = 64


@functools.lru_cache(maxsize=TRACES_KEPT)
def _remembered_trace(config: StackConfig, batch: int, seed: int) -> EscalationTrace:
    per_stack = max(1, config.depth * draws_per_layer(config))
    chunk = max(1, min(TRACE_CHUNK, MAX_ELEMENTS // per_stack))
    chunks = [_escalation_chunk(config, min(chunk, batch - first), seed, first)
              for first in range(0, batch, chunk)]
    arrays = [np.concatenate([getattr(c, name) for c in chunks], axis=1)
              for name in ("log_odds", "similarity", "contraction")]
    for array in arrays:
        array.flags.writeable = False
    return EscalationTrace(*arrays)


def _escalation_chunk(config: StackConfig, batch: int, seed: int,
                      first: int) -> EscalationTrace:
    weights, X0 = draw_run(config, batch, seed, first)
    first_similarity, first_odds = similarity_and_log_odds(X0)
    odds, similarity, contraction = [first_odds], [first_similarity], []
    for record in iterate_stack(config, weights, X0):
        contraction.append(diversity_contraction(record.inputs, record.attention))
        layer_similarity, layer_odds = similarity_and_log_odds(record.outputs)
        odds.append(layer_odds)
        similarity.append(layer_similarity)
    return EscalationTrace(np.array(odds), np.array(similarity), np.array(contraction))


@dataclass(frozen=True)
class ContractionSample:
    """One attention sublayer X′ = Σ_h P_h X W_h per (layer, stack).

    r_in, r_out : (samples,) r = ‖(I−Π)X‖/‖ΠX‖ before and after.
    sigma2, leakage, head_norms : (samples, heads) σ₂(P_h), ℓ(P_h), ‖W_h‖₂.
    smallest_singular : (samples,) σ_min(Σ_h W_h).
    """

    r_in: np.ndarray
    r_out: np.ndarray
    sigma2: np.ndarray
    leakage: np.ndarray
    head_norms: np.ndarray
    smallest_singular: np.ndarray


def _ratio(X: np.ndarray) -> np.ndarray:
    mean = X.mean(axis=-2, keepdims=True)
    centred = X - mean
    mean_norm = np.sqrt(X.shape[-2] * np.sum(mean * mean, axis=(-2, -1)))
    return np.linalg.norm(centred, axis=(-2, -1)) / np.maximum(mean_norm, np.finfo(float).tiny)


def contraction_samples(config: StackConfig, batch: int, seed: int) -> ContractionSample:
    """Apply each layer's attention map to that layer's input along a stack's trajectory."""
    weights, X0 = draw_stack(config, batch, seed)
    heads, dk = config.heads, config.head_dim
    fields: dict[str, list] = {k: [] for k in ("r_in", "r_out", "sigma2", "leakage", "norms",
                                               "smin")}
    with single_threaded_blas():
        for record in iterate_stack(config, weights, X0):
            layer = record.layer
            X = branch_input(NUMPY, config.block, record.inputs, layer)  # what attention read
            P = record.attention  # the block's own attention (masks included)
            update = attention_output(X, P, weights.value[:, layer], weights.output[:, layer])
            value, output = weights.value[:, layer], weights.output[:, layer]
            per_head = np.stack([value[:, :, h * dk:(h + 1) * dk] @ output[:, h * dk:(h + 1) * dk]
                                 for h in range(heads)], axis=1)  # (batch, heads, d, d)
            spectra = attention_spectra(P)
            fields["r_in"].append(_ratio(X))
            fields["r_out"].append(_ratio(update))
            fields["sigma2"].append(spectra["sigma2"])
            fields["leakage"].append(spectra["leakage"])
            fields["norms"].append(np.linalg.norm(per_head, ord=2, axis=(-2, -1)))
            fields["smin"].append(np.linalg.svd(per_head.sum(axis=1), compute_uv=False)[:, -1])
    return ContractionSample(
        r_in=np.concatenate(fields["r_in"]), r_out=np.concatenate(fields["r_out"]),
        sigma2=np.concatenate(fields["sigma2"]), leakage=np.concatenate(fields["leakage"]),
        head_norms=np.concatenate(fields["norms"]),
        smallest_singular=np.concatenate(fields["smin"]),
    )


@dataclass(frozen=True)
class LayerNormEffects:
    """LayerNorm against Π on the pre-normalisation states of a post-LN stack.

    Attributes
    ----------
    centring_commutator : float
        max ‖Π(YC) − (ΠY)C‖ / ‖Y‖ (should be round-off).
    scaling_commutator, scale_spread : array, shape (samples,)
        ‖[Π, D⁻¹]‖₂ measured, and the population std of the inverse token
        scales (equal by theory).
    log_odds_change : array, shape (samples,)
        log-odds(D⁻¹YC) − log-odds(YC), the scaling step's effect on the
        log-odds in one layer.
    """

    centring_commutator: float
    scaling_commutator: np.ndarray
    scale_spread: np.ndarray
    log_odds_change: np.ndarray


def layer_norm_effects(config: StackConfig, batch: int, seed: int) -> LayerNormEffects:
    """Decompose each block's LN into centring (right) and scaling (left) and measure both."""
    weights, X0 = draw_stack(config, batch, seed)
    n, d = config.tokens, config.width
    C = np.eye(d) - np.ones((d, d)) / d
    Pi = np.full((n, n), 1.0 / n)
    worst, commutators, spreads, changes = 0.0, [], [], []
    for record in iterate_stack(config, weights, X0):
        P = record.attention
        Y = record.inputs + attention_output(record.inputs, P, weights.value[:, record.layer],
                                             weights.output[:, record.layer])
        centred = Y @ C
        gap = np.abs(Pi @ centred - (Pi @ Y) @ C).max() / np.abs(Y).max()
        worst = max(worst, float(gap))
        inverse = 1.0 / np.sqrt((centred * centred).mean(axis=-1) + 1e-5)  # (batch, n)
        commutator = Pi * inverse[:, None, :] - inverse[:, :, None] * Pi
        with single_threaded_blas():
            commutators.append(np.linalg.norm(commutator, ord=2, axis=(-2, -1)))
        spreads.append(inverse.std(axis=-1))
        changes.append(log_odds(inverse[..., None] * centred) - log_odds(centred))
    return LayerNormEffects(worst, np.concatenate(commutators), np.concatenate(spreads),
                            np.concatenate(changes))


def relative_residuals(config: StackConfig, batch: int, seed: int) -> dict[str, np.ndarray]:
    """Dong's residual per layer: Frobenius ‖res(X)‖/‖X‖ and ℓ1,∞ ‖res(X)‖.

    Returns arrays (depth + 1, batch) under keys ``frobenius`` (relative) and
    ``norm_1_inf`` (absolute, as in Dong et al.'s bound).
    """
    states = run_stack(config, batch, seed).states
    residual = dong_residual(states)
    relative = np.linalg.norm(residual, axis=(-2, -1)) / np.maximum(
        np.linalg.norm(states, axis=(-2, -1)), np.finfo(float).tiny)
    return {"frobenius": relative, "norm_1_inf": norm_1_inf(residual)}
