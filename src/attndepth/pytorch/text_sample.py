"""Real text for trained models: a shipped public-domain sample, cut into token windows.

The sample is the article "Shakespeare, William" of the *Encyclopaedia Britannica*,
11th edition (1911, vol. 24, pp. 772–784; by Sidney Lee, 1859–1926): public domain (published
1911, its author dead for more than 90 years). The text is the transcription shipped in
the package ``shakespeare`` 0.6 of the package index (the Open Knowledge Foundation's
Open Shakespeare, file ``shksprdata/ancillary/britannica-11th.txt``, SHA-256
``d73c37c5…``), kept from its start to the last hand-corrected page (about 12,700 words,
73 KB), with the transcription's page markers, Markdown emphasis, footnotes and headings
removed and each paragraph joined into one line. It is prose of 1911 about
Elizabethan England: real English, of a register the models saw little of in training.

:func:`text_windows` tokenizes it once and draws windows of consecutive tokens at
starts drawn from a seed; each window is wrapped in the tokenizer's own special tokens
([CLS] … [SEP] for BERT), so that a model sees what it was trained on.
:func:`random_token_windows` draws the control the papers contrast: token ids drawn
uniformly from the vocabulary (special tokens excluded), wrapped the same way.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.validation import check_int, check_seed

#: The shipped sample: the package resource and its SHA-256.
SAMPLE_RESOURCE = ("attndepth.pytorch", "data/britannica_1911_shakespeare.txt")
SAMPLE_SHA256 = "eefa374cffb84029174b053be10538c3fdab78ac42c45fe8d256306534bd4a0b"
#: What the sample is, in one line (for tables and figures).
SAMPLE_SOURCE = ("Encyclopaedia Britannica, 11th ed. (1911), \"Shakespeare, William\" "
                 "(public domain)")


def sample_text() -> str:
    """The shipped sample (module docstring), checked against its SHA-256."""
    data = resources.files(SAMPLE_RESOURCE[0]).joinpath(SAMPLE_RESOURCE[1]).read_bytes()
    if hashlib.sha256(data).hexdigest() != SAMPLE_SHA256:
        raise InvalidParameter(f"the shipped text sample {SAMPLE_RESOURCE[1]} differs from "
                               f"the one recorded (SHA-256 {SAMPLE_SHA256[:16]}…): "
                               f"reinstall attndepth")
    return data.decode("utf-8")


def special_tokens(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The ids the tokenizer puts before and after a text's own ([CLS] and [SEP] for BERT;
    nothing, or a beginning-of-sequence id, for a decoder)."""
    probe = "a"
    bare = list(tokenizer(probe, add_special_tokens=False)["input_ids"])
    full = list(tokenizer(probe, add_special_tokens=True)["input_ids"])
    for start in range(len(full) - len(bare) + 1):
        if full[start:start + len(bare)] == bare:
            return full[:start], full[start + len(bare):]
    raise InvalidParameter("the tokenizer's special tokens could not be told from a text's "
                           "own (its ids with special tokens do not contain those without)")


def _wrap(tokenizer: Any, windows: np.ndarray) -> dict[str, np.ndarray]:
    before, after = special_tokens(tokenizer)
    rows = len(windows)
    ids = np.concatenate([np.tile(np.array(before, dtype=np.int64), (rows, 1)),
                          windows.astype(np.int64),
                          np.tile(np.array(after, dtype=np.int64), (rows, 1))], axis=1)
    return {"input_ids": ids, "attention_mask": np.ones_like(ids)}


def _check_shape(tokenizer: Any, windows: object, tokens: object) -> tuple[int, int, int]:
    windows = check_int("windows", windows, minimum=1, maximum=100_000)
    tokens = check_int("tokens", tokens, minimum=2, maximum=100_000)
    special = sum(map(len, special_tokens(tokenizer)))
    inner = tokens - special
    if inner < 1:
        raise InvalidParameter(f"tokens={tokens} leaves no room for text beside the "
                               f"tokenizer's {special} special tokens")
    return windows, tokens, inner


def text_windows(tokenizer: Any, windows: int, tokens: int, seed: int,
                 text: str | None = None) -> dict[str, np.ndarray]:
    """``windows`` windows of ``tokens`` tokens of ``text`` (default: the shipped sample).

    Parameters
    ----------
    tokenizer : a ``transformers`` tokenizer.
    windows, tokens : how many windows, and the tokens of each (special tokens included).
    seed : draws the windows' starts (uniform over the text's token positions, without
        replacement where the text has room).
    text : str, optional

    Returns
    -------
    dict
        ``input_ids`` and ``attention_mask``: int64 (windows, tokens).

    Raises
    ------
    InvalidParameter
        A text shorter than one window.
    """
    windows, tokens, inner = _check_shape(tokenizer, windows, tokens)
    seed = check_seed("seed", seed)
    ids = np.asarray(_token_ids(tokenizer, sample_text() if text is None else text),
                     dtype=np.int64)
    starts = len(ids) - inner + 1
    if starts < 1:
        raise InvalidParameter(f"the text has {len(ids):,} tokens, fewer than one window "
                               f"of {inner:,}: give a longer text or fewer --tokens")
    rng = np.random.default_rng(seed)
    chosen = rng.choice(starts, size=windows, replace=windows > starts)
    return _wrap(tokenizer, np.stack([ids[s:s + inner] for s in chosen]))


def _token_ids(tokenizer: Any, text: str) -> list[int]:
    """The text's token ids, no special tokens (tokenized in paragraphs: a tokenizer's own
    length limit never cuts the text)."""
    found: list[int] = []
    for paragraph in text.split("\n"):
        if paragraph.strip():
            found.extend(tokenizer(paragraph, add_special_tokens=False,
                                   verbose=False)["input_ids"])
    return found


def random_token_windows(tokenizer: Any, windows: int, tokens: int,
                         seed: int) -> dict[str, np.ndarray]:
    """The control: windows of token ids drawn uniformly from the vocabulary (the
    tokenizer's special tokens excluded) from ``seed``, wrapped as :func:`text_windows`
    wraps text. Same shapes and keys."""
    windows, tokens, inner = _check_shape(tokenizer, windows, tokens)
    seed = check_seed("seed", seed)
    special = set(tokenizer.all_special_ids)
    vocabulary = np.array([i for i in range(len(tokenizer)) if i not in special])
    rng = np.random.default_rng(seed)
    return _wrap(tokenizer, rng.choice(vocabulary, size=(windows, inner)))
