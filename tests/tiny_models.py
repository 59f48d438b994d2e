"""Tiny Hugging Face model folders made here (no download): a BERT encoder and a LLaMA
decoder with a word-piece tokenizer of a few words — the path door of
:func:`attndepth.pytorch.pretrained.pretrained` without any model package; and the skip
of a test that needs a known model's package."""

import importlib.metadata
from pathlib import Path

import pytest

WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "and", "it", "was", "red",
         "play", "##s", "##ed", "king", "queen", "."]


def _tokenizer(folder: Path):
    from transformers import BertTokenizerFast

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    return BertTokenizerFast(vocab={word: index for index, word in enumerate(words)})


def tiny_folder(folder: Path, kind: str = "bert") -> Path:
    """A saved model folder (config.json, model.safetensors, tokenizer files) of 2 blocks,
    width 8, 2 heads: ``kind`` "bert" (an encoder) or "llama" (a causal decoder)."""
    import torch
    import transformers

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer(folder)
    torch.manual_seed(0)
    if kind == "bert":
        config = transformers.BertConfig(vocab_size=len(tokenizer), hidden_size=8,
                                         num_hidden_layers=2, num_attention_heads=2,
                                         intermediate_size=16, max_position_embeddings=64)
        model = transformers.BertModel(config)
    else:
        config = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=8,
                                          num_hidden_layers=2, num_attention_heads=2,
                                          num_key_value_heads=1, intermediate_size=16,
                                          max_position_embeddings=64)
        model = transformers.LlamaForCausalLM(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def require_model(name: str):
    """Skip unless the package of the known model ``name`` is installed (the reason is the
    command that installs it)."""
    from attndepth.pytorch.pretrained import TRAINED_MODELS

    entry = TRAINED_MODELS[name]
    try:
        importlib.metadata.distribution(entry.distribution)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"the trained model {name} is not installed: {entry.install}")
    if name == "smollm2-135m":
        pytest.importorskip("gguf", reason="a GGUF file needs the trained extra")
