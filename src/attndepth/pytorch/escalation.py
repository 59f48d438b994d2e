"""The escalation trace of a real architecture: the claims' measurement on torch models.

:func:`architecture_trace` gives, for a model of :mod:`attndepth.pytorch.architectures`,
the same :class:`~attndepth.simulations.measures.escalation.EscalationTrace` that
:func:`~attndepth.simulations.measures.escalation.escalation_trace` gives for
attndepth's own stacks: log-odds and t_sim of every block's output and the contraction
s² of every block's attention, with one column per independently initialised model
(stack k of seed s is the model built from the k-th child of ``SeedSequence(s)`` and
run on one sequence drawn from the same child), so that a claim can put a
real architecture where it puts a stack.
"""

from __future__ import annotations

import numpy as np

from attndepth.environment import setting
from attndepth.errors import InvalidParameter, InvalidType
from attndepth.pytorch.architectures import build, known_architectures, random_inputs
from attndepth.pytorch.loading import check_device
from attndepth.pytorch.observe import observe
from attndepth.simulations.measures.escalation import EscalationTrace, diversity_contraction
from attndepth.simulations.measures.similarity import similarity_and_log_odds
from attndepth.validation import check_choice, check_int, check_seed

#: The architectures whose blocks put the norm after the residual sum.
POST_NORM: tuple[str, ...] = ("bert", "encoder-post")
#: Those whose blocks put it before the branch.
PRE_NORM: tuple[str, ...] = ("gpt2", "llama", "encoder-pre")
#: The environment variable naming the device the models run on (``cpu``, the default,
#: or ``cuda``): the claims' members run on a GPU without a parameter of their own.
DEVICE_VARIABLE = "ATTNDEPTH_TORCH_DEVICE"


def trace_device() -> str:
    """The device of :func:`architecture_trace`: ``$ATTNDEPTH_TORCH_DEVICE``, else ``cpu``.

    Returns
    -------
    str
        ``cpu`` or ``cuda`` (``cuda:N``); anything else, or ``cuda`` where torch sees no
        GPU, raises :class:`~attndepth.errors.InvalidParameter` naming the variable.
    """
    asked = setting(DEVICE_VARIABLE) or "cpu"
    try:
        return check_device(asked)
    except InvalidParameter as error:
        raise InvalidParameter(f"${DEVICE_VARIABLE}: {error}") from None


def model_seed(seed: int, stack: int) -> int:
    """The seed of model ``stack`` of sample ``seed``: a child of ``SeedSequence(seed)``.

    Parameters
    ----------
    seed : int >= 0
    stack : int >= 0

    Returns
    -------
    int in [0, 2^63): a ``torch.manual_seed`` and ``torch.Generator`` seed.
    """
    seed, stack = check_seed("seed", seed), check_int("stack", stack, minimum=0)
    child = np.random.SeedSequence(seed).spawn(stack + 1)[stack]
    return int(child.generate_state(1, np.uint64)[0] >> np.uint64(1))


def architecture_trace(architecture: str, *, depth: int, tokens: int, width: int,
                       heads: int, batch: int, seed: int,
                       contraction: bool = True,
                       init_std: float | None = None) -> EscalationTrace:
    """Log-odds, t_sim and s² per layer of ``batch`` models of ``architecture``.

    Each model is built at its authors' initialisation
    (:func:`~attndepth.pytorch.architectures.build`) from :func:`model_seed` and
    observed on one random sequence (token ids for the Hugging Face models, Gaussian
    embeddings for the ``torch.nn`` stacks) in float64, on :func:`trace_device`: the
    weights are drawn on the CPU whatever the device, so a GPU runs the same models and
    differs only by the forward pass's rounding.

    Parameters
    ----------
    architecture : one of :data:`~attndepth.pytorch.architectures.ARCHITECTURES`.
    depth, tokens, width, heads : L, n, d, H.
    batch : the number of models (the trace's columns).
    seed : the sample's seed.
    contraction : whether to observe the attention and measure s² (pre-norm models:
        of the block's input before its norm, not of the attention's own input).
    init_std : None, or the σ of a Hugging Face model's initialisation
        (:func:`~attndepth.pytorch.architectures.build`).

    Returns
    -------
    EscalationTrace
        ``log_odds`` and ``similarity`` (depth + 1, batch) with row 0 the first block's
        input (the embeddings' output); ``contraction`` (depth, batch), empty (0, batch)
        without ``contraction``.

    Raises
    ------
    MissingExtra
        Without torch (or ``transformers`` for a Hugging Face architecture).
    """
    check_choice("architecture", architecture, known_architectures())
    batch = check_int("batch", batch, minimum=1)
    seed = check_seed("seed", seed)
    if not isinstance(contraction, bool):
        raise InvalidType(f"contraction must be True or False, got {contraction!r}")
    device = trace_device()
    states, contractions = [], []
    for stack in range(batch):
        stack_seed = model_seed(seed, stack)
        model = build(architecture, width=width, depth=depth, heads=heads, tokens=tokens,
                      seed=stack_seed, init_std=init_std)
        inputs = random_inputs(architecture, batch=1, tokens=tokens, width=width,
                               seed=stack_seed)
        seen = observe(model, inputs, attention=contraction, device=device)
        states.append(seen.states[:, 0])
        if contraction and seen.attention is not None:
            contractions.append([diversity_contraction(seen.states[layer], seen.attention[layer])
                                 [0] for layer in range(depth)])
    X = np.stack(states, axis=1)  # (depth + 1, batch, tokens, width)
    s2 = np.array(contractions).T if contractions else np.empty((0, batch))
    similarity, odds = similarity_and_log_odds(X)
    return EscalationTrace(odds, similarity, s2)
