"""observe: every block's states, equal to what the model's own forward computes, for the
Hugging Face models, the torch.nn stacks and a module a user writes; clear errors for a
model it cannot read; the caller's model untouched."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="observe needs the torch extra")

from attndepth.pytorch.architectures import build, random_inputs  # noqa: E402
from attndepth.pytorch.observe import Observation, find_blocks, observe  # noqa: E402


class Block(torch.nn.Module):
    """A user's block: X + tanh(X W)."""

    def __init__(self, width):
        super().__init__()
        self.linear = torch.nn.Linear(width, width, bias=False)

    def forward(self, x):
        return x + torch.tanh(self.linear(x))


class Net(torch.nn.Module):
    def __init__(self, width=6, depth=4):
        super().__init__()
        self.embed = torch.nn.Linear(3, width)
        self.blocks = torch.nn.ModuleList(Block(width) for _ in range(depth))
        self.head = torch.nn.Linear(width, 2)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x), x


class Twice(torch.nn.Module):
    """Runs its first block twice (weights shared across depth)."""

    def __init__(self, width=6):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(width) for _ in range(2))

    def forward(self, x):
        return self.blocks[1](self.blocks[0](self.blocks[0](x)))


def test_a_module_a_user_writes_is_read_block_by_block_as_its_forward_computes():
    torch.manual_seed(0)
    net = Net()
    x = torch.randn(2, 5, 3)
    seen = observe(net, x)
    assert isinstance(seen, Observation) and seen.states.dtype == np.float64
    assert seen.states.shape == (5, 2, 5, 6) and seen.blocks == tuple(f"blocks.{i}"
                                                                      for i in range(4))
    with torch.no_grad():
        _, last = net.double()(x.double())
    np.testing.assert_allclose(seen.states[-1], last.numpy(), rtol=0, atol=1e-14)
    assert seen.attention is None and "MultiheadAttention" in seen.attention_note
    named = observe(net, x, blocks=["blocks.0", "blocks.1"])
    np.testing.assert_array_equal(named.states, seen.states[:3])


def test_the_callers_model_keeps_its_precision_and_mode():
    net = Net().train()
    observe(net, torch.randn(1, 4, 3))
    assert net.training and next(net.parameters()).dtype == torch.float32
    single = observe(net, torch.randn(1, 4, 3), dtype="float32")
    assert single.states.dtype == np.float64


@pytest.mark.parametrize("architecture", ["gpt2", "bert", "llama"])
def test_hugging_face_states_are_the_models_own_hidden_states(architecture):
    pytest.importorskip("transformers", reason="the Hugging Face architectures need the hf extra")
    model = build(architecture, width=16, depth=3, heads=2, tokens=8, seed=0)
    ids = random_inputs(architecture, batch=2, tokens=8, width=16, seed=1)
    seen = observe(model, ids)
    with torch.no_grad():
        own = model(input_ids=ids, output_hidden_states=True, output_attentions=True)
    hidden = np.stack([state.numpy() for state in own.hidden_states])
    # the last hidden state of GPT-2 and LLaMA has their final norm applied; the blocks'
    # outputs before it are the residual stream itself
    np.testing.assert_array_equal(seen.states[:-1], hidden[:-1])
    final = {"gpt2": getattr(model, "ln_f", None), "llama": getattr(model, "norm", None)}
    last = torch.from_numpy(seen.states[-1])
    if architecture in final:
        with torch.no_grad():
            last = final[architecture](last)
    np.testing.assert_allclose(last.numpy(), own.last_hidden_state.numpy(), rtol=0, atol=1e-13)
    assert seen.attention.shape == (3, 2, 2, 8, 8)
    np.testing.assert_allclose(seen.attention.sum(axis=-1), 1.0, atol=1e-12)
    values = seen.observables()
    assert set(values) == {"t_sim", "cosine", "log_odds", "stable_rank", "norm_growth",
                           "variance", "first_token_ratio", "relative_update",
                           "angular_distance", "attention_entropy", "s2", "sink_mass"}
    assert values["t_sim"].shape == (4, 2) and values["s2"].shape == (3, 2)
    assert values["relative_update"].shape == values["sink_mass"].shape == (3, 2)
    np.testing.assert_allclose(values["norm_growth"][0], 1.0)


