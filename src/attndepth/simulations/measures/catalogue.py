"""The catalogue of observables: what a declared claim can measure on a stack, by name.

Each observable measures one number per stack of a seed: a
:class:`~attndepth.simulations.models.stacks.StackConfig` (any block
specification), a batch size and a seed in, an array of shape ``(batch,)`` out.
A declarative claim (:func:`attndepth.framework.declarative.derived_claim`)
compares the mean over a seed's stacks with its SymPy prediction; the
per-stack values give the standard error.

=====================  =============================================================
name                   what it measures (per stack)
=====================  =============================================================
``log_odds_slope``     the slope per layer of ln(t_sim/t_div), fitted over the layers
                       where the median log-odds lie in [3, 50] (the escalation rate;
                       Yu & Zhang 2023, §3)
``collapse_rate``      the same slope over [−50, 50] after 4 layers (pure attention:
                       Dong et al. 2021's collapse, may be negative)
``t_sim_final``        t_sim = ‖ΠX‖²/‖X‖² of the last state (the similarity limit)
``cosine_final``       mean pairwise cosine of the last state's tokens
``stable_rank_final``  ‖X‖_F²/‖X‖₂² of the last state (between 1 and min(n, d))
``attention_s2``       σ₂ = ‖(I−Π)P(I−Π)‖₂ of the last block's attention, mean over
                       heads (Naderi et al.'s spectral gap observable)
``contraction_s``      the realised diversity contraction s = ‖(I−Π)PD‖/‖D‖, median
                       over the blocks (the s of the post-LN rate)
=====================  =============================================================

Shapes: the stack's states are ``(depth + 1, batch, tokens, width)``; every
observable returns ``(batch,)`` float64. Observables that fit a window raise
an :class:`~attndepth.errors.InvalidParameter` naming the fix (a deeper
stack) when the stack never enters it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.measures.escalation import escalation_trace
from attndepth.simulations.measures.fitting import escalation_rates
from attndepth.simulations.measures.similarity import (
    attention_spectra,
    log_odds,
    mean_pairwise_cosine,
    stable_rank,
    token_similarity,
)
from attndepth.simulations.models.stacks import StackConfig, run_stack


@dataclass(frozen=True)
class Observable:
    """One entry of the catalogue.

    Attributes
    ----------
    name : str
    description : str
        What it measures, one line (``attndepth.framework.declarative`` reports it).
    measure : callable ``(config, batch, seed) -> array (batch,)``
    """

    name: str
    description: str
    measure: Callable[[StackConfig, int, int], np.ndarray]


def _last_state(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    return run_stack(config, batch, seed).states[-1]


def _slope(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    return escalation_rates(escalation_trace(config, batch, seed).log_odds)


def _collapse(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    if config.depth < 7:
        raise InvalidParameter(f"collapse_rate fits after 4 layers: depth must be >= 7, got "
                               f"{config.depth}")
    return escalation_rates(log_odds(run_stack(config, batch, seed).states)[4:], (-50.0, 50.0))


def _stable_rank(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    return stable_rank(_last_state(config, batch, seed))


def _attention_s2(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    if config.depth < 1:
        raise InvalidParameter("attention_s2 needs a block: depth must be >= 1")
    trajectory = run_stack(config, batch, seed, keep_attention=True)
    P = trajectory.kept_attention()[-1]  # (batch, heads, n, n)
    return attention_spectra(P)["sigma2"].mean(axis=-1)


def _contraction(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    if config.depth < 1:
        raise InvalidParameter("contraction_s needs a block: depth must be >= 1")
    return np.sqrt(np.median(escalation_trace(config, batch, seed).contraction, axis=0))


#: Every observable by name.
OBSERVABLES: dict[str, Observable] = {entry.name: entry for entry in (
    Observable("log_odds_slope", "slope per layer of ln(t_sim/t_div) in the escalation "
               "window [3, 50]", _slope),
    Observable("collapse_rate", "slope per layer of ln(t_sim/t_div) over [−50, 50] after 4 "
               "layers", _collapse),
    Observable("t_sim_final", "t_sim = ‖ΠX‖²/‖X‖² of the last state",
               lambda c, b, s: token_similarity(_last_state(c, b, s))),
    Observable("cosine_final", "mean pairwise cosine of the last state's tokens",
               lambda c, b, s: mean_pairwise_cosine(_last_state(c, b, s))),
    Observable("stable_rank_final", "stable rank ‖X‖_F²/‖X‖₂² of the last state", _stable_rank),
    Observable("attention_s2", "σ₂ = ‖(I−Π)P(I−Π)‖₂ of the last block's attention, mean "
               "over heads", _attention_s2),
    Observable("contraction_s", "realised diversity contraction s, median over the blocks",
               _contraction),
)}


def measure(name: str, config: StackConfig, batch: int, seed: int) -> np.ndarray:
    """The observable ``name`` of ``batch`` stacks of ``config`` drawn from ``seed``.

    Parameters
    ----------
    name : a key of :data:`OBSERVABLES`
    config : StackConfig
    batch : int >= 1
    seed : int >= 0

    Returns
    -------
    array, shape (batch,), float64
    """
    if not isinstance(name, str) or name not in OBSERVABLES:
        import difflib

        close = difflib.get_close_matches(str(name), list(OBSERVABLES), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise InvalidParameter(f"unknown observable {name!r}{hint} (known: "
                               f"{', '.join(OBSERVABLES)})")
    values = np.asarray(OBSERVABLES[name].measure(config, batch, seed), dtype=float)
    if values.shape != (batch,):
        raise AssertionError(f"observable {name} returned shape {values.shape}")  # a bug
    return values
