"""Without torch (or transformers) every entry point says which extra to install."""

import sys

import pytest

from attndepth.errors import MissingExtra
from attndepth.pytorch import loading


def test_a_missing_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingExtra, match=r"attndepth\[torch\]"):
        loading.load_torch()
    assert not loading.available()
    from attndepth.pytorch.observe import observe

    with pytest.raises(ModuleNotFoundError, match="needs PyTorch"):
        observe(object(), None)


def test_a_missing_transformers_names_the_extra(monkeypatch):
    pytest.importorskip("torch", reason="the torch extra")
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(MissingExtra, match=r"attndepth\[hf\]"):
        loading.load_transformers()
    from attndepth.pytorch.architectures import build

    with pytest.raises(MissingExtra, match="transformers"):
        build("gpt2", width=8, depth=1, heads=1, tokens=2)


def test_generators_are_seeded():
    torch = pytest.importorskip("torch", reason="the torch extra")
    a, b = loading.generator(7), loading.generator(7)
    assert torch.equal(torch.randn(3, generator=a), torch.randn(3, generator=b))
    with pytest.raises(ValueError, match="seed"):
        loading.generator(-1)