@pytest.mark.parametrize("architecture", ["encoder-post", "encoder-pre"])
def test_torch_encoders_are_read_with_their_attention(architecture):
    model = build(architecture, width=8, depth=2, heads=2, tokens=6, seed=0)
    x = random_inputs(architecture, batch=3, tokens=6, width=8, seed=0)
    seen = observe(model, x)
    with torch.no_grad():
        np.testing.assert_allclose(seen.states[-1], model(x).numpy(), rtol=0, atol=1e-13)
    assert seen.attention.shape == (2, 3, 2, 6, 6)


def test_the_same_seed_gives_the_same_states():
    first, again, other = (observe(build("encoder-post", width=8, depth=2, heads=2, tokens=4,
                                         seed=s),
                                   random_inputs("encoder-post", batch=1, tokens=4, width=8,
                                                 seed=s)).states for s in (5, 5, 6))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_a_model_it_cannot_read_is_refused_naming_what_to_pass():
    with pytest.raises(TypeError, match="torch.nn.Module"):
        observe("gpt2", torch.zeros(1, 2))
    with pytest.raises(ValueError, match=r"cannot find the blocks of Linear .*pass blocks="):
        observe(torch.nn.Linear(3, 3), torch.randn(1, 2, 3))
    with pytest.raises(TypeError, match="torch.nn.Module"):
        find_blocks("gpt2")
    with pytest.raises(ValueError, match="blocks=.*whose outputs are the hidden states"):
        find_blocks(torch.nn.Sequential(torch.nn.Linear(3, 3)))
    net = Net()
    with pytest.raises(ValueError, match="no module named 'layers.0'"):
        observe(net, torch.randn(1, 2, 3), blocks=["layers.0"])
    with pytest.raises(ValueError, match="block 'head' is not a .batch, tokens, width. state"):
        observe(net, torch.randn(1, 2, 3), blocks=["blocks.0", "head"])
    with pytest.raises(ValueError, match="the 2 blocks were entered 3 times and gave 3"):
        observe(Twice(), torch.randn(1, 2, 6))
    with pytest.raises(ValueError, match="finite"):
        observe(net, torch.full((1, 2, 3), float("nan")))
    with pytest.raises(TypeError, match="inputs must be a tensor"):
        observe(net, [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="dtype"):
        observe(net, torch.randn(1, 2, 3), dtype="float16")
    with pytest.raises(ValueError, match="device"):
        observe(net, torch.randn(1, 2, 3), device="tpu")


def test_an_sdpa_model_is_observed_with_eager_attention_and_no_warning():
    transformers = pytest.importorskip("transformers", reason="the hf extra")
    config = transformers.GPT2Config(n_embd=8, n_layer=2, n_head=2, n_positions=4,
                                     vocab_size=16, bos_token_id=0, eos_token_id=0,
                                     attn_implementation="sdpa")
    model = transformers.GPT2Model(config)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no warning from transformers' logger either
        transformers.logging.set_verbosity_warning()
        seen = observe(model, torch.zeros(1, 4, dtype=torch.long))
    assert seen.attention is not None and seen.attention_note == ""
    assert model.config._attn_implementation == "sdpa"  # the caller's model as it was
    eager = observe(build("gpt2", width=8, depth=2, heads=2, tokens=4), torch.zeros(
        1, 4, dtype=torch.long))
    np.testing.assert_allclose(seen.attention.shape, eager.attention.shape)
    assert observe(Net(), torch.randn(1, 2, 3), attention=False).attention_note.startswith(
        "not asked")


def test_blocks_named_out_of_run_order_are_refused():
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    inputs = torch.randn(2, 4, 8)
    with pytest.raises(ValueError, match="not given in the order the forward runs them"):
        observe(model, inputs, blocks=["layers.1", "layers.0", "layers.2"])
    assert observe(model, inputs, blocks=["layers.0", "layers.1", "layers.2"]).layers == 3


class NormsInOneList(torch.nn.Module):
    """Pre-LN blocks whose 2L norms live in one ModuleList, longer than the blocks'."""

    def __init__(self, width=8, depth=3):
        super().__init__()
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(width) for _ in range(2 * depth))
        self.layers = torch.nn.ModuleList(
            torch.nn.MultiheadAttention(width, 2, batch_first=True) for _ in range(depth))

    def forward(self, x):
        for k, attention in enumerate(self.layers):
            h = self.norms[2 * k](x)
            x = x + attention(h, h, h, need_weights=False)[0]
            x = self.norms[2 * k + 1](x)
        return x


