"""The transformers people build, from hand-typed configurations: no hub, no download.

=============  =====================================================================
name           the model, at width d, depth L, H heads, n positions
=============  =====================================================================
gpt2           Hugging Face ``GPT2Model``: pre-LN, GELU FFN 4d, learned positions,
               init N(0, 0.02²) with the residual projections at 0.02/√(2L)
               (Radford et al. 2019, §2.3), a final LayerNorm after the last block
bert           ``BertModel`` (no pooler): post-LN, GELU FFN 4d, learned positions and
               token types, init N(0, 0.02²), an embedding LayerNorm
llama          ``LlamaModel``: pre-RMSNorm, SwiGLU FFN (hidden ⌈8d/3⌉ rounded to 8), rotary
               positions, no biases, init N(0, 0.02²), a final RMSNorm
encoder-post   ``torch.nn.TransformerEncoder`` with ``norm_first=False``: post-LN, ReLU
               FFN 4d, PyTorch's default init (Xavier-uniform projections)
encoder-pre    the same with ``norm_first=True``: pre-LN
=============  =====================================================================

Each is built in float64 with its own initialisation drawn from ``seed`` (the global torch
RNG forked, so the caller's stream is untouched), dropout off, eager attention (so the
attention matrices can be observed). Inputs: token ids for the Hugging Face models,
Gaussian embeddings for the ``torch.nn`` stacks (:func:`random_inputs`).

A model of your own stands beside them once registered (:func:`register_model`, or
``--model module:function`` on the command line): a factory
``make(seed, *, width, depth, heads, tokens) -> torch.nn.Module`` under a name, which every
claim that takes ``architecture`` then accepts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from attndepth.errors import InvalidParameter, InvalidType, shown
from attndepth.pytorch.loading import generator, load_torch, load_transformers
from attndepth.validation import check_choice, check_int, check_real, check_seed, check_size

#: The architectures :func:`build` makes.
ARCHITECTURES: tuple[str, ...] = ("gpt2", "bert", "llama", "encoder-post", "encoder-pre")
#: Those from Hugging Face ``transformers`` (extra ``hf``); the others need torch only.
HUGGING_FACE: tuple[str, ...] = ("gpt2", "bert", "llama")
#: Vocabulary of the random token ids (the embedding table's rows).
DEFAULT_VOCABULARY = 512


#: An upper bound on a block's weights in units of d² (attention 4, an FFN of 4d: 8;
#: LLaMA's SwiGLU of 8d/3: 8), with room for norms and biases.
WEIGHTS_PER_LAYER = 13
#: The FFN's hidden width in units of d.
FFN_EXPANSION = 4
#: The most weights (array elements) :func:`build` makes: 2^31, 16 GiB of float64 — a
#: LLaMA of 1.1B parameters (TinyLlama's shape) fits, a 7B model does not. The model is
#: what was asked for, so its limit is the machine's order, not the 2 GiB of one array.
MODEL_WEIGHTS_LIMIT = 2**31


def _check_shape(width: object, depth: object, heads: object, tokens: object
                 ) -> tuple[int, int, int, int]:
    width = check_int("width", width, minimum=1)
    depth = check_int("depth", depth, minimum=1)
    heads = check_int("heads", heads, minimum=1)
    tokens = check_int("tokens", tokens, minimum=1)
    if width % heads:
        raise InvalidParameter(f"heads ({heads}) must divide the width ({width})")
    return width, depth, heads, tokens


def huggingface_config(architecture: str, width: int, depth: int, heads: int, tokens: int,
                       vocabulary: int = DEFAULT_VOCABULARY, init_std: float | None = None
                       ) -> Any:
    """The Hugging Face configuration :func:`build` makes ``architecture`` from (no weights).

    Parameters
    ----------
    architecture : one of :data:`HUGGING_FACE`.
    width, depth, heads, tokens, vocabulary : as :func:`build` takes them.
    init_std : the configuration's ``initializer_range`` (None: the library's 0.02).

    Returns
    -------
    transformers.PretrainedConfig
    """
    check_choice("architecture", architecture, HUGGING_FACE)
    transformers = load_transformers()
    common: dict[str, Any] = {"vocab_size": vocabulary, "attn_implementation": "eager"}
    if init_std is not None:
        common["initializer_range"] = check_init_std(init_std)
    if architecture == "gpt2":
        return transformers.GPT2Config(
            n_embd=width, n_layer=depth, n_head=heads, n_positions=tokens,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0,
            eos_token_id=0, **common)
    if architecture == "bert":
        return transformers.BertConfig(
            hidden_size=width, num_hidden_layers=depth, num_attention_heads=heads,
            intermediate_size=4 * width, max_position_embeddings=tokens,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, **common)
    hidden = 8 * math.ceil(8 * width / 3 / 8)
    return transformers.LlamaConfig(
        hidden_size=width, num_hidden_layers=depth, num_attention_heads=heads,
        num_key_value_heads=heads, intermediate_size=hidden,
        max_position_embeddings=tokens, bos_token_id=0, eos_token_id=0, **common)


def check_init_std(init_std: object) -> float:
    """σ of a Hugging Face model's initialisation: a finite number in (0, 10]."""
    return check_real("init_std", init_std, minimum=0, maximum=10, strict_minimum=True)


