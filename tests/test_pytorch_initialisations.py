"""Each architecture's gains, read from its configuration, against the weights of built models."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the architectures need the torch extra")
pytest.importorskip("transformers", reason="the Hugging Face models need the hf extra")

from attndepth.pytorch.architectures import build  # noqa: E402
from attndepth.pytorch.escalation import architecture_trace  # noqa: E402
from attndepth.pytorch.initialisations import block_gains, input_similarity  # noqa: E402

WIDTH, DEPTH = 128, 4


def _var(tensor) -> float:
    return float(tensor.detach().double().pow(2).mean())


def _weights(architecture: str, model) -> dict[str, float]:
    """Mean squared weights (the biases are zero unless listed) of block 0, in the units of
    :class:`BlockGains` (fan-in times variance)."""
    d = WIDTH
    if architecture == "bert":
        layer = model.encoder.layer[0]
        v, o = layer.attention.self.value.weight, layer.attention.output.dense.weight
        up, down = layer.intermediate.dense.weight, layer.output.dense.weight
        return {"attention_gain": d * _var(v) * d * _var(o), "preactivation_variance":
                d * _var(up), "ffn_output_gain": up.shape[0] * _var(down), "input_scale": 1.0}
    if architecture == "gpt2":
        block = model.h[0]
        qkv = block.attn.c_attn.weight  # Conv1D: (in, out), the values last
        v = qkv[:, 2 * d:]
        return {"attention_gain": d * _var(v) * d * _var(block.attn.c_proj.weight),
                "preactivation_variance": d * _var(block.mlp.c_fc.weight),
                "ffn_output_gain": block.mlp.c_fc.weight.shape[1] * _var(block.mlp.c_proj.weight),
                "input_scale": _var(model.wte.weight) + _var(model.wpe.weight)}
    if architecture == "llama":
        layer = model.layers[0]
        return {"attention_gain": d * _var(layer.self_attn.v_proj.weight) * d
                * _var(layer.self_attn.o_proj.weight),
                "preactivation_variance": d * _var(layer.mlp.gate_proj.weight),
                "up_variance": d * _var(layer.mlp.up_proj.weight),
                "ffn_output_gain": layer.mlp.down_proj.weight.shape[1]
                * _var(layer.mlp.down_proj.weight),
                "input_scale": _var(model.embed_tokens.weight)}
    layer = model.layers[0]
    hidden = layer.linear1.weight.shape[0]
    return {"attention_gain": d * _var(layer.self_attn.in_proj_weight[2 * d:]) * d
            * _var(layer.self_attn.out_proj.weight),
            "preactivation_variance": d * _var(layer.linear1.weight),
            "preactivation_bias_variance": _var(layer.linear1.bias),
            "ffn_output_gain": hidden * _var(layer.linear2.weight),
            "output_bias_variance": _var(layer.linear2.bias), "input_scale": 1.0}


@pytest.mark.parametrize("architecture", ["bert", "gpt2", "llama", "encoder-post",
                                          "encoder-pre"])
def test_the_gains_are_those_of_the_built_weights(architecture):
    model = build(architecture, width=WIDTH, depth=DEPTH, heads=2, tokens=8, seed=3)
    gains = block_gains(architecture, width=WIDTH, depth=DEPTH, heads=2)
    for name, measured in _weights(architecture, model).items():
        # a d × d matrix's mean square scatters by √(2/d²) ≈ 1 %; a bias of d entries by 12 %
        tolerance = 0.4 if "bias" in name else 0.06
        assert measured == pytest.approx(getattr(gains, name), rel=tolerance), name
    assert gains.shared_layers == architecture.startswith("encoder")
    if gains.shared_layers:
        first, last = model.layers[0], model.layers[-1]
        assert all(torch.equal(a, b) for a, b in zip(first.parameters(), last.parameters(),
                                                     strict=True))


def test_init_std_sets_every_weight_of_a_hugging_face_model():
    model = build("bert", width=WIDTH, depth=2, heads=2, tokens=8, seed=0, init_std=0.1)
    gains = block_gains("bert", width=WIDTH, depth=2, init_std=0.1)
    assert gains.attention_gain == pytest.approx((WIDTH * 0.01) ** 2)
    assert _weights("bert", model)["attention_gain"] == pytest.approx(gains.attention_gain,
                                                                      rel=0.06)
    assert "initializer_range 0.1" in gains.source


def test_the_derived_input_similarity_is_the_measured_one():
    """t_sim of the first block's input over 64 models against (1 + (n − 1)ρ₀)/n."""
    for architecture in ("bert", "gpt2", "llama", "encoder-post"):
        found = architecture_trace(architecture, depth=1, tokens=16, width=64, heads=1,
                                   batch=64, seed=5, contraction=False)
        measured = found.similarity[0]
        error = measured.std(ddof=1) / math.sqrt(measured.size)
        assert abs(measured.mean() - input_similarity(architecture, tokens=16)) < 4 * error + 2e-3


@pytest.mark.parametrize("call, match", [
    (lambda: block_gains("encoder-post", width=32, depth=2, init_std=0.05), "init_std"),
    (lambda: block_gains("bert", width=32, depth=2, init_std=-0.1), "init_std"),
    (lambda: block_gains("mine", width=32, depth=2), "architecture"),
    (lambda: build("encoder-pre", width=32, depth=2, heads=1, tokens=4, init_std=0.1),
     "init_std"),
    (lambda: input_similarity("bert", tokens=1), "tokens"),
])
def test_bad_input_is_refused_in_one_line(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_an_activation_without_a_kernel_is_named():
    from attndepth.pytorch import initialisations

    with pytest.raises(ValueError, match="no kernel for the activation 'tanh'"):
        initialisations._activation("tanh")
    assert np.isfinite(block_gains("llama", width=64, depth=2).ffn_gains()).all()
