"""layer_profile: every observable of every window, the same whether the windows are observed
at once or a few at a time; the initialised control on the same windows; the trained models'
profiles (slow, with their packages)."""

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="trained models need the torch extra")
pytest.importorskip("transformers", reason="trained models need the hf extra")

from attndepth.errors import InvalidParameter  # noqa: E402
from attndepth.pytorch import profiles  # noqa: E402
from attndepth.pytorch.observe import observe  # noqa: E402
from attndepth.pytorch.pretrained import pretrained  # noqa: E402
from attndepth.pytorch.profiles import (  # noqa: E402
    cross_window_cosine,
    layer_profile,
    mean_directions,
    sample_windows,
)
from tests.test_pytorch_text_sample import TEXT  # noqa: E402
from tests.tiny_models import require_model, tiny_folder  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return pretrained(tiny_folder(tmp_path_factory.mktemp("bert"), "bert"))


def test_a_profile_in_chunks_is_the_observation_at_once(tiny, monkeypatch):
    monkeypatch.setattr(profiles, "CHUNK", 2)
    found = layer_profile(tiny, windows=5, tokens=8, seed=1, text=TEXT)
    drawn = sample_windows(tiny, 5, 8, 1, text=TEXT)
    seen = observe(tiny.backbone, drawn, dtype="float32")
    whole = {**seen.observables(),
             "cross_cosine": cross_window_cosine(mean_directions(seen.states))}
    assert set(found.values) == set(whole)
    for name, values in whole.items():
        np.testing.assert_allclose(found.values[name], values, rtol=1e-6, atol=1e-9)
    assert found.layers == 2 and found.windows == 5 and found.tokens == 8
    assert found.per_layer("sink_mass").shape == (3, 5)
    assert np.isnan(found.per_layer("sink_mass")[0]).all()


def test_the_summary_is_the_mean_with_its_interval_and_reads_as_json(tiny):
    found = layer_profile(tiny, windows=6, tokens=8, seed=0, text=TEXT)
    row = found.summary()[1]
    values = found.values["t_sim"][1]
    assert row["t_sim"]["mean"] == pytest.approx(values.mean())
    assert row["t_sim"]["low"] < row["t_sim"]["mean"] < row["t_sim"]["high"]
    assert found.summary()[0]["sink_mass"] is None
    document = json.loads(json.dumps(found.as_dict()))
    assert document["layers"][2]["block"] == "encoder.layer.1"
    assert "t_sim" in found.table().splitlines()[1]


def test_the_initialised_control_sees_the_same_windows(tiny):
    trained = layer_profile(tiny, windows=3, tokens=8, seed=0, text=TEXT)
    # (the tiny model was saved as drawn from seed 0: the control of seed 0 is the model)
    control = layer_profile(tiny, windows=3, tokens=8, seed=0, text=TEXT, initialised_seed=5)
    assert control.weights == "initialised (seed 5)" and trained.weights == "trained"
    assert not np.allclose(trained.values["t_sim"], control.values["t_sim"])
    with pytest.raises(InvalidParameter, match="random-tokens control"):
        layer_profile(tiny, windows=1, tokens=8, inputs="random-tokens", text=TEXT)


def test_the_random_embedding_control_has_the_scale_of_the_models_embeddings(tiny):
    drawn = sample_windows(tiny, 64, 8, seed=2, inputs="random-embeddings")
    table = tiny.backbone.get_input_embeddings().weight.detach().numpy()
    assert drawn["inputs_embeds"].shape == (64, 8, 8)
    assert drawn["inputs_embeds"].std() == pytest.approx(table.std(), rel=0.05)
    found = layer_profile(tiny, windows=3, tokens=8, seed=2, inputs="random-embeddings")
    assert found.inputs == "random embeddings" and found.tokens == 8


@pytest.mark.slow
@pytest.mark.parametrize("name", ["minilm-l6", "smollm2-135m"])
def test_the_trained_models_profiles_are_finite_and_differ_from_their_initialisation(name):
    require_model(name)
    model = pretrained(name)
    trained = layer_profile(model, windows=4, tokens=64, seed=0)
    control = layer_profile(model, windows=4, tokens=64, seed=0, initialised_seed=0)
    assert trained.layers == (6 if name == "minilm-l6" else 30)
    for values in trained.values.values():
        assert np.isfinite(values).all()
    # training concentrates attention on the first token: the sink a model at its
    # initialisation lacks (the claims test this over many windows)
    assert trained.values["sink_mass"].mean() > 3 * control.values["sink_mass"].mean()


def test_the_cross_window_cosine_is_the_mean_over_every_pair_of_tokens():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2, 3, 4, 5)) + 0.5
    found = cross_window_cosine(mean_directions(X))
    units = X / np.linalg.norm(X, axis=-1, keepdims=True)
    for b in range(3):
        pairs = np.einsum("lti,lsi->lts", units[:, b], units[:, (b + 1) % 3])
        np.testing.assert_allclose(found[:, b], pairs.mean(axis=(1, 2)))
    assert np.isnan(cross_window_cosine(mean_directions(X[:, :1]))).all()