def _huggingface(config: Any) -> Any:
    transformers = load_transformers()
    if isinstance(config, transformers.GPT2Config):
        return transformers.GPT2Model(config)
    if isinstance(config, transformers.BertConfig):
        return transformers.BertModel(config, add_pooling_layer=False)
    return transformers.LlamaModel(config)


def build(architecture: str, *, width: int, depth: int, heads: int, tokens: int,
          seed: int = 0, vocabulary: int = DEFAULT_VOCABULARY,
          init_std: float | None = None) -> Any:
    """A model of ``architecture`` at this size, initialised as its authors do, from ``seed``.

    Parameters
    ----------
    architecture : one of :data:`ARCHITECTURES` (the table of the module docstring).
    width, depth, heads, tokens : d, L, H (dividing d) and the longest sequence n.
    seed : the initialisation's seed: the same seed, the same weights.
    vocabulary : rows of the embedding table (Hugging Face models).
    init_std : None (the authors' σ = 0.02) or the σ of a Hugging Face model's
        initialisation (its ``initializer_range``: every weight N(0, σ²), GPT-2's residual
        projections σ/√(2L)); the ``torch.nn`` encoders and registered models take only
        None (their initialisation is their library's or their factory's).

    Returns
    -------
    torch.nn.Module
        In float64 and eval mode, on the CPU.

    Raises
    ------
    MissingExtra
        Without torch, or without ``transformers`` for a Hugging Face architecture.
    """
    check_choice("architecture", architecture, known_architectures())
    width, depth, heads, tokens = _check_shape(width, depth, heads, tokens)
    seed = check_seed("seed", seed)
    vocabulary = check_int("vocabulary", vocabulary, minimum=1)
    if init_std is not None:
        init_std = check_init_std(init_std)
        if architecture not in HUGGING_FACE or architecture in MODELS:
            raise InvalidParameter(f"init_std is for the Hugging Face architectures "
                                   f"({', '.join(HUGGING_FACE)}); {architecture!r} has its "
                                   f"own initialisation")
    check_size(f"the {architecture} model's weights",
               depth * WEIGHTS_PER_LAYER * width**2 + (vocabulary + tokens) * width,
               MODEL_WEIGHTS_LIMIT)
    check_size(f"one forward pass of the {architecture} model (attention and states)",
               depth * (heads * tokens**2 + 2 * FFN_EXPANSION * tokens * width))
    torch = load_torch()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if architecture in MODELS:
            model = MODELS[architecture].build(seed, width, depth, heads, tokens)
        elif architecture in HUGGING_FACE:
            transformers = load_transformers()
            verbosity = transformers.logging.get_verbosity()
            transformers.logging.set_verbosity_error()
            try:
                model = _huggingface(huggingface_config(architecture, width, depth, heads,
                                                        tokens, vocabulary, init_std))
            finally:
                transformers.logging.set_verbosity(verbosity)
        else:
            layer = torch.nn.TransformerEncoderLayer(
                width, heads, 4 * width, dropout=0.0, batch_first=True,
                norm_first=architecture == "encoder-pre")
            model = torch.nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
    return model.to(torch.float64).eval()


def random_inputs(architecture: str, *, batch: int, tokens: int, width: int, seed: int,
                  vocabulary: int = DEFAULT_VOCABULARY) -> Any:
    """Random inputs for :func:`build`'s model: uniform token ids for the Hugging Face
    models, standard Gaussian embeddings (float64) for the ``torch.nn`` stacks.

    Parameters
    ----------
    architecture : one of :data:`ARCHITECTURES`.
    batch, tokens, width : the shape; ``width`` is used by the embeddings only.
    seed : a ``torch.Generator``'s seed: the same seed, the same inputs.
    vocabulary : the ids are drawn from 0 … vocabulary − 1.

    Returns
    -------
    torch.Tensor
        (batch, tokens) int64 ids, or (batch, tokens, width) float64 embeddings.
    """
    check_choice("architecture", architecture, known_architectures())
    batch = check_int("batch", batch, minimum=1)
    tokens = check_int("tokens", tokens, minimum=1)
    width = check_int("width", width, minimum=1)
    vocabulary = check_int("vocabulary", vocabulary, minimum=1)
    torch = load_torch()
    drawn = generator(seed)
    if architecture in MODELS and MODELS[architecture].inputs == "ids":
        vocabulary = MODELS[architecture].vocabulary
    if architecture in HUGGING_FACE or architecture in MODELS and \
            MODELS[architecture].inputs == "ids":
        return torch.randint(0, vocabulary, (batch, tokens), generator=drawn)
    return torch.randn(batch, tokens, width, generator=drawn, dtype=torch.float64)


