"""Real architectures as members of the similarity claims' families.

A claim about transformers at initialisation takes a parameter ``architecture``:
``"attndepth"`` (the default: its own Gaussian stack, the derivation's block) or a
model of :mod:`attndepth.pytorch.architectures` built at its authors' initialisation
(needs ``attndepth[torch]``, and ``attndepth[hf]`` for GPT-2, BERT and LLaMA). Both
give the same :class:`~attndepth.simulations.measures.escalation.EscalationTrace`, so a
claim measures a real model exactly as it measures a stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attndepth.errors import InvalidParameter
from attndepth.pytorch.escalation import POST_NORM, PRE_NORM, architecture_trace
from attndepth.simulations.measures.escalation import EscalationTrace, escalation_trace
from attndepth.simulations.models.stacks import StackConfig
from attndepth.validation import check_choice

#: attndepth's own stack: the architecture every preset measures.
OWN = "attndepth"
#: The post-LN reference of each pre-norm architecture in ``yuzhang.preln``: its twin with
#: the norm moved (``torch.nn``'s ``norm_first``), or the post-LN model built by the same
#: library at the same N(0, 0.02²) initialisation (BERT for GPT-2 and LLaMA).
POST_LN_REFERENCE: Mapping[str, str] = {"encoder-pre": "encoder-post", "gpt2": "bert",
                                        "llama": "bert"}


def users_models() -> tuple[str, ...]:
    """The names of the models users registered (``--model``,
    :func:`~attndepth.pytorch.architectures.register_model`): measured as the claim's
    variant asks (attndepth cannot see where a model normalises). Empty without torch."""
    try:
        from attndepth.pytorch.architectures import MODELS
    except ImportError:
        return ()
    return tuple(MODELS)


def with_architecture(table: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """A claim's presets with ``architecture`` = :data:`OWN` added to each."""
    return {name: {**preset, "architecture": OWN} for name, preset in table.items()}


def trace(architecture: str, variant: str, *, depth: int, tokens: int, width: int,
          heads: int = 1, batch: int, seed: int, init_std: float | None = None,
          contraction: bool = True) -> EscalationTrace:
    """The escalation trace of ``batch`` stacks (or models) of one architecture.

    Parameters
    ----------
    architecture : :data:`OWN` or one of ``POST_NORM + PRE_NORM``.
    variant : ``post-ln`` or ``pre-ln``: the block of attndepth's own stack, and the norm
        placement a real architecture must have (a BERT is not a pre-LN member).
    depth, tokens, width, heads, batch, seed : as
        :func:`~attndepth.simulations.measures.escalation.escalation_trace` takes them.
    init_std : None, or σ of a Hugging Face architecture's initialisation (refused for
        attndepth's own stack, whose weights are N(0, 1/d)).
    contraction : whether a real architecture's attention is observed for s².

    Returns
    -------
    EscalationTrace
        (depth + 1, batch) log-odds and t_sim, (depth, batch) s².
    """
    variant = check_choice("variant", variant, ("post-ln", "pre-ln"))
    placed = POST_NORM if variant == "post-ln" else PRE_NORM
    architecture = check_choice("architecture", architecture, (OWN, *placed, *users_models()))
    if architecture == OWN:
        if init_std is not None:
            raise InvalidParameter("init_std is for the Hugging Face architectures; "
                                   "attndepth's own stack draws N(0, 1/d) weights")
        config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=width,
                             heads=heads, sampling="law")
        return escalation_trace(config, batch, seed)
    return architecture_trace(architecture, depth=depth, tokens=tokens, width=width,
                              heads=heads, batch=batch, seed=seed, init_std=init_std,
                              contraction=contraction)
