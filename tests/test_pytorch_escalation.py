"""The escalation trace of a real architecture: what a claim measures on torch models."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the architectures need the torch extra")

from attndepth.pytorch.architectures import build, random_inputs  # noqa: E402
from attndepth.pytorch.escalation import architecture_trace, model_seed  # noqa: E402
from attndepth.pytorch.observe import observe  # noqa: E402
from attndepth.simulations.measures.similarity import log_odds, token_similarity  # noqa: E402

SIZE = {"depth": 3, "tokens": 5, "width": 8, "heads": 2}


def test_model_seeds_are_distinct_children_of_the_sample_seed():
    seeds = [model_seed(seed, stack) for seed in range(3) for stack in range(4)]
    assert len(set(seeds)) == len(seeds) and all(0 <= s < 2**63 for s in seeds)
    assert model_seed(1, 2) == model_seed(1, 2)
    with pytest.raises(ValueError, match="stack"):
        model_seed(0, -1)


def test_each_column_is_the_model_of_its_child_seed_observed_on_its_own_sequence():
    found = architecture_trace("encoder-post", batch=3, seed=7, **SIZE)
    assert found.log_odds.shape == found.similarity.shape == (4, 3)
    assert found.contraction.shape == (3, 3)
    stack_seed = model_seed(7, 2)
    model = build("encoder-post", seed=stack_seed, **SIZE)
    seen = observe(model, random_inputs("encoder-post", batch=1, tokens=5, width=8,
                                        seed=stack_seed))
    np.testing.assert_array_equal(found.log_odds[:, 2], log_odds(seen.states)[:, 0])
    np.testing.assert_array_equal(found.similarity[:, 2], token_similarity(seen.states)[:, 0])
    assert np.all((found.contraction >= 0) & (found.contraction <= 1 + 1e-12))


def test_without_contraction_the_attention_is_not_asked_for():
    found = architecture_trace("encoder-pre", batch=2, seed=0, contraction=False, **SIZE)
    assert found.contraction.shape == (0, 2) and found.log_odds.shape == (4, 2)


def test_bad_requests_are_refused_in_one_line():
    with pytest.raises(ValueError, match="architecture must be one of"):
        architecture_trace("gpt3", batch=1, seed=0, **SIZE)
    with pytest.raises(ValueError, match="batch"):
        architecture_trace("encoder-pre", batch=0, seed=0, **SIZE)
    with pytest.raises(TypeError, match="contraction must be True or False"):
        architecture_trace("encoder-pre", batch=1, seed=0, contraction="yes", **SIZE)


def test_the_device_comes_from_the_environment_and_a_bad_one_is_named(monkeypatch):
    from attndepth.pytorch.escalation import DEVICE_VARIABLE, trace_device

    monkeypatch.delenv(DEVICE_VARIABLE, raising=False)
    assert trace_device() == "cpu"
    monkeypatch.setenv(DEVICE_VARIABLE, "cpu")
    found = architecture_trace("encoder-post", batch=1, seed=7, **SIZE)
    monkeypatch.delenv(DEVICE_VARIABLE)
    assert np.array_equal(found.similarity,
                          architecture_trace("encoder-post", batch=1, seed=7, **SIZE).similarity)
    monkeypatch.setenv(DEVICE_VARIABLE, "tpu")
    with pytest.raises(ValueError, match=r"ATTNDEPTH_TORCH_DEVICE must be cpu, cuda or cuda:N"):
        architecture_trace("encoder-post", batch=1, seed=7, **SIZE)
    if not torch.cuda.is_available():
        monkeypatch.setenv(DEVICE_VARIABLE, "cuda")
        with pytest.raises(ValueError, match="sees no GPU"):
            trace_device()
