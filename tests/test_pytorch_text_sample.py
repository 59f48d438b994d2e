"""The shipped text sample and its windows: checked bytes, seeded draws, the tokenizer's own
special tokens around each window, and the random-token control of the same shape."""

import numpy as np
import pytest

pytest.importorskip("transformers", reason="tokenizers need the hf extra")

from attndepth.errors import InvalidParameter  # noqa: E402
from attndepth.pytorch.text_sample import (  # noqa: E402
    random_token_windows,
    sample_text,
    special_tokens,
    text_windows,
)
from tests.tiny_models import WORDS, _tokenizer  # noqa: E402

TEXT = " ".join(WORDS[:13] * 20)


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return _tokenizer(tmp_path_factory.mktemp("tokenizer"))


def test_the_sample_is_the_recorded_public_domain_text():
    text = sample_text()
    assert text.startswith("Shakespeare, William (1564--1616), English poet")
    assert 12_000 < len(text.split()) < 13_500 and "\n\n" in text


def test_windows_are_seeded_and_wrapped_in_the_special_tokens(tokenizer):
    before, after = special_tokens(tokenizer)
    assert tokenizer.convert_ids_to_tokens(before + after) == ["[CLS]", "[SEP]"]
    drawn = text_windows(tokenizer, windows=5, tokens=8, seed=3, text=TEXT)
    assert drawn["input_ids"].shape == (5, 8) and drawn["input_ids"].dtype == np.int64
    assert (drawn["input_ids"][:, 0] == before[0]).all()
    assert (drawn["input_ids"][:, -1] == after[0]).all()
    assert (drawn["attention_mask"] == 1).all()
    again = text_windows(tokenizer, windows=5, tokens=8, seed=3, text=TEXT)
    other = text_windows(tokenizer, windows=5, tokens=8, seed=4, text=TEXT)
    assert np.array_equal(drawn["input_ids"], again["input_ids"])
    assert not np.array_equal(drawn["input_ids"], other["input_ids"])
    ids = tokenizer(TEXT, add_special_tokens=False)["input_ids"]
    inner = drawn["input_ids"][0, 1:-1].tolist()
    assert any(ids[s:s + 6] == inner for s in range(len(ids)))  # consecutive tokens


def test_the_random_token_control_has_the_same_shape_and_no_special_token(tokenizer):
    drawn = random_token_windows(tokenizer, windows=4, tokens=10, seed=0)
    assert drawn["input_ids"].shape == (4, 10)
    inner = drawn["input_ids"][:, 1:-1]
    assert not np.isin(inner, tokenizer.all_special_ids).any()


def test_a_text_shorter_than_a_window_and_sizes_without_room_are_one_line(tokenizer):
    with pytest.raises(InvalidParameter, match="fewer than one window"):
        text_windows(tokenizer, windows=1, tokens=100, seed=0, text="the cat")
    with pytest.raises(InvalidParameter, match="leaves no room"):
        text_windows(tokenizer, windows=1, tokens=2, seed=0, text=TEXT)
    with pytest.raises(InvalidParameter, match="windows"):
        random_token_windows(tokenizer, windows=0, tokens=8, seed=0)