@dataclass(frozen=True)
class ModelFactory:
    """A model of a user's, registered under a name (:func:`register_model`).

    Attributes
    ----------
    name : what ``architecture`` names it by.
    make : ``make(seed, *, width, depth, heads, tokens) -> torch.nn.Module``, its weights
        drawn from the global torch RNG (seeded with ``seed`` before the call) or from
        ``seed`` itself.
    inputs : ``"embeddings"`` (standard Gaussian (batch, tokens, width) float64) or
        ``"ids"`` (uniform token ids below ``vocabulary``).
    vocabulary : the ids' range, for ``inputs="ids"``.
    """

    name: str
    make: Callable[..., Any]
    inputs: str = "embeddings"
    vocabulary: int = DEFAULT_VOCABULARY

    def build(self, seed: int, width: int, depth: int, heads: int, tokens: int) -> Any:
        """The user's model at this size, its factory contained (one error naming it)."""
        from attndepth.sandbox import user_code

        torch = load_torch()
        with user_code(f"model factory {self.name!r}"):
            model = self.make(seed, width=width, depth=depth, heads=heads, tokens=tokens)
        if not isinstance(model, torch.nn.Module):
            raise InvalidType(f"model factory {self.name!r} returned "
                              f"{type(model).__name__}, not a torch.nn.Module")
        return model


#: The models users registered: name -> ModelFactory.
MODELS: dict[str, ModelFactory] = {}


def register_model(name: str, make: Callable[..., Any], *, inputs: str = "embeddings",
                   vocabulary: int = DEFAULT_VOCABULARY) -> ModelFactory:
    """Register a model factory under ``name``: every claim that takes ``architecture``
    (and :func:`build`, :func:`random_inputs`, ``architecture_trace``) accepts it.

    attndepth cannot see where a model normalises: a claim about post-LN stacks
    measures a registered model as one, and says so in nothing but its name. Register
    again under the same name to replace it.

    Parameters
    ----------
    name : not one of :data:`ARCHITECTURES` or ``attndepth``.
    make : ``make(seed, *, width, depth, heads, tokens) -> torch.nn.Module``.
    inputs : ``"embeddings"`` or ``"ids"``.
    vocabulary : int >= 1, the token ids' range.

    Returns
    -------
    ModelFactory

    Raises
    ------
    InvalidParameter, InvalidType
    """
    if not isinstance(name, str) or not name or name in (*ARCHITECTURES, "attndepth") \
            or len(name) > 200:
        raise InvalidParameter(f"a model's name must be a new non-empty name of at most 200 "
                               f"characters (not {', '.join(ARCHITECTURES)} or attndepth), "
                               f"got {shown(name, 60)}")
    if not callable(make):
        raise InvalidType(f"model {name!r}: make must be a function (seed, *, width, depth, "
                          f"heads, tokens) -> torch.nn.Module, got {type(make).__name__}")
    check_choice("inputs", inputs, ("embeddings", "ids"))
    factory = ModelFactory(name, make, inputs, check_int("vocabulary", vocabulary, minimum=1))
    MODELS[name] = factory
    return factory


def known_architectures() -> tuple[str, ...]:
    """:data:`ARCHITECTURES` and the names of the registered models."""
    return (*ARCHITECTURES, *MODELS)


def load_model(spec: str) -> str:
    """Register the factory ``module:function`` (a module's import name or a ``.py``
    file's path, then a function of it: ``--model``) under ``spec`` itself; returns the
    name.

    Raises
    ------
    InvalidParameter
        ``spec`` is not ``MODULE:FUNCTION``, the module cannot be loaded (what it raised,
        in one line) or has no such function.
    """
    import hashlib
    import importlib
    import importlib.util
    import sys
    from pathlib import Path

    from attndepth.sandbox import user_code

    if not isinstance(spec, str) or ":" not in spec:
        raise InvalidParameter(f"--model takes MODULE:FUNCTION (an importable module or a "
                               f".py file, then its factory), got {shown(spec, 60)}")
    source, _, function = spec.rpartition(":")
    if not source or not function.isidentifier():
        raise InvalidParameter(f"--model takes MODULE:FUNCTION, got {shown(spec, 60)}")
    path = Path(source)
    with user_code(f"loading the model module {source}"):
        if source.endswith(".py") or path.is_file():
            digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
            name = f"attndepth_user_model_{digest}"
            module = sys.modules.get(name)
            if module is None:
                found = importlib.util.spec_from_file_location(name, path)
                if found is None or found.loader is None or not path.is_file():
                    raise InvalidParameter(f"model module {source} is not a Python file")
                module = importlib.util.module_from_spec(found)
                sys.modules[name] = module
                found.loader.exec_module(module)
        else:
            module = importlib.import_module(source)
    make = getattr(module, function, None)
    if not callable(make):
        raise InvalidParameter(f"{source} has no function {function!r} (a model factory "
                               f"(seed, *, width, depth, heads, tokens) -> torch.nn.Module)")
    register_model(spec, make, inputs=getattr(make, "inputs", "embeddings"),
                   vocabulary=getattr(make, "vocabulary", DEFAULT_VOCABULARY))
    return spec
