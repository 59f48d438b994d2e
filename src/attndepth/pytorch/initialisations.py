"""The gains of each architecture's block, read from its own configuration.

What the architecture claims predict with
(:class:`~attndepth.simulations.models.gram_recursion.BlockGains`): for the Hugging Face
models the configuration :func:`~attndepth.pytorch.architectures.build` makes (its
``initializer_range`` σ, ``hidden_act``, FFN width and layer count; every weight
N(0, σ²), biases 0, GPT-2's residual projections σ/√(2L) — the libraries'
``_init_weights``); for the ``torch.nn`` encoders PyTorch's default initialisation
(projections Xavier-uniform, variance 2/(d + 3d); the output projection and the FFN's
linears Kaiming-uniform with a = √5, variance 1/(3 fan-in), their biases uniform of
variance 1/(3 fan-in); ``TransformerEncoder`` copies one initialised layer into every
block). ``tests/test_pytorch_initialisations.py`` checks each number against the
weights of built models.
"""

from __future__ import annotations

from attndepth.errors import InvalidParameter
from attndepth.pytorch.architectures import (
    ARCHITECTURES,
    DEFAULT_VOCABULARY,
    FFN_EXPANSION,
    HUGGING_FACE,
    huggingface_config,
)
from attndepth.simulations.models.gram_recursion import BlockGains
from attndepth.validation import check_choice, check_int

#: The Hugging Face ``hidden_act`` names and the activation of their kernel.
HIDDEN_ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
                      "relu": "relu", "silu": "silu"}


def _activation(name: object) -> str:
    if not isinstance(name, str) or name not in HIDDEN_ACTIVATIONS:
        raise InvalidParameter(f"no kernel for the activation {name!r} (derived for "
                               f"{', '.join(HIDDEN_ACTIVATIONS)})")
    return HIDDEN_ACTIVATIONS[name]


def block_gains(architecture: str, *, width: int, depth: int, heads: int = 1,
                tokens: int = 2, init_std: float | None = None) -> BlockGains:
    """The gains of ``architecture``'s blocks at this size, from its configuration.

    Parameters
    ----------
    architecture : one of :data:`~attndepth.pytorch.architectures.ARCHITECTURES`
        (registered models have no configuration attndepth can read: refused).
    width, depth, heads, tokens : d, L, H, n (as :func:`~attndepth.pytorch.architectures.build`
        takes them; L sets GPT-2's residual scaling).
    init_std : None (σ = 0.02) or a Hugging Face model's σ.

    Returns
    -------
    BlockGains
        With ``source`` naming what was read.

    Raises
    ------
    InvalidParameter
        A registered model, or an activation without a kernel.
    MissingExtra
        Without ``transformers`` for a Hugging Face architecture.
    """
    architecture = check_choice("architecture", architecture, ARCHITECTURES)
    d = check_int("width", width, minimum=2)
    depth = check_int("depth", depth, minimum=1)
    if architecture not in HUGGING_FACE:
        if init_std is not None:
            raise InvalidParameter(f"init_std is for the Hugging Face architectures; "
                                   f"{architecture!r} has PyTorch's own initialisation")
        hidden = FFN_EXPANSION * d
        return BlockGains(
            placement="post" if architecture == "encoder-post" else "pre", norm_kind="layer",
            causal=False, attention_gain=d * (1 / (2 * d)) * d * (1 / (3 * d)),
            activation="relu", ffn_output_gain=hidden / (3 * hidden),
            preactivation_variance=d / (3 * d), preactivation_bias_variance=1 / (3 * d),
            output_bias_variance=1 / (3 * hidden), input_scale=1.0, shared_layers=True,
            source="PyTorch's default initialisation (Xavier-uniform in-projection, "
                   "Kaiming-uniform a=√5 linears and biases); one layer copied L times")
    config = huggingface_config(architecture, d, depth, heads, max(tokens, 2),
                                DEFAULT_VOCABULARY, init_std)
    sigma2 = float(config.initializer_range) ** 2
    source = f"{type(config).__name__}: initializer_range {config.initializer_range:g}"
    if architecture == "bert":
        hidden = int(config.intermediate_size)
        return BlockGains(
            placement="post", norm_kind="layer", causal=False,
            attention_gain=(d * sigma2) ** 2, activation=_activation(config.hidden_act),
            ffn_output_gain=hidden * sigma2, preactivation_variance=d * sigma2,
            input_scale=1.0, source=f"{source}, hidden_act {config.hidden_act}, "
                                    f"intermediate_size {hidden}")
    if architecture == "gpt2":
        hidden = int(config.n_inner or FFN_EXPANSION * d)
        projection = sigma2 / (2 * int(config.n_layer))
        return BlockGains(
            placement="pre", norm_kind="layer", causal=True,
            attention_gain=d * sigma2 * d * projection,
            activation=_activation(config.activation_function),
            ffn_output_gain=hidden * projection, preactivation_variance=d * sigma2,
            input_scale=2 * sigma2,
            source=f"{source}, activation_function {config.activation_function}, "
                   f"c_proj at σ/√(2·{config.n_layer}); wte and wpe N(0, σ²)")
    if _activation(config.hidden_act) != "silu":
        raise InvalidParameter(f"LLaMA's gated FFN is derived for silu, got "
                               f"{config.hidden_act!r}")
    hidden = int(config.intermediate_size)
    return BlockGains(
        placement="pre", norm_kind="rms", causal=True, attention_gain=(d * sigma2) ** 2,
        activation="swiglu", ffn_output_gain=hidden * sigma2,
        preactivation_variance=d * sigma2, up_variance=d * sigma2, input_scale=sigma2,
        source=f"{source}, SwiGLU (silu) of {hidden}, RMSNorm, embed_tokens N(0, σ²)")


def input_similarity(architecture: str, *, tokens: int,
                     vocabulary: int = DEFAULT_VOCABULARY) -> float:
    """t_sim of the first block's input derived from the embeddings' configuration.

    For n random token ids of a vocabulary of V (two tokens share an id with probability
    1/V) the pairs are alike on average by ρ₀, and t_sim = (1 + (n − 1)ρ₀)/n: BERT sums
    word, position and one shared token-type embedding, all N(0, σ²), so ρ₀ = (1 + 1/V)/3
    (its LayerNorm keeps ρ₀); GPT-2 sums word and position embeddings: ρ₀ = 1/(2V);
    LLaMA's word embeddings alone: ρ₀ = 1/V; the ``torch.nn`` encoders' Gaussian
    inputs: ρ₀ = 0.

    Parameters
    ----------
    architecture : one of :data:`~attndepth.pytorch.architectures.ARCHITECTURES`.
    tokens : n >= 2.
    vocabulary : V >= 1.

    Returns
    -------
    float
    """
    architecture = check_choice("architecture", architecture, ARCHITECTURES)
    n = check_int("tokens", tokens, minimum=2)
    shared = 1 / check_int("vocabulary", vocabulary, minimum=1)
    rho = {"bert": (1 + shared) / 3, "gpt2": shared / 2, "llama": shared}.get(architecture, 0.0)
    return (1 + (n - 1) * rho) / n
