"""The architectures built from configurations: their own initialisation, seeded, in
float64; GPT-2's residual projections at 0.02/sqrt(2L); clear errors."""

import math

import pytest

torch = pytest.importorskip("torch", reason="the architectures need the torch extra")

from attndepth.pytorch.architectures import ARCHITECTURES, build, random_inputs  # noqa: E402


def test_gpt2_scales_its_residual_projections_by_one_over_root_two_l():
    pytest.importorskip("transformers", reason="the Hugging Face architectures need the hf extra")
    depth = 8
    model = build("gpt2", width=64, depth=depth, heads=4, tokens=16, seed=0)
    projection = torch.cat([block.attn.c_proj.weight.detach().flatten() for block in model.h])
    other = torch.cat([block.attn.c_attn.weight.detach().flatten() for block in model.h])
    assert float(projection.std()) == pytest.approx(0.02 / math.sqrt(2 * depth), rel=0.05)
    assert float(other.std()) == pytest.approx(0.02, rel=0.05)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_each_architecture_is_built_in_float64_eval_mode_from_its_seed(architecture):
    if architecture in ("gpt2", "bert", "llama"):
        pytest.importorskip("transformers", reason="the hf extra")
    first, again = (build(architecture, width=8, depth=2, heads=2, tokens=4, seed=3)
                    for _ in range(2))
    assert not first.training
    for a, b in zip(first.parameters(), again.parameters(), strict=True):
        assert a.dtype == torch.float64 and torch.equal(a, b)
    before = torch.random.get_rng_state()
    build(architecture, width=8, depth=2, heads=2, tokens=4, seed=4)
    assert torch.equal(before, torch.random.get_rng_state())  # the caller's stream untouched
    inputs = random_inputs(architecture, batch=2, tokens=4, width=8, seed=0)
    assert inputs.shape[:2] == (2, 4)


def test_a_bad_configuration_is_refused_in_one_line():
    with pytest.raises(ValueError, match="architecture must be one of gpt2, bert, llama"):
        build("t5", width=8, depth=2, heads=2, tokens=4)
    with pytest.raises(ValueError, match="heads .3. must divide the width .8."):
        build("encoder-post", width=8, depth=2, heads=3, tokens=4)
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        build("encoder-pre", width=8, depth=0, heads=2, tokens=4)
    with pytest.raises(ValueError, match="seed"):
        random_inputs("encoder-pre", batch=1, tokens=2, width=8, seed=-1)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("size", [dict(width=65_536, tokens=8), dict(width=8, tokens=10**6)])
def test_every_architecture_is_sized_before_anything_is_allocated(architecture, size):
    """The size guards cover the torch models (weights up to 16 GiB of float64, one
    forward pass up to 2 GiB): both estimated from the configuration and refused with the
    estimate (no torch RuntimeError)."""
    with pytest.raises(ValueError, match=r"needs .* array elements, more than"):
        build(architecture, depth=48, heads=1, seed=0, **size)


FACTORY = '''
import torch


def post_ln(seed, *, width, depth, heads, tokens):
    layer = torch.nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                             batch_first=True, norm_first=False)
    return torch.nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)


def not_a_model(seed, *, width, depth, heads, tokens):
    return "a string"
'''


def test_a_users_model_is_built_and_drawn_like_the_others(tmp_path, monkeypatch):
    from attndepth.pytorch import architectures
    from attndepth.pytorch.escalation import architecture_trace

    monkeypatch.setattr(architectures, "MODELS", {})
    (tmp_path / "mine.py").write_text(FACTORY)
    name = architectures.load_model(f"{tmp_path / 'mine.py'}:post_ln")
    assert name in architectures.known_architectures()
    model = build(name, width=8, depth=2, heads=2, tokens=4, seed=3)
    again = build(name, width=8, depth=2, heads=2, tokens=4, seed=3)
    first = next(model.parameters())
    assert first.dtype == torch.float64 and torch.equal(first, next(again.parameters()))
    assert random_inputs(name, batch=2, tokens=4, width=8, seed=0).shape == (2, 4, 8)
    trace = architecture_trace(name, depth=2, tokens=4, width=8, heads=2, batch=2, seed=0)
    assert trace.similarity.shape == (3, 2)
    bad = architectures.load_model(f"{tmp_path / 'mine.py'}:not_a_model")
    with pytest.raises(TypeError, match="returned str, not a torch.nn.Module"):
        build(bad, width=8, depth=2, heads=2, tokens=4)


@pytest.mark.parametrize("spec, why", [("nocolon", "MODULE:FUNCTION"),
                                       ("no_such_module_x:f", "ModuleNotFoundError"),
                                       ("math:nothing", "has no function 'nothing'"),
                                       ("math:", "MODULE:FUNCTION")])
def test_a_bad_model_spec_is_one_clear_error(spec, why):
    from attndepth.pytorch.architectures import load_model

    with pytest.raises((ValueError, RuntimeError), match=why):
        load_model(spec)


def test_a_users_model_cannot_take_a_builtin_name():
    from attndepth.pytorch.architectures import register_model

    for name in ("bert", "attndepth", ""):
        with pytest.raises(ValueError, match="a model's name must be"):
            register_model(name, lambda seed, **size: None)
