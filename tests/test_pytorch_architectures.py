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
    """The 2 GiB guard covers the torch models: weights and one forward pass estimated
    from the configuration and refused with the estimate (no torch RuntimeError)."""
    with pytest.raises(ValueError, match=r"needs .* array elements, more than"):
        build(architecture, depth=48, heads=1, seed=0, **size)