def test_a_list_of_norms_is_not_taken_for_the_blocks():
    model = NormsInOneList()
    assert [name for name, _ in find_blocks(model)] == ["layers.0", "layers.1", "layers.2"]
    with pytest.raises(ValueError, match="'norms.1' does not receive the output of block "
                                         "'norms.0'.*not consecutive steps of one stream"):
        observe(model, torch.randn(2, 5, 8), blocks=[f"norms.{k}" for k in range(6)])


class Shared(torch.nn.Module):
    """Two blocks that are one module."""

    def __init__(self, width=6):
        super().__init__()
        block = Block(width)
        self.blocks = torch.nn.ModuleList([block, block])

    def forward(self, x):
        return self.blocks[1](self.blocks[0](x))


class Embedded(torch.nn.Module):
    """Token ids through an embedding, then blocks."""

    def __init__(self, width=6):
        super().__init__()
        self.embedding = torch.nn.Embedding(10, width)
        self.blocks = torch.nn.ModuleList(Block(width) for _ in range(2))

    def forward(self, ids):
        x = self.embedding(ids)
        for block in self.blocks:
            x = block(x)
        return x


def test_a_shared_block_and_a_dict_of_blocks_are_refused_naming_what_to_pass():
    with pytest.raises(ValueError, match="entered 4 times"):
        observe(Shared(), torch.randn(1, 3, 6))
    keyed = torch.nn.Module()
    keyed.blocks = torch.nn.ModuleDict({"a": Block(6), "b": Block(6)})
    with pytest.raises(ValueError, match="cannot find the blocks .*pass blocks="):
        observe(keyed, torch.randn(1, 3, 6))


def test_a_sequence_first_encoder_is_returned_batch_first_with_a_note():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=False)
    model = torch.nn.TransformerEncoder(layer, 3, enable_nested_tensor=False).double().eval()
    x = torch.randn(5, 4, 8, dtype=torch.float64)  # (tokens, batch, width)
    seen = observe(model, x)
    assert seen.states.shape == (4, 4, 5, 8) and "batch_first=False" in seen.layout_note
    with torch.no_grad():
        expected = model(x).transpose(0, 1).numpy()
    np.testing.assert_allclose(seen.states[-1], expected, rtol=0, atol=1e-14)
    assert seen.attention.shape == (3, 4, 2, 5, 5)
    # a cosine between two tokens of one sequence, as a hand computes it
    first = expected[0]
    unit = first / np.linalg.norm(first, axis=1, keepdims=True)
    hand = (unit @ unit.T)[np.triu_indices(5, 1)].mean()
    assert seen.observables()["cosine"][-1, 0] == pytest.approx(hand, abs=1e-12)


def test_padded_tokens_are_left_out_of_every_observable():
    torch.manual_seed(1)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).double().eval()
    x = torch.randn(1, 6, 8, dtype=torch.float64)
    padding = torch.tensor([[False] * 4 + [True] * 2])
    padded = observe(model, {"src": x, "src_key_padding_mask": padding})
    alone = observe(model, x[:, :4])
    assert padded.mask.tolist() == [[True] * 4 + [False] * 2]
    for name, values in alone.observables().items():
        np.testing.assert_allclose(padded.observables()[name], values, rtol=1e-10, atol=1e-12,
                                   err_msg=name)
    explicit = observe(model, {"src": x, "src_key_padding_mask": padding},
                       mask=~padding.numpy())
    np.testing.assert_array_equal(explicit.observables()["t_sim"],
                                  padded.observables()["t_sim"])
    with pytest.raises(ValueError, match="mask must be .batch, tokens."):
        observe(model, x, mask=np.ones(6))
    with pytest.raises(ValueError, match="at least one real token"):
        observe(model, x, mask=np.zeros((1, 6), bool))


def test_bert_with_an_attention_mask_measures_its_real_tokens_only():
    pytest.importorskip("transformers", reason="the hf extra")
    model = build("bert", width=32, depth=2, heads=2, tokens=8, seed=0)
    ids = random_inputs("bert", batch=1, tokens=8, width=32, seed=0)
    mask = torch.tensor([[1] * 5 + [0] * 3])
    padded = observe(model, {"input_ids": ids, "attention_mask": mask})
    alone = observe(model, ids[:, :5])
    for name in ("t_sim", "cosine", "attention_entropy", "s2"):
        np.testing.assert_allclose(padded.observables()[name], alone.observables()[name],
                                   rtol=1e-9, atol=1e-12, err_msg=name)


def test_an_encoder_decoder_is_read_along_its_encoder():
    torch.manual_seed(2)
    model = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True).double()
    src, tgt = torch.randn(1, 5, 8).double(), torch.randn(1, 3, 8).double()
    seen = observe(model, {"src": src, "tgt": tgt})
    assert seen.blocks == ("encoder.layers.0", "encoder.layers.1")
    with torch.no_grad():
        stream = model.encoder.layers[1](model.encoder.layers[0](src))
    np.testing.assert_allclose(seen.states[-1], stream.numpy(), rtol=0, atol=1e-13)


def test_float_token_ids_and_a_summary():
    embed = Embedded()
    with pytest.raises(ValueError, match="token ids must be integers"):
        observe(embed, torch.zeros(1, 4))
    seen = observe(embed, torch.zeros(1, 4, dtype=torch.long))
    text = repr(seen)
    assert text.startswith("Observation: 2 blocks, batch 1, 4 tokens, width 6")
    assert len(text.splitlines()) == 2 + 3 and "blocks.1" in text
    assert "<table>" in seen._repr_html_()


class CustomAttention(torch.nn.Module):
    """A user's attention: softmax(Q Kᵀ/√d) V with one head, returning (output, weights)
    and keeping the weights."""

    def __init__(self, width):
        super().__init__()
        self.q, self.k = torch.nn.Linear(width, width), torch.nn.Linear(width, width)

    def forward(self, x):
        weights = torch.softmax(self.q(x) @ self.k(x).transpose(-1, -2) / x.shape[-1] ** 0.5,
                                dim=-1)
        self.kept = weights[:, None]
        return weights @ x, weights[:, None]


class CustomBlock(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn = CustomAttention(width)

    def forward(self, x):
        return x + self.attn(x)[0]


class CustomNet(torch.nn.Module):
    def __init__(self, width=6, depth=3):
        super().__init__()
        self.layers = torch.nn.ModuleList(CustomBlock(width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


@pytest.mark.parametrize("attention", ["layers.*.attn", CustomAttention,
                                       lambda block: block.attn.kept])
def test_a_custom_attention_is_observed_by_naming_it(attention):
    torch.manual_seed(3)
    model, x = CustomNet().double(), torch.randn(2, 5, 6).double()
    assert observe(model, x).attention is None  # not found by itself
    seen = observe(model, x, attention=attention)
    assert seen.attention.shape == (3, 2, 1, 5, 5)
    with torch.no_grad():
        expected = model.layers[0].attn(x)[1].numpy()
    np.testing.assert_allclose(seen.attention[0], expected, rtol=0, atol=1e-15)
    assert "s2" in seen.observables()


def test_a_named_attention_that_gives_nothing_says_what_to_pass():
    model, x = CustomNet(), torch.randn(1, 4, 6)
    with pytest.raises(ValueError, match="exactly one module in each block"):
        observe(model, x, attention="*.nothing")
    with pytest.raises(ValueError, match="gave no .batch, heads, tokens, tokens. weights"):
        observe(model, x, attention="layers.*.attn.q")
    with pytest.raises(RuntimeError, match="the attention function on block 'layers.0' raised"):
        observe(model, x, attention=lambda block: block.missing)
    with pytest.raises(TypeError, match="attention must be"):
        observe(model, x, attention=3)
